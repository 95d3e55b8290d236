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
 * A finished run that changes later (applied, reverted, discarded, audited, reviewed) comes as a
 * `run.changed` from the same feed: an `event` message with its card from its record now, or a
 * `run` message for a run the connection had not announced; a resumed connection gets the changes
 * since its cursor's time (less `CHANGES_SLACK_MS`), so a page that was away misses none.
 * Nothing polls: every message comes from the feed.
 */
import type {
  Engine,
  FeedEvent,
  PitroomEvent,
  RunReport,
  Stall,
  Subscription,
} from "../../engine/mod.ts";
import type { ApiEvent, RunCard, StreamEventName, StreamMessages } from "./api_types.ts";
import { cardOf, foldCard, freshCard, isFinalEvent } from "./card.ts";
import { type Cursor, encodeCursor, ENDED, ENDED_KEEP_MS } from "./cursor.ts";

/**
 * How far before a resumed cursor's time its changes are replayed: a change read just before the
 * page's last message was sent may have been sent after it (a change sent twice says the same).
 */
export const CHANGES_SLACK_MS = 60_000;

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
  /** Changed runs not followed here, waiting to be announced. */
  #announcing = new Set<string>();
  #subs: Subscription[] = [];
  #queue: (() => Promise<Message | null>)[] = [];
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
      const m = await next();
      if (m !== null) yield m;
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
      ...(cursor === null ? {} : { changesSince: cursor.time - CHANGES_SLACK_MS }),
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
    if (ev.event.type === "run.changed") return this.#onChanged(ev.run, ev.event);
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

  /**
   * A finished run changed: its card folds the change at once and is then made from its record as
   * it is now (read in order, like a final event's); a run the page was not told of is announced.
   */
  #onChanged(id: string, event: Extract<PitroomEvent, { type: "run.changed" }>): void {
    const run = this.#runs.get(id);
    // A run still followed: its final event and record are still to come, and say it.
    if (run !== undefined && !run.ended) return;
    const now = this.#options.now();
    if (run !== undefined) run.card = foldCard(run.card, event);
    else if (this.#announcing.has(id)) return; // (a resume may replay many changes of one run)
    else this.#announcing.add(id);
    const cursor = run === undefined ? null : this.#cursor();
    this.#enqueue(async () => {
      // A change that comes while this one's record is read is read again after it.
      this.#announcing.delete(id);
      const record = await this.#engine.peek(id).catch(() => null);
      const known = this.#runs.get(id);
      if (known === undefined) {
        if (record === null) return null;
        const card = cardOf(record, now);
        this.#runs.set(id, { card, offset: ENDED, ended: true });
        return message("run", { card }, this.#cursor());
      }
      if (!known.ended) return null;
      if (record !== null) known.card = cardOf(record, now);
      return message("event", { run: id, event, card: known.card }, cursor ?? this.#cursor());
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

  #enqueue(make: () => Promise<Message | null>): void {
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
