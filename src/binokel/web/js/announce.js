// A game that speaks: what happened at the table, said once and politely to screen
// readers (a visually hidden live region, role="log"): each bid or pass, the Tapp, trump,
// each card played with its player, each trick's winner and points, the deal's result, and
// whose turn it is. Fed by the events the server sends (never by comparing states), so
// that a redraw, a language switch or a reconnect's snapshot says nothing twice.
//
// Two forms of events are read: the typed events of the update channel (call,
// auction_won, tapp_shown, tapp_taken, discard, game_named, surrender, melds, open_hand,
// card_played, trick_won, deal_scored, game_over, deal) and the driver's older ones
// (action, soloist, tapp, trick, deal_over), which ``typed`` turns into the first form.

import { t, tSeat, number, cardText, suitName, language } from "./i18n.js";

const KEEP = 40;  // lines kept in the region (a screen reader's history is its own)
const SUITS = ["S", "H", "D", "C"];
const CARD = /^[ATKQJ97][SHDC]$/;
const signed = (n) => (n > 0 ? "+" : n < 0 ? "\u2212" : "") + number(Math.abs(n));

let region = null;
let pending = [];      // events heard before the state they lead to (the older plumbing)
let phase = null;      // the phase before the events being read (only the older events need it)
let lastVersion = -1;  // events up to this version were said: missed events sent again stay unsaid

/** The live region, made once at start (a region must exist before it speaks). */
export function bindAnnouncer() {
  region = document.getElementById("announcer");
  if (region) return region;
  region = document.createElement("div");
  region.id = "announcer";
  region.className = "visually-hidden";
  region.setAttribute("role", "log");
  region.setAttribute("aria-live", "polite");
  region.setAttribute("aria-relevant", "additions");
  region.setAttribute("data-testid", "announcer");
  region.setAttribute("aria-label", t("announcements"));
  document.body.append(region);
  return region;
}

/** A new table (another game, or the start page): nothing of the old one is said. */
export function resetAnnouncer() {
  pending = [];
  phase = null;
  lastVersion = -1;
  region?.replaceChildren();
}

/** An ``events`` message of the older plumbing: kept until its state arrives. */
export function heard(events) {
  pending.push(...(events || []));
}

/** A ``state`` message of the older plumbing: say the events that led to it. */
export function reached(msg) {
  const events = pending;
  pending = [];
  announceStep(events, msg);
}

/** Say what ``events`` tell, seen by the viewer of ``msg`` (the model after them:
 *  names, the viewer's seat, whose turn it is now). The update channel calls this with
 *  ``update.events`` and the model it made. */
export function announceStep(events, msg) {
  if (!msg?.view) return;
  const fresh = (events || []).filter((e) => e.version == null || e.version > lastVersion);
  for (const e of fresh) if (e.version != null) lastVersion = Math.max(lastVersion, e.version);
  if (phase == null || !fresh.length) phase = msg.view.phase;
  if (!fresh.length) return;
  const viewer = msg.seat ?? null;
  const names = msg.game?.players ?? [];
  const deck = document.body.dataset.deck || "french";
  const sentences = typed(fresh, phase).map((e) => sentence(e, { viewer, names, deck })).filter(Boolean);
  phase = msg.view.phase;
  const turn = msg.view.to_move;
  if (sentences.length && turn != null && turn >= 0 && !["over", "deal"].includes(msg.view.phase)) {
    sentences.push(tSeat("say.turn", turn, viewer, { name: names[turn] ?? "" }));
  }
  say(sentences.join(" "));
}

/** Add one line to the region (its own element: the same words twice are still said twice). */
export function say(text) {
  if (!text) return;
  if (!region) bindAnnouncer();
  const line = document.createElement("p");
  line.textContent = text.replace(/\p{Extended_Pictographic}/gu, "").trim();
  line.lang = language();
  region.append(line);
  while (region.childElementCount > KEEP) region.firstElementChild.remove();
}

// ------------------------------------------------------------------ events in one form

/** The events in the typed form; an older ``action`` is read by the phase it was made in. */
export function typed(events, startPhase) {
  let now = startPhase;
  const out = [];
  for (const e of events) {
    switch (e.kind) {
      case "action": {
        const a = e.action;
        if (a == null) out.push({ kind: "discard", seat: e.seat, card: null });
        else if (a === "pass" || /^\d+$/.test(a)) out.push({ kind: "call", seat: e.seat, call: a });
        else if (a === "take") { out.push({ kind: "tapp_taken", seat: e.seat }); now = "discard"; }
        else if (a === "surrender" || a === "play") out.push({ kind: "surrender", seat: e.seat, surrender: a === "surrender" });
        else if (CARD.test(a)) out.push(now === "discard" ? { kind: "discard", seat: e.seat, card: a } : { kind: "card_played", seat: e.seat, card: a });
        else { out.push({ kind: "game_named", seat: e.seat, game: a }); now = "play"; }
        break;
      }
      case "soloist": out.push({ kind: "auction_won", seat: e.seat, bid: e.bid }); break;
      case "tapp": out.push({ kind: "tapp_shown", cards: e.cards }); break;
      case "trick": {
        out.push({ kind: "trick_won", number: e.number, winner: e.winner, points: e.points });
        break;
      }
      case "deal_over": out.push({ ...e, kind: "deal_scored" }); break;
      case "melds": now = "play"; out.push(e); break;
      case "deal": now = "auction"; out.push(e); break;
      default: out.push(e);
    }
  }
  // Cards laid away are not said (hidden from all but the soloist, who chose them); the
  // game named next tells that the discard is done.
  return out.filter((e) => e.kind !== "discard");
}

/** One event in words, or "" for what is not said (a hand dealt). */
export function sentence(e, { viewer, names, deck }) {
  const name = names[e.seat] ?? "";
  const you = (key, seat, params) => tSeat(key, seat, viewer, { name: names[seat] ?? "", ...params });
  switch (e.kind) {
    case "deal": return you("say.deal", e.dealer, { n: number(e.number) });
    case "call": return e.call === "pass" ? you("say.pass", e.seat) : you("say.bid", e.seat, { bid: number(Number(e.call)) });
    case "auction_won": return you("say.auction_won", e.seat, { bid: number(e.bid) });
    case "tapp_shown": return t("say.tapp_shown", { cards: (e.cards || []).map((c) => cardText(c, deck).name).join(", ") });
    case "tapp_taken": return you("say.tapp_taken", e.seat);
    case "game_named":
      return SUITS.includes(e.game) ? you("say.trump", e.seat, { suit: suitName(e.game, deck) })
        : you("say.game", e.seat, { game: t(`game.${e.game}`) });
    case "surrender": return you(e.surrender ? "say.surrender" : "say.play_on", e.seat);
    case "melds": {
      const list = (e.melds || []).map((melds, seat) => ({ seat, total: (melds || []).reduce((s, m) => s + (m.points || 0), 0) }))
        .filter(({ seat }) => names[seat] != null)
        .map(({ seat, total }) => t("say.meld_seat", { name: seat === viewer ? t("you") : names[seat], points: number(total) }));
      return list.length ? t("say.melds", { list: list.join(", ") }) : "";
    }
    case "open_hand": return t("say.open_hand", { name });
    case "card_played": return you("say.card", e.seat, { card: cardText(e.card, deck).name });
    case "trick_won": return you("say.trick", e.winner, { points: number(e.points) });
    case "deal_scored": {
      const title = tSeat(`result.${e.outcome}`, e.soloist, viewer, { name: names[e.soloist] ?? "", bid: number(e.bid) });
      const list = (e.scores || []).map((score, seat) => `${seat === viewer ? t("you") : names[seat] ?? ""} ${signed(score)}`);
      return `${title} ${t("say.scores", { list: list.join(", ") })}`;
    }
    case "game_over": return viewer != null && e.winner === viewer ? t("you_win") : t("winner_is", { name: names[e.winner] ?? "" });
    default: return "";
  }
}
