/**
 * One stream connection (`GET /api/stream`): the engine's feed turned into the page's messages
 * (api_types.ts `StreamMessages`), each with a cursor id (cursor.ts) so that a page that
 * reconnects with `Last-Event-ID` gets exactly what it missed.
 *
 * A fresh connection follows every live run from its first event (`engine.subscribe({ live:
 * true })`, new runs included) and announces the newest finished ones. A resumed one follows the
 * live runs from the offsets the cursor holds, the runs of the cursor that ended meanwhile from
 * theirs (a second subscription by id), and announces the runs that appeared while it was away.
 * Two subscriptions may read the same run: an event at or before the offset delivered is dropped.
 * Nothing polls: every message comes from the feed.
 */
import type { Engine, FeedEvent, RunReport, Stall, Subscription } from "../../engine/mod.ts";
import type { ApiEvent, RunCard, StreamEventName, StreamMessages } from "./api_types.ts";
import { cardOf, foldCard, freshCard, isFinalEvent } from "./card.ts";
import { type Cursor, encodeCursor, ENDED, ENDED_KEEP_MS } from "./cursor.ts";

/** One message to write. */
export interface Message {
  event: StreamEventName;
  data: string;
  id: string;
}

/** Options of a connection. */
export interface ConnectionOptions {
  /** Where the page left off, or null for a fresh start. */
  cursor: Cursor | null;
  /** How many finished runs a fresh connection announces. */
  recent: number;
  now(): number;
}

interface Followed {
  card: RunCard;
  /** Offset of the events file after the last event delivered. */
  offset: number;
  ended: boolean;
}

/** A connection's runs and the messages they make, in order. */
export class Connection {
  #engine: Engine;
  #options: ConnectionOptions;
  #runs = new Map<string, Followed>();
  #subs: Subscription[] = [];
  #queue: (() => Promise<Message>)[] = [];
  #wake: (() => void) | null = null;
  #closed = false;

  constructor(engine: Engine, options: ConnectionOptions) {
    this.#engine = engine;
    this.#options = options;
  }

  /** The messages, in order, until `close()`. */
  async *messages(): AsyncGenerator<Message> {
    while (!this.#closed) {
      const next = this.#queue.shift();
      if (next === undefined) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = null;
        continue;
      }
      yield await next();
    }
  }

  /** Starts following: the hello, the replay, `ready`, then live messages. */
  async open(): Promise<void> {
    const cursor = this.#options.cursor;
    this.#push("hello", { version: 1, now: this.#options.now(), resumed: cursor !== null });
    const fromOffsets: Record<string, number> = {};
    if (cursor !== null) {
      for (const [id, offset] of cursor.runs) {
        const record = await this.#engine.peek(id);
        if (record === null) continue;
        this.#runs.set(id, {
          card: cardOf(record, this.#options.now()),
          offset,
          ended: offset === ENDED,
        });
        if (offset !== ENDED) fromOffsets[id] = offset;
      }
    }
    const live = this.#engine.subscribe({ live: true }, (ev) => this.#onEvent(ev), {
      fromOffsets,
      onRun: (record) => this.#onRun(record),
      onStall: (run, stall) => this.#onStall(run, stall),
    });
    this.#subs.push(live);
    await live.ready;
    // The runs of the cursor that are no longer live: the rest of their events.
    const joined = new Set(live.runs().map((r) => r.id));
    const left = Object.keys(fromOffsets).filter((id) => !joined.has(id));
    if (left.length > 0) await this.#follow(left, fromOffsets);
    // Runs the feed did not bring: finished ones to announce, and any that raced it.
    const since = cursor === null ? null : cursor.time - ENDED_KEEP_MS;
    const latecomers: string[] = [];
    for (const record of await this.#engine.list({ recent: this.#options.recent, all: true })) {
      if (this.#runs.has(record.id)) continue;
      const final = record.state !== "queued" && record.state !== "running";
      if (!final) {
        this.#onRun(record);
        latecomers.push(record.id);
      } else if (since === null || (record.endedAt ?? record.createdAt) >= since) {
        this.#runs.set(record.id, {
          card: cardOf(record, this.#options.now()),
          offset: ENDED,
          ended: true,
        });
        this.#push("run", { card: cardOf(record, this.#options.now()) });
      }
    }
    if (latecomers.length > 0) await this.#follow(latecomers, {});
    this.#push("ready", { runs: this.#runs.size });
  }

  async #follow(ids: string[], fromOffsets: Record<string, number>): Promise<void> {
    const sub = this.#engine.subscribe({ runs: ids }, (ev) => this.#onEvent(ev), {
      fromOffsets,
      onStall: (run, stall) => this.#onStall(run, stall),
    });
    this.#subs.push(sub);
    await sub.ready;
  }

  #onRun(record: RunReport): void {
    if (this.#runs.has(record.id)) return;
    const card = freshCard(record);
    this.#runs.set(record.id, { card, offset: 0, ended: false });
    this.#push("run", { card });
  }

  /** A run went stalled: its card says so (its next event clears it, foldCard). */
  #onStall(id: string, stall: Stall): void {
    const run = this.#runs.get(id);
    if (run === undefined || run.ended) return;
    run.card = { ...run.card, stalled: stall.text };
    this.#push("run", { card: run.card });
  }

  #onEvent(ev: FeedEvent): void {
    const run = this.#runs.get(ev.run);
    if (run === undefined || run.ended) return;
    const final = isFinalEvent(ev.event);
    if (!final && ev.offset <= run.offset) return;
    run.offset = Math.max(run.offset, ev.offset);
    run.card = foldCard(run.card, ev.event);
    const event = ev.event as ApiEvent;
    if (!final) {
      this.#push("event", { run: ev.run, event, card: run.card });
      return;
    }
    run.ended = true;
    const id = this.#cursor();
    const folded = run.card;
    // The final record has what the event does not (receipt, changes): read it in order.
    this.#enqueue(async () => {
      const record = await this.#engine.peek(ev.run).catch(() => null);
      run.card = record !== null && record.state !== "queued" && record.state !== "running"
        ? cardOf(record, this.#options.now())
        : folded;
      return message("event", { run: ev.run, event, card: run.card }, id);
    });
  }

  #cursor(): string {
    const now = this.#options.now();
    const runs = new Map<string, number>();
    for (const [id, f] of this.#runs) {
      if (!f.ended) runs.set(id, f.offset);
      else if ((f.card.endedAt ?? 0) >= now - ENDED_KEEP_MS) runs.set(id, ENDED);
    }
    return encodeCursor({ time: now, runs });
  }

  #push<K extends StreamEventName>(event: K, data: StreamMessages[K]): void {
    const m = message(event, data, this.#cursor());
    this.#enqueue(() => Promise.resolve(m));
  }

  #enqueue(make: () => Promise<Message>): void {
    if (this.#closed) return;
    this.#queue.push(make);
    this.#wake?.();
  }

  /** Stops following; the message loop ends. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.();
    await Promise.all(this.#subs.map((s) => s.close().catch(() => undefined)));
  }
}

function message<K extends StreamEventName>(
  event: K,
  data: StreamMessages[K],
  id: string,
): Message {
  return { event, data: JSON.stringify(data), id };
}
