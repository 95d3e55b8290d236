/**
 * A finished run's record that changes after its end reaches every live reader through the feed:
 * an apply, a revert and a discard of an isolate run, a revert of a write run, and the audit of a
 * read answer are each a `run.changed` event for a subscription that follows the run (or every
 * live run), with no polling and nothing reloaded. The change journal they come through keeps a
 * torn line from being fatal, loses no line across its rotation, and replays what a resuming
 * reader missed.
 */
import assert from "node:assert/strict";
import type { EventOf } from "../../src/events/mod.ts";
import { event } from "../../src/events/mod.ts";
import type { FeedEvent } from "../../src/engine/mod.ts";
import { ChangeTail } from "../../src/engine/follow/feed_changes.ts";
import { appendChange, journalFile, journalFiles } from "../../src/store/changes.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { engineWorld } from "../support/engine_world.ts";
import { tempDir, tempRepo, waitFor } from "../support/temp.ts";

type Changed = EventOf<"run.changed">;

function steps(spec: RunSpec): FakeStep[] {
  if (spec.prompt.includes("You are auditing an answer")) {
    return [{ answer: "Checked.\n\nAUDIT: AGREE\nDISPUTED:\n- none" }];
  }
  const edit = /\[edit:([\w.]+)\]/.exec(spec.prompt)?.[1];
  if (edit !== undefined) {
    return [{ writeFile: edit, content: "worker\n" }, { answer: `Changed ${edit}.` }];
  }
  return [{ tool: "read", target: "a.txt" }, { answer: "It says one, in a.txt:1." }];
}

async function world() {
  return await engineWorld(await tempRepo({ "a.txt": "one\n" }), steps);
}

/** The `run.changed` events among `seen`, as `by/work` of `run`. */
function changesOf(seen: FeedEvent[], run: string): string[] {
  return seen.flatMap(({ run: r, event }) =>
    r === run && event.type === "run.changed" ? [`${event.by}/${event.work ?? "-"}`] : []
  );
}

async function until(seen: FeedEvent[], run: string, want: string, what: string) {
  await waitFor(() => changesOf(seen, run).includes(want), { timeoutMs: 10_000, what });
}

Deno.test("apply, revert and discard of finished runs are seen by live subscriptions", async () => {
  await using w = await world();
  const run = (mode: "isolate" | "write", file: string) =>
    w.engine.run({ task: `Change a file [edit:${file}]`, mode, worker: "opencode" });
  const isolate = await run("isolate", "b.txt");
  const other = await run("isolate", "c.txt");
  const write = await run("write", "d.txt");
  assert.deepEqual([isolate.state, other.state, write.state], ["done", "done", "done"]);

  const byId: FeedEvent[] = [];
  const live: FeedEvent[] = [];
  await using one = w.engine.subscribe({ runs: [isolate.id, write.id] }, (ev) => byId.push(ev));
  await using every = w.engine.subscribe({ live: true }, (ev) => live.push(ev));
  await Promise.all([one.ready, every.ready]);
  await one.ended;
  // Nothing changed yet: the replay has the runs' own events only.
  assert.deepEqual(changesOf(byId, isolate.id), []);

  await w.engine.apply(isolate.id);
  await until(byId, isolate.id, "apply/applied", "the apply, by id");
  await until(live, isolate.id, "apply/applied", "the apply, live");
  await w.engine.revert(isolate.id);
  await until(byId, isolate.id, "revert/reverted", "the revert, by id");
  await until(live, isolate.id, "revert/reverted", "the revert, live");
  await w.engine.revert(write.id);
  await until(byId, write.id, "revert/reverted", "the write run's revert");
  // A run the subscription does not follow is not its news; a live one hears of every run.
  await w.engine.discard(other.id);
  await until(live, other.id, "discard/discarded", "the discard, live");
  assert.deepEqual(changesOf(byId, other.id), []);
  // Each change is new (not replayed), and every one the records say.
  for (const ev of [...byId, ...live]) {
    if (ev.event.type === "run.changed") assert.equal(ev.replay, false);
  }
  assert.equal((await w.engine.get(isolate.id)).changes?.reverted, true);
});

Deno.test("an audit of a finished answer is seen by a subscription to the answer", async () => {
  await using w = await world();
  const read = await w.engine.run({ task: "What does a.txt say?", worker: "opencode" });
  const seen: FeedEvent[] = [];
  await using feed = w.engine.subscribe({ runs: [read.id] }, (ev) => seen.push(ev));
  await feed.ready;
  await w.engine.audit({ run: read.id, worker: "codex" });
  // Started (its card says an audit runs), then its verdict.
  await until(seen, read.id, "audit/-", "the audit");
  await waitFor(async () => (await w.engine.get(read.id)).audit?.verdict === "AGREE", {
    timeoutMs: 10_000,
    what: "the verdict on the record",
  });
  await waitFor(() => changesOf(seen, read.id).length >= 2, {
    timeoutMs: 10_000,
    what: "the verdict's change",
  });
});

Deno.test("a journal wiped under a live subscription is followed again", async () => {
  await using w = await world();
  const run = (file: string) =>
    w.engine.run({ task: `Change a file [edit:${file}]`, mode: "isolate", worker: "opencode" });
  const first = await run("b.txt");
  const second = await run("c.txt");
  const seen: FeedEvent[] = [];
  await using feed = w.engine.subscribe({ runs: [first.id, second.id] }, (ev) => seen.push(ev));
  await feed.ready;
  await w.engine.discard(first.id);
  await until(seen, first.id, "discard/discarded", "the first change");
  await Deno.remove(w.paths.changes.dir, { recursive: true });
  await w.engine.discard(second.id);
  await until(seen, second.id, "discard/discarded", "a change after the wipe");
});

function change(run: string, time: number): Changed {
  return event("run.changed", time, { run, by: "apply", work: "applied" });
}

Deno.test("the change journal: a torn line is skipped, a new file loses no line, a resume gets what it missed", async () => {
  await using state = await tempDir("pitroom-state-");
  const paths = statePaths(state.path);
  const id = (n: number) => `20260101-000000-${n.toString(16).padStart(4, "0")}`;
  const runs = (changes: Changed[]) => changes.map((c) => c.run);
  await appendChange(paths, change(id(0), 1_000));
  const tail = new ChangeTail(paths);
  // Opened at its end: what was there before, the records say.
  assert.deepEqual(await tail.open(), []);

  // A writer killed in the middle of its line: the next line starts on its own.
  await Deno.writeTextFile(journalFile(paths, 1), `{"type":"run.changed","time":2000,"ru`, {
    append: true,
  });
  assert.deepEqual(await tail.read(), []);
  // A line that names no run (a path, say) is not a change either.
  await appendChange(paths, change("../../elsewhere", 2_500));
  await appendChange(paths, change(id(1), 3_000));
  assert.deepEqual(runs(await tail.read()), [id(1)]);
  assert.match(await Deno.readTextFile(journalFile(paths, 1)), /"ru\n\{"type"/);

  // New files begin (a small limit): every line once, in order, read between or not; two new
  // files between two reads included.
  const small = { maxBytes: 300 };
  const got: string[] = [];
  const want: string[] = [];
  for (let n = 2; n < 30; n++) {
    await appendChange(paths, change(id(n), 1_000 * (n + 2)), small);
    want.push(id(n));
    if (n % 3 === 0) got.push(...runs(await tail.read()));
    if (n === 20) {
      for (const k of [100, 101]) {
        await appendChange(paths, change(id(k), 1_000 * (n + 2)), { maxBytes: 0 });
        want.push(id(k));
      }
    }
  }
  got.push(...runs(await tail.read()));
  assert.deepEqual(got, want);
  // Two files at most are kept.
  assert.ok((await journalFiles(paths)).length <= 2);

  // Writers at once (each append holds the journal's lock): every line whole, once.
  const many = Array.from({ length: 60 }, (_, i) => id(200 + i));
  await Promise.all(many.map((run, i) => appendChange(paths, change(run, 50_000 + i))));
  assert.deepEqual(runs(await tail.read()).sort(), many);
  tail.close();

  // A reader that resumes gets the changes since a time that the journal still holds.
  const resumed = new ChangeTail(paths);
  // (The writers at once took the lock in any order.)
  assert.deepEqual(runs(await resumed.open(50_000 + 58)).sort(), [id(258), id(259)]);
  await appendChange(paths, change(id(30), 60_000));
  assert.deepEqual(runs(await resumed.read()), [id(30)]);
  resumed.close();
});

Deno.test("the change journal's reader reads every time into one buffer of its own", async () => {
  await using dir = await tempDir();
  const paths = statePaths(dir.path);
  const tail = new ChangeTail(paths);
  await tail.open();
  // The reads of the reader, not of the writer.
  let reading = false;
  const seen: ArrayBufferLike[] = [];
  const read = Deno.FsFile.prototype.read;
  Deno.FsFile.prototype.read = function (this: Deno.FsFile, p: Uint8Array) {
    if (reading) seen.push(p.buffer);
    return read.call(this, p);
  };
  try {
    for (let i = 0; i < 10; i++) {
      const run = `20260101-000000-${i.toString(16).padStart(4, "0")}`;
      await appendChange(paths, change(run, 1_000 + i));
      reading = true;
      assert.equal((await tail.read()).length, 1);
      reading = false;
    }
  } finally {
    Deno.FsFile.prototype.read = read;
    tail.close();
  }
  assert.ok(seen.length >= 10, `${seen.length} reads`);
  assert.equal(new Set(seen).size, 1, "one buffer for every read of the journal");
});
