// The table's channel: one websocket per table, the model it keeps, and the connection's
// state. The server sends a snapshot (``state``) on connect and on ``sync``, then one
// ``update`` per step; each message is applied to the model (model.js applyUpdate). A gap
// in the versions, or a refusal because another tab of this seat moved first
// (``stale_version``), is mended silently with a ``sync``: no internal text reaches a player.
//
// Heartbeat: a dead line shows within 2 s even when no close ever comes; the page then shows
// "reconnecting" and keeps trying. The hello asks the server for its ``beat`` (a message
// whenever nothing else was sent for about a second, server/beat.py); once one is heard, 1.8 s
// of silence is a dead line. Until then (a server that does not beat), and whenever the page's
// own timers ran late (a busy or sleeping phone has not lost its line), the page sends ``ping``
// after a quiet moment, and only a ping unanswered for a second counts.

import { applyUpdate, follows } from "./model.js";

const QUIET_MS = 600;    // silence before a ping
const ANSWER_MS = 1000;  // a ping unanswered this long: lost (600 + 200 + 1000 + 200: within 2 s)
const SILENT_MS = 1800;  // with the server's beat, silence this long: lost (1800 + 200: within 2 s)
const CHECK_MS = 200;
const LATE_MS = 2 * CHECK_MS;  // a look this long after the last: the page's timers ran late

export class Channel {
  /** ``on``: {model(model, update|null), message(message), error(message), state(online), closed(code)}. */
  constructor(on) {
    this.on = on;
    this.socket = null;
    this.gameId = null;
    this.token = null;
    this.model = null;
    this.awaitingSync = false;
    this.retry = 0;
    this.heard = 0;
    this.pinged = 0;  // when the unanswered ping went out (0: none)
    this.beating = false;  // a beat was heard on this socket: silence alone tells a dead line
    this.checked = 0;  // when the heartbeat last looked
    this.online = false;
    this.timer = null;
  }

  /** Sit at (or watch: ``token`` null) the table ``id``; a fresh model. */
  connect(id, token) {
    this.disconnect();
    this.gameId = id;
    this.token = token;
    this.model = null;
    this.open();
    this.timer = setInterval(() => this.heartbeat(), CHECK_MS);
  }

  disconnect() {
    const socket = this.socket;
    this.socket = null;
    this.gameId = null;
    clearInterval(this.timer);
    this.timer = null;
    if (socket) socket.close();
    this.setOnline(true);  // nothing to be connected to: no notice
  }

  /** Send a message; false if the line is down (the caller says so). */
  send(message) {
    if (!this.online || !this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  open() {
    const id = this.gameId;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(id)}`);
    this.socket = socket;
    this.heard = Date.now();
    this.pinged = 0;
    this.beating = false;
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      this.heard = Date.now();
      this.awaitingSync = true;
      // The seat token goes in the first message, never in a URL; no token: a spectator.
      const version = this.model?.version ?? null;
      socket.send(JSON.stringify({ type: "hello", token: this.token, version, beat: true }));
    });
    socket.addEventListener("message", (event) => {
      if (this.socket !== socket) return;
      this.heard = Date.now();
      this.pinged = 0;
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      this.receive(message);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket || this.gameId !== id) return;  // replaced on purpose
      this.lost();
      this.on.closed?.(event.code);
      if (event.code === 4404) return;  // no such table: nothing to come back to
      this.reopenLater();
    });
  }

  /** The line is gone (closed, or silent too long): say so, and try again. */
  lost() {
    this.setOnline(false);
    const socket = this.socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      this.socket = null;  // a silent line's close may come much later: do not wait for it
      socket.close();
      this.reopenLater();
    }
  }

  reopenLater() {
    const id = this.gameId;
    const delay = Math.min(5000, 400 * 2 ** this.retry++);
    setTimeout(() => { if (this.gameId === id && (!this.socket || this.socket.readyState === WebSocket.CLOSED)) this.open(); }, delay);
  }

  /** The heartbeat: with the server's beat, lost after a silence; else (or when this look
   *  came late) one ping after a quiet moment, lost when it goes unanswered. */
  heartbeat() {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    const now = Date.now();
    const late = now - this.checked > LATE_MS;
    this.checked = now;
    const quiet = now - this.heard;
    if (this.pinged) {
      if (now - this.pinged >= ANSWER_MS) this.lost();
    } else if (this.beating && !late && quiet >= SILENT_MS) {
      this.lost();
    } else if (quiet >= (this.beating ? SILENT_MS : QUIET_MS)) {
      socket.send(JSON.stringify({ type: "ping" }));
      this.pinged = now;
    }
  }

  setOnline(online) {
    if (online === this.online) return;
    this.online = online;
    this.on.state?.(online);
  }

  /** One message from the server: the model's, or the page's. */
  receive(message) {
    switch (message.type) {
      case "pong": break;
      case "beat": this.beating = true; break;
      case "state":
        this.retry = 0;
        this.awaitingSync = false;
        this.model = message;
        this.setOnline(true);
        this.on.model(this.model, null);
        break;
      case "update":
        if (this.awaitingSync || (this.model && message.version <= this.model.version)) break;  // a snapshot is on its way, or seen
        if (!follows(this.model, message)) { this.resync(); break; }
        this.model = applyUpdate(this.model, message);
        this.on.model(this.model, message);
        break;
      case "presence":
      case "rematch":
        if (this.model) this.model = applyUpdate(this.model, message);
        this.on.message(message);
        break;
      case "error":
        // Another tab of this seat (or a bot) moved first: nothing to tell, only to catch up.
        this.resync();
        this.on.error(message, message.code === "stale_version");
        break;
      default:
        this.on.message(message);
    }
  }

  resync() {
    this.awaitingSync = true;
    this.send({ type: "sync" });
  }
}
