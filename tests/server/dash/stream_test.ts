/**
 * The stream (`GET /api/stream`) over a real engine world: what a fresh page gets (every live
 * run from its first event, the newest finished ones, each new run as it appears, a final card
 * from the final record), and what a page that reconnects with `Last-Event-ID` gets: exactly
 * the events it missed, once, and the runs that appeared while it was away.
 */
import assert from "node:assert/strict";
import type { ApiEvent } from "../../../src/server/dash/api_types.ts";
import { decodeCursor, encodeCursor, ENDED } from "../../../src/server/dash/cursor.ts";
import { type SseMessage, SseReader } from "./_sse.ts";
import { type DashWorld, dashWorld } from "./_world.ts";

function eventsOf(seen: SseMessage[], run: string): ApiEvent[] {
  return seen.flatMap((m) => m.event === "event" && m.data.run === run ? [m.data.event] : []);
}

function isEnd(run: string) {
  return (m: SseMessage) =>
    m.event === "event" && m.data.run === run && m.data.event.type === "run.finished";
}

async function connect(w: DashWorld, headers: Record<string, string> = {}): Promise<SseReader> {
  return new SseReader(await w.get("/api/stream", headers));
}

Deno.test("a fresh stream: live runs from their first event, finished ones, new runs as they come", async () => {
  await using w = await dashWorld();
  const old = await w.run("An old question");
  const live = await w.begin("Take your time wait:one");
  await using stream = await connect(w);
  const hello = await stream.next();
  assert.equal(hello.event, "hello");
  assert.equal(hello.event === "hello" && hello.data.resumed, false);
  const ready = await stream.until((m) => m.event === "ready", "ready");
  const announced = stream.seen.flatMap((m) => m.event === "run" ? [m.data.card] : []);
  assert.deepEqual(announced.map((c) => c.id).sort(), [live.id, old.id].sort());
  assert.equal(announced.find((c) => c.id === old.id)?.state, "done");
  assert.equal(announced.find((c) => c.id === live.id)?.state, "running");
  assert.equal(ready.event === "ready" && ready.data.runs, 2);
  // The live run's events so far, from its first; the old one's are not streamed.
  const before = eventsOf(stream.seen, live.id);
  assert.equal(before[0]?.type, "run.started");
  assert.deepEqual(eventsOf(stream.seen, old.id), []);
  // Each message's id is a cursor.
  for (const m of stream.seen) assert.notEqual(decodeCursor(m.id), null, m.id);

  // A new run is announced before its first event.
  const next = w.run("A new question");
  const appeared = await stream.until(
    (m) => m.event === "run" && !announced.some((c) => c.id === m.data.card.id),
    "the new run",
  );
  const newId = appeared.event === "run" ? appeared.data.card.id : "";
  const newEnd = await stream.until(isEnd(newId), "the new run's end");
  assert.equal((await next).id, newId);
  assert.deepEqual(eventsOf(stream.seen, newId), await w.engine.events(newId));

  await w.release("one");
  const end = await stream.until(isEnd(live.id), "the live run's end");
  assert.equal((await live.done).outcome, "ok");
  // Every event of the live run, once each, in order.
  assert.deepEqual(eventsOf(stream.seen, live.id), await w.engine.events(live.id));
  // The final card is the final record's: outcome, receipt, answer-side figures.
  assert.ok(end.event === "event");
  assert.equal(end.data.card.state, "done");
  assert.equal(end.data.card.outcome, "ok");
  assert.equal(end.data.card.canStop, false);
  assert.notEqual(end.data.card.saved, null);
  assert.equal(end.data.card.tools, 1);
  assert.equal(newEnd.event === "event" && newEnd.data.card.state, "done");
});

Deno.test("a card follows the events: steps and tool calls at once, progress from the engine", async () => {
  await using w = await dashWorld();
  const live = await w.begin("Take your time wait:one");
  await using stream = await connect(w);
  await stream.until((m) => m.event === "ready", "ready");
  await w.release("one");
  await stream.until(isEnd(live.id), "the end");
  await live.done;
  const cards = stream.seen.flatMap((m) =>
    m.event === "event" && m.data.run === live.id ? [m.data] : []
  );
  const tool = cards.find((c) => c.event.type === "worker.tool_call")!;
  assert.equal(tool.card.last, "read src/app.ts");
  assert.ok(tool.card.tools >= 1);
  const record = await w.engine.get(live.id);
  const last = cards.at(-1)!.card;
  assert.equal(last.steps, record.progress.steps);
  assert.equal(last.tools, record.progress.tools);
  assert.deepEqual(last.tokens, record.progress.tokens);
});

Deno.test("Last-Event-ID: a page that reconnects gets exactly what it missed, once", async () => {
  await using w = await dashWorld();
  const a = await w.begin("First wait:a1 and then wait:a2");
  const first = await connect(w);
  await first.until((m) => m.event === "ready", "ready");
  const cut = first.seen.at(-1)!.id;
  const gotBefore = eventsOf(first.seen, a.id);
  assert.ok(gotBefore.length > 0);
  await first.close();

  // While the page is away: a goes on and ends, b comes and goes, c starts and stays.
  await w.release("a1");
  await w.release("a2");
  assert.equal((await a.done).outcome, "ok");
  const b = await w.run("A quick one");
  const c = await w.begin("Still going wait:c1");

  await using again = await connect(w, { "last-event-id": cut });
  const hello = await again.next();
  assert.ok(hello.event === "hello" && hello.data.resumed);
  await again.until((m) => m.event === "ready", "ready");
  // What the page missed of the runs it knew comes before `ready`.
  assert.ok(again.seen.some(isEnd(a.id)), "a's end before ready");
  // No run the page knew is announced again; the new ones are.
  const announced = again.seen.flatMap((m) => m.event === "run" ? [m.data.card.id] : []);
  assert.deepEqual(announced.sort(), [b.id, c.id].sort());
  // a: the events after the cut, so that before + after is every event once.
  const all = await w.engine.events(a.id);
  assert.deepEqual([...gotBefore, ...eventsOf(again.seen, a.id)], all);
  // c, new and live: from its first event.
  const cEvents = eventsOf(again.seen, c.id);
  assert.equal(cEvents[0]?.type, "run.started");

  // A second reconnect from the last message of the second connection repeats nothing.
  await w.release("c1");
  await again.until(isEnd(c.id), "c's end");
  await c.done;
  const cut2 = again.seen.at(-1)!.id;
  await again.close();
  await using third = await connect(w, { "last-event-id": cut2 });
  await third.until((m) => m.event === "ready", "ready");
  assert.deepEqual(third.seen.filter((m) => m.event === "run" || m.event === "event"), []);
});

Deno.test("a resume in the query (?after=) works like Last-Event-ID; a bad cursor starts afresh", async () => {
  await using w = await dashWorld();
  const done = await w.run("A question");
  const first = await connect(w);
  await first.until((m) => m.event === "ready", "ready");
  const cut = first.seen.at(-1)!.id;
  await first.close();
  const later = await w.run("Another question");
  await using resumed = new SseReader(
    await w.get(`/api/stream?after=${encodeURIComponent(cut)}`),
  );
  await resumed.until((m) => m.event === "ready", "ready");
  assert.deepEqual(
    resumed.seen.flatMap((m) => m.event === "run" ? [m.data.card.id] : []),
    [later.id],
  );
  await using fresh = await connect(w, { "last-event-id": "1.zz.not-a-run=5" });
  const hello = await fresh.next();
  assert.ok(hello.event === "hello" && !hello.data.resumed);
  await fresh.until((m) => m.event === "ready", "ready");
  assert.deepEqual(
    fresh.seen.flatMap((m) => m.event === "run" ? [m.data.card.id] : []).sort(),
    [done.id, later.id].sort(),
  );
});

Deno.test("stopping the app ends its open streams", async () => {
  const stop = new AbortController();
  await using w = await dashWorld({ signal: stop.signal });
  await using stream = await connect(w);
  await stream.until((m) => m.event === "ready", "ready");
  stop.abort();
  await assert.rejects(stream.next(), /the stream ended/);
});

Deno.test("cursors: encoded and decoded; anything else is not a cursor", () => {
  const cursor = {
    time: 1796129030746,
    runs: new Map([["20261201-101010-abcd", 12345], ["20261201-101011-0f0f", ENDED]]),
  };
  const text = encodeCursor(cursor);
  assert.doesNotMatch(text, /[\r\n\0]/);
  assert.deepEqual(decodeCursor(text), cursor);
  assert.deepEqual(decodeCursor(encodeCursor({ time: 5, runs: new Map() })), {
    time: 5,
    runs: new Map(),
  });
  for (
    const bad of [
      "",
      null,
      undefined,
      "2.abc.",
      "1..",
      "1.abc.x=1",
      "1.abc.20261201-101010-abcd",
      "1.abc.20261201-101010-abcd=-4",
      "1.abc.20261201-101010-abcd=1,",
      "1.abc.../../etc=1",
      `1.abc.${"20261201-101010-abcd=1,".repeat(4000)}`,
    ]
  ) {
    assert.equal(decodeCursor(bad), null, String(bad));
  }
});
