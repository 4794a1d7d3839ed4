// Seat tokens per game, kept in this browser (the server's hello and "your games" need them).
// A stand-in until the friends page lands its own; same idea: {id: token} in localStorage.

const KEY = "binokel.tokens";

export function tokens() {
  try { return JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { return {}; }
}

export const tokenOf = (id) => tokens()[id] ?? null;

export function keepToken(id, token) {
  if (!token) return;
  localStorage.setItem(KEY, JSON.stringify({ ...tokens(), [id]: token }));
}

/** The games this browser holds a seat at (newest first, unfinished first). */
export async function myGames() {
  const response = await fetch("/api/my-games", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ tokens: Object.values(tokens()).slice(-50) }),
  });
  return (await response.json()).games || [];
}
