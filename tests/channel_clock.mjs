// web/js/channel.js on a fake clock, for tests/test_channel_heartbeat.py: fake timers and a fake
// websocket whose server beats (as server/beat.py) or only answers pings (an older server).
// Reads the runs from stdin as JSON; writes, for each, when the page said "offline" (ms after the
// line died; null: never), the pings it sent and its hello.
let now = 1_000_000;
const RealDate = Date;
globalThis.Date = class extends RealDate { static now() { return now; } };
let timers = [];
globalThis.setInterval = (f, ms) => { const timer = { f, ms, next: now + ms }; timers.push(timer); return timer; };
globalThis.clearInterval = (timer) => { timers = timers.filter((t) => t !== timer); };
globalThis.setTimeout = () => 0;  // no reconnecting here
globalThis.location = { protocol: "http:", host: "test" };
const sockets = [];
globalThis.WebSocket = class {
  static OPEN = 1;
  static CLOSED = 3;
  constructor() { this.readyState = 1; this.sent = []; this.on = {}; sockets.push(this); }
  addEventListener(kind, f) { this.on[kind] = f; }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() { this.readyState = 3; }
};
const { Channel } = await import(process.argv[2]);

// One run, in steps of 1 ms: the server beats (if `beats` and the hello asks) after `quiet` ms of
// silence, looking every `tick` ms, and answers pings; a message reaches the page `delay` ms after
// it leaves, and the server's loop is `lag` ms late with each; nothing gets through once the line
// dies (`death` ms in). The page's own timers and events stop for `stall` = [from, ms].
function run({ beats, death, quiet, tick, delay = 5, lag = 0, stall = null, until = death + 5000 }) {
  timers = [];
  sockets.length = 0;
  const start = now;
  let offline = null;
  const channel = new Channel({ model() {}, message() {}, error() {},
    state(online) { if (!online && offline === null) offline = now - start; } });
  channel.connect("game", "token");
  const socket = sockets[0];
  socket.on.open();
  const hello = socket.sent[0];
  const beating = beats && hello.beat === true;
  const inbox = [];  // [when it reaches the page, message]
  const post = (message) => { if (now - start < death) inbox.push([now + lag + delay, message]); told = now; };
  let told = now;
  post({ type: "state", version: 1 });
  if (beating) post({ type: "beat" });
  let read = 1;
  for (; now < start + until; now += 1) {
    if (beating && (now - start) % tick === 0 && now - told >= quiet) post({ type: "beat" });
    for (; read < socket.sent.length; read++) {
      if (socket.sent[read].type === "ping" && now - start < death) post({ type: "pong" });
    }
    if (stall && now - start >= stall[0] && now - start < stall[0] + stall[1]) continue;
    for (const timer of timers) if (timer.next <= now) { timer.next = now + timer.ms; timer.f(); }  // a waking page: timers first
    inbox.sort((a, b) => a[0] - b[0]);
    while (inbox.length && inbox[0][0] <= now) socket.on.message({ data: JSON.stringify(inbox.shift()[1]) });
  }
  return { offline: offline === null ? null : offline - death, pings: socket.sent.filter((m) => m.type === "ping").length, hello };
}

let text = "";
process.stdin.on("data", (d) => { text += d; });
process.stdin.on("end", () => { process.stdout.write(JSON.stringify(JSON.parse(text).map(run))); });
