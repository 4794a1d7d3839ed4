// Short, quiet sounds made with Web Audio (no files): a card played, a trick won, your
// turn, the deal's result. Off unless the setting is on; the audio starts only after the
// person has touched the page (browsers require it).

import { settings } from "./settings.js";

let context = null;

function audio() {
  if (!settings().sound) return null;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  context = context || new Ctx();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/** One soft tone (or a short noise burst for a card) at ``start`` seconds from now. */
function tone(ctx, frequency, start, length, { type = "sine", volume = 0.08 } = {}) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  osc.frequency.value = frequency;
  const at = ctx.currentTime + start;
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(volume, at + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

function noise(ctx, length, volume = 0.06) {
  const buffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * length), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const source = ctx.createBufferSource();
  const gain = ctx.createGain();
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 2400;
  gain.gain.value = volume;
  source.buffer = buffer;
  source.connect(filter).connect(gain).connect(ctx.destination);
  source.start();
}

export const SOUNDS = {
  card: (ctx) => noise(ctx, 0.08),
  trick: (ctx) => { tone(ctx, 660, 0, 0.12); tone(ctx, 880, 0.08, 0.16); },
  turn: (ctx) => tone(ctx, 740, 0, 0.18, { type: "triangle", volume: 0.06 }),
  good: (ctx) => [523, 659, 784, 1047].forEach((f, i) => tone(ctx, f, i * 0.09, 0.2)),
  bad: (ctx) => [392, 330, 262].forEach((f, i) => tone(ctx, f, i * 0.12, 0.22, { type: "triangle" })),
};

/** Play a named sound if sound is on; the page counts them (data-sounds) for tests. */
export function play(name) {
  const ctx = audio();
  if (!ctx) return false;
  try { SOUNDS[name](ctx); } catch { return false; }
  document.body.dataset.sounds = String(Number(document.body.dataset.sounds || 0) + 1);
  document.body.dataset.lastSound = name;
  return true;
}

let previous = null;

/** Sounds for a new state message, compared with the one before. */
export function soundsFor(msg) {
  const before = previous;
  previous = msg;
  if (!before || !settings().sound) return;
  const view = msg.view, old = before.view;
  const sameDeal = before.game.deal_number === msg.game.deal_number;
  const played = (v) => v.tricks.reduce((n, tr) => n + tr.cards.length, 0) + v.trick.cards.length;
  if (sameDeal && view.phase === "over" && old.phase !== "over") {
    const mine = view.soloist === view.seat;
    const made = ["made", "durch_made", "bettel_made"].includes(view.outcome);
    play(mine === made || view.outcome === "redeal" ? "good" : "bad");
  } else if (sameDeal && view.tricks.length > old.tricks.length) play("trick");
  else if (sameDeal && played(view) > played(old)) play("card");
  if (view.to_move === view.seat && old.to_move !== old.seat && view.phase !== "over") setTimeout(() => play("turn"), 150);
}
