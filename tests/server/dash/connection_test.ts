/**
 * A stream connection against a scripted engine, for the races a real one rarely shows: a run
 * that the live feed had not joined yet when the connection listed the runs is followed by id,
 * and when the live feed brings it too, each event still reaches the page once; a run the feed
 * says stalled gets a new card saying so, which its next event clears.
 */
import assert from "node:assert/strict";
import type { Engine, FeedEvent, RunReport, Stall, Subscription } from "../../../src/engine/mod.ts";
import { Connection, type Message } from "../../../src/server/dash/stream.ts";
import { cardOf } from "../../../src/server/dash/card.ts";
import { createDashboardApp } from "../../../src/server/dash/app.ts";
import { enter, passHeaders, testDoor } from "./_world.ts";

const ID = "20261201-120000-abcd";

function record(state: RunReport["state"]): RunReport {
  return {
    schemaVersion: 1,
    id: ID,
    state,
    mode: "read",
    task: "Race me",
    cwd: "/tmp",
    chain: [{ worker: "opencode" }],
    web: false,
    timeoutMs: 1000,
    createdAt: 1,
    attempts: [],
    progress: { steps: 0, tools: 0, tokens: { input: 0, output: 0, cached: 0, reasoning: 0 } },
  };
}

interface Scripted {
  selector: unknown;
  onEvent: (ev: FeedEvent) => void;
  onRun?: (r: RunReport) => void;
  onStall?: (run: string, stall: Stall, record: RunReport) => void;
}

function scriptedEngine() {
  const subs: Scripted[] = [];
  const engine = {
    peek: () => Promise.resolve(record("running")),
    get: () => Promise.resolve(record("running")),
    list: () => Promise.resolve([record("running")]),
    subscribe(
      selector: unknown,
      onEvent: (ev: FeedEvent) => void,
      options: Omit<Scripted, "selector" | "onEvent"> = {},
    ): Subscription {
      subs.push({ selector, onEvent, ...options });
      const close = () => Promise.resolve();
      return {
        ready: Promise.resolve(),
        ended: new Promise(() => {}),
        runs: () => [],
        close,
        [Symbol.asyncDispose]: close,
      };
    },
  };
  return { engine: engine as unknown as Engine, subs };
}

function step(offset: number): FeedEvent {
  return { run: ID, event: { type: "worker.step", time: offset }, replay: false, offset };
}

async function take(it: AsyncGenerator<Message>, n: number): Promise<Message[]> {
  const out: Message[] = [];
  while (out.length < n) out.push((await it.next()).value as Message);
  return out;
}

Deno.test("a run that raced the live feed is followed by id, and its events reach the page once", async () => {
  const { engine, subs } = scriptedEngine();
  const connection = new Connection(engine, { cursor: null, recent: 10, now: () => 1000 });
  const messages = connection.messages();
  await connection.open();
  const [live, byId] = subs;
  assert.deepEqual(live?.selector, { live: true });
  assert.deepEqual(byId?.selector, { runs: [ID] });
  const start = await take(messages, 3);
  assert.deepEqual(start.map((m) => m.event), ["hello", "run", "ready"]);

  byId!.onEvent(step(10));
  byId!.onEvent(step(20));
  // The live feed joins the run late and reads it from its start.
  live!.onRun?.(record("running"));
  live!.onEvent(step(10));
  live!.onEvent(step(20));
  live!.onEvent(step(30));
  byId!.onEvent(step(30));
  const finished: FeedEvent = {
    run: ID,
    event: {
      type: "run.finished",
      time: 40,
      run: ID,
      state: "done",
      outcome: "ok",
      exit: 0,
    },
    replay: false,
    offset: 40,
  };
  live!.onEvent(finished);
  byId!.onEvent(finished);
  const events = await take(messages, 4);
  assert.deepEqual(events.map((m) => m.event), ["event", "event", "event", "event"]);
  assert.deepEqual(
    events.map((m) => JSON.parse(m.data).event.time),
    [10, 20, 30, 40],
  );
  assert.equal(JSON.parse(events[2]!.data).card.steps, 3);
  await connection.close();
  assert.equal((await messages.next()).done, true);
});

Deno.test("a stream whose start fails says so in an `error` event and ends", async () => {
  const { engine } = scriptedEngine();
  const failing = Object.assign(Object.create(engine), {
    list: () => Promise.reject(new Error("the runs folder is unreadable")),
  }) as Engine;
  const door = testDoor();
  const app = createDashboardApp(failing, { door, port: 7878 });
  const pass = await enter(app, door);
  const res = await app.request("/api/stream", {
    headers: { host: "127.0.0.1:7878", ...passHeaders(pass) },
  });
  const text = await res.text();
  assert.match(text, /^event: hello$/m);
  assert.match(text, /^event: error\ndata: the runs folder is unreadable$/m);
  assert.doesNotMatch(text, /^event: ready$/m);
});

Deno.test("a run the feed says stalled gets a card saying so; its next event clears it", async () => {
  const { engine, subs } = scriptedEngine();
  const connection = new Connection(engine, { cursor: null, recent: 10, now: () => 1000 });
  const messages = connection.messages();
  await connection.open();
  await take(messages, 3);
  const live = subs.find((s) => "live" in (s.selector as object))!;
  const stall = { since: 0, quietMs: 600_000, text: "stalled (no event for 10m)" };
  assert.ok(live.onStall, "the connection asks the live feed for stalls");
  live.onStall(ID, stall, record("running"));
  const [told] = await take(messages, 1);
  assert.equal(told?.event, "run");
  const card = JSON.parse(told!.data).card;
  assert.equal(card.state, "running");
  assert.equal(card.stalled, "stalled (no event for 10m)");
  live.onEvent(step(10));
  const [moved] = await take(messages, 1);
  assert.equal(moved?.event, "event");
  assert.equal(JSON.parse(moved!.data).card.stalled, undefined);
  await connection.close();
});

Deno.test("cardOf() reads a stall off the record at the time asked", () => {
  const silent = {
    ...record("running"),
    attempts: [{ worker: "opencode" as const, startedAt: 1 }],
  };
  assert.equal(cardOf(silent, 1 + 599_999).stalled, undefined);
  assert.equal(cardOf(silent, 1 + 600_000).stalled, "stalled (no event for 10m)");
  assert.equal(cardOf({ ...silent, state: "done" }, 1 + 900_000).stalled, undefined);
});
