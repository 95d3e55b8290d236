/**
 * The front door, used the way the MCP server and the dashboard will: only `createEngine`. A
 * read run and a slow run of the real codex CLI against the scripted model, started in the
 * background (the state dir's host runs them), one subscription over both, the slow one stopped
 * from this same process (which lives on), a wait for both, both reports and the first's events.
 */
import assert from "node:assert/strict";
import { createEngine, type FeedEvent, schemas } from "../../src/engine/mod.ts";
import { realSys } from "../../src/sys/real.ts";
import type { Sys } from "../../src/sys/mod.ts";
import { moduleCacheEnv, pitroomArgv } from "../support/pitroom.ts";
import { waitFor } from "../support/temp.ts";
import { world } from "../e2e/_world.ts";

function sysFor(env: Record<string, string>, cwd: string): Sys {
  const all: Record<string, string> = {
    ...moduleCacheEnv(),
    PATH: Deno.env.get("PATH") ?? "",
    ...env,
  };
  return {
    ...realSys(),
    env: { get: (name) => all[name], toObject: () => ({ ...all }) },
    stateDir: all.PITROOM_STATE_DIR!,
    configPath: all.PITROOM_CONFIG!,
    cwd: () => cwd,
    // This process is a test runner: the host is the real program.
    selfCommand: pitroomArgv,
  };
}

Deno.test("createEngine(): start two runs, subscribe, stop one from here, wait, read reports and events", async () => {
  await using w = await world({
    read: { turns: [{ read: "src/app.ts" }, { answer: "It is 41, in src/app.ts:1." }] },
    hang: { turns: [{ hang: true }] },
  });
  const engine = createEngine(sysFor(w.env, w.repo));
  const read = await engine.start({
    task: "Where is the answer defined?",
    worker: "codex",
    model: "fake/read",
  });
  const slow = await engine.start({
    task: "Take your time",
    worker: "codex",
    model: "fake/hang",
  });
  assert.notEqual(read.id, slow.id);

  const seen: FeedEvent[] = [];
  await using feed = engine.subscribe({ runs: [read.id, slow.id] }, (ev) => seen.push(ev));
  await feed.ready;
  await waitFor(async () => (await engine.get(slow.id)).attempts[0]?.workerPid !== undefined, {
    timeoutMs: 60_000,
    what: "the slow run's worker to start",
  });

  // A wait can be given up without touching the runs.
  const giveUp = new AbortController();
  const waiting = engine.wait({ runs: [slow.id] }, { signal: giveUp.signal });
  giveUp.abort(new Error("not any more"));
  await assert.rejects(waiting, /not any more/);

  const [stopped] = await engine.stop({ runs: [slow.id] });
  assert.equal(stopped?.outcome, "stopped");

  const ended = await engine.wait({ runs: [read.id, slow.id] }, { timeoutMs: 120_000 });
  assert.deepEqual(ended.map((r) => r.id), [read.id, slow.id]);

  const first = await engine.report(read.id);
  assert.equal(first.outcome, "ok", first.message);
  assert.match(first.answer ?? "", /src\/app\.ts:1/);
  assert.equal((await schemas()).runReportSchema().safeParse(first).success, true);
  const second = await engine.report(slow.id);
  assert.equal(second.outcome, "stopped");
  assert.equal((await schemas()).runReportSchema().safeParse(second).success, true);

  const events = await engine.events(read.id);
  assert.equal(events[0]?.type, "run.started");
  assert.equal(events.at(-1)?.type, "run.finished");
  assert.deepEqual((await engine.events(read.id, { since: events.length - 1 })).length, 1);
  await waitFor(
    () =>
      [read.id, slow.id].every((id) =>
        seen.some((s) => s.run === id && s.event.type === "run.finished")
      ),
    { timeoutMs: 10_000, what: "the subscription to see both runs end" },
  );
  // A client that reconnects resumes after the last event it saw, by byte offset.
  const firstTwo = seen.filter((s) => s.run === read.id).slice(0, 2);
  const resumed: string[] = [];
  await using again = engine.subscribe({ runs: [read.id] }, (ev) => resumed.push(ev.event.type), {
    fromOffsets: { [read.id]: firstTwo[1]!.offset },
  });
  await again.ended;
  assert.deepEqual(resumed, events.slice(2).map((e) => e.type));
});

Deno.test("createEngine(): stop ends this process's own foreground run without signalling itself", async () => {
  await using w = await world({ hang: { turns: [{ hang: true }] } });
  const engine = createEngine(sysFor(w.env, w.repo));
  const running = engine.run({ task: "Take your time", worker: "codex", model: "fake/hang" });
  let id: string | undefined;
  await waitFor(async () => {
    id = (await engine.list({ recent: 1 })).at(-1)?.id;
    return id !== undefined && (await engine.get(id)).attempts[0]?.workerPid !== undefined;
  }, { timeoutMs: 60_000, what: "the foreground run's worker to start" });
  const [stopped] = await engine.stop({ runs: [id!] });
  assert.equal(stopped?.outcome, "stopped");
  assert.equal((await running).outcome, "stopped");
});
