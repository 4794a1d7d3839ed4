// A sheet kept on the phone, for the pages where deals played with real cards are entered
// (the score pad, a club table's scorekeeper): the server's last answer, the deals not yet
// sent and a half-made entry live in localStorage, so the page opens and takes deals
// without a connection. Waiting deals are sent in order, one at a time, once the server
// answers (tried every few seconds and when the phone says it is online); a refused one
// stays on the phone with its reason until it is corrected, and no later deal is sent
// before it. The server checks and scores every deal; this module holds no rules.

import { t } from "./i18n.js";

const RETRY_SECONDS = 3;

/** A JSON API under ``base``: ``api(method, path, body, secret)``. A refusal throws
 *  {code, params}; no answer (or a server error without a code) throws {offline, code: offlineCode}. */
export function jsonApi(base, offlineCode) {
  const offline = { offline: true, code: offlineCode, params: {} };
  return async (method, path, body, secret) => {
    const headers = { "Content-Type": "application/json" };
    if (secret) headers.Authorization = `Bearer ${secret}`;
    let response;
    try {
      response = await fetch(`${base}${path}`, { method, headers, cache: "no-store", body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw offline;
    }
    const data = await response.json().catch(() => ({}));
    if (response.status >= 500 && !data.code) throw offline;
    if (!response.ok) throw { code: data.code || "internal_error", params: data.params || {} };
    return data;
  };
}

/** The phone's copy kept under ``key``: {sheet (the server's last answer), queue, draft, …}. */
export const loadKept = (key) => JSON.parse(localStorage.getItem(key) || "null") || { queue: [] };
export const saveKept = (key, kept) => localStorage.setItem(key, JSON.stringify(kept));

/** The rows of a sheet as the page shows them: the server's (each with ``number`` and
 *  ``summary``), with the deals waiting on the phone in their place (``pending``, and the
 *  server's ``problem`` when it refused one). */
export function withWaiting(rows, queue) {
  const shown = [...rows];
  for (const item of queue) {
    const row = { number: item.deal, summary: item.summary, pending: true, problem: item.problem };
    if (item.deal <= shown.length) shown[item.deal - 1] = { ...shown[item.deal - 1], ...row };
    else shown.push(row);
  }
  return shown;
}

/** The deals entered on this phone on their way to the server. */
export class Outbox {
  /** ``kept``: the phone's copy ({sheet, queue, draft}); ``save()`` stores it;
   *  ``post(item)`` sends one deal ({deal, summary}) and resolves to the new sheet;
   *  ``fetch()`` resolves to the server's sheet (its ``deals`` are the deals it holds);
   *  ``refusedAtOnce(item, problem)``: a deal just entered was refused while the page was
   *  online (it goes back into the form, nothing lost); ``changed()``: paint again;
   *  ``online``: did the server answer when the page opened? */
  constructor({ kept, save, post, fetch, refusedAtOnce, changed, online = true }) {
    kept.queue ||= [];
    Object.assign(this, { kept, save, post, fetch, refusedAtOnce, changed, online });
    this.sending = Promise.resolve();
    this.timer = null;
    this.retry = () => this.flush();
  }

  get queue() { return this.kept.queue; }

  /** The number of the next deal to enter: after the server's and the waiting ones. */
  next() { return Math.max(this.kept.sheet.deals.length, ...this.queue.map((item) => item.deal)) + 1; }

  /** Keep a deal on the phone at once (replacing one waiting for the same deal), then send it. */
  enter(item) {
    this.kept.queue = this.queue.filter((queued) => queued.deal !== item.deal);
    this.queue.push(item);
    this.queue.sort((a, b) => a.deal - b.deal);
    this.kept.draft = null;
    this.save();
    this.flush(item);
  }

  /** The refused deal waiting for ``deal``, taken off the queue to be corrected (or undefined). */
  takeBack(deal) {
    const item = this.queue.find((queued) => queued.deal === deal && queued.problem);
    if (item) this.kept.queue = this.queue.filter((queued) => queued !== item);
    return item;
  }

  /** Send the waiting deals in order, one sending at a time. */
  flush(justEntered) {
    this.sending = this.sending.then(() => this.send(justEntered));
    return this.sending;
  }

  async send(justEntered) {
    clearTimeout(this.timer);
    const later = () => { this.timer = setTimeout(this.retry, RETRY_SECONDS * 1000); };
    if (!this.online && !this.queue.length) {  // nothing waits: is the server there again?
      try {
        this.kept.sheet = await this.fetch();
        this.online = true;
      } catch (problem) {
        if (problem.offline) later();
      }
    }
    while (this.queue.length) {
      const item = this.queue[0];
      if (item.problem || item.deal > this.kept.sheet.deals.length + 1) break;  // an earlier deal must go first
      try {
        this.kept.sheet = await this.post(item);
        this.kept.queue = this.queue.filter((queued) => queued !== item);
        this.online = true;
      } catch (problem) {
        if (problem.offline) { this.online = false; later(); break; }
        this.online = true;
        if (item === justEntered) {
          this.kept.queue = this.queue.filter((queued) => queued !== item);
          this.refusedAtOnce(item, problem);
        } else {
          item.problem = { code: problem.code, params: problem.params };
        }
        break;
      }
      this.save();
    }
    this.save();
    this.changed();
  }

  /** Where the sheet stands, for a status line: {text, offline}. */
  status() {
    const n = this.queue.length;
    if (!this.online) return { text: t("outbox.offline", { n }), offline: true };
    return { text: n ? t("outbox.sending", { n }) : t("outbox.online"), offline: false };
  }

  /** Paint ``line`` (a role=status paragraph of class ``sync``) with the status. */
  show(line) {
    const { text, offline } = this.status();
    line.className = offline ? "sync offline" : "sync";
    line.textContent = text;
  }

  /** Send what waits now and whenever the phone comes online; ``stop()`` ends it. */
  start() {
    window.addEventListener("online", this.retry);
    if (this.queue.length || !this.online) this.flush();
  }

  stop() {
    clearTimeout(this.timer);
    window.removeEventListener("online", this.retry);
  }

  /** Keep a half-made entry so that a reload loses nothing: the deal, the choices made by
   *  taps and the inputs' values. */
  keepDraft(editing, choice, inputs) {
    this.kept.draft = { editing, choice: { ...choice }, values: inputs.map((input) => input.value) };
    this.save();
  }

  /** Put the kept draft's values back into ``inputs``; false when there is none. */
  restoreDraft(inputs) {
    const values = this.kept.draft?.values;
    if (!values) return false;
    inputs.forEach((input, i) => { input.value = values[i] ?? ""; });
    return true;
  }
}
