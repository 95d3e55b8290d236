/**
 * Splitting one file's changes by its versions and the worker's call windows (pure): the user's
 * edit before the worker's, after it, between two of its edits, a change too close to a call's
 * edge to tell (never given to the worker), a change the watch missed, and what a versions file
 * says about which histories are complete.
 */
import assert from "node:assert/strict";
import {
  type FileEntry,
  historyOf,
  ownerOf,
  parseVersions,
  splitFile,
  type Version,
} from "../../src/engine/tree/file_history.ts";
import { changingCalls, windowsFor } from "../../src/engine/tree/attribute.ts";
import { event, type PitroomEvent, type WorkerEvent } from "../../src/events/mod.ts";
import { claudeBackend } from "../../src/workers/claude/mod.ts";
import { readAt } from "../support/line_time.ts";

const e = (blob: string): FileEntry => ({ mode: "100644", blob });
const v = (blob: string | null, lo: number, hi = lo): Version => ({
  entry: blob === null ? null : e(blob),
  lo,
  hi,
});
const window = (from: number, to: number) => ({ from, to });
/** `splitFile` of a file from `before` to `after`, seen as `versions`, the worker's `windows`. */
const splitOf = (
  before: FileEntry | null,
  after: FileEntry | null,
  versions: Version[],
  windows: { from: number; to: number }[],
  tail = { lo: 0, hi: 0 },
) => splitFile({ before, after }, { versions, windows, tail });

Deno.test("ownerOf() gives a change inside a window to the worker, one outside to the user, one across an edge to neither", () => {
  const windows = [window(100, 200)];
  assert.equal(ownerOf({ lo: 120, hi: 130 }, windows), "worker");
  assert.equal(ownerOf({ lo: 10, hi: 20 }, windows), "user");
  assert.equal(ownerOf({ lo: 250, hi: 260 }, windows), "user");
  assert.equal(ownerOf({ lo: 90, hi: 110 }, windows), "unsure");
  assert.equal(ownerOf({ lo: 190, hi: 210 }, windows), "unsure");
});

Deno.test("splitFile(): the user's edit before the worker's edit makes a shared file, one segment from the user's version", () => {
  const result = splitOf(e("B"), e("W"), [v("U", 10), v("W", 150)], [window(140, 160)], {
    lo: 0,
    hi: 0,
  });
  assert.equal(result.kind, "shared");
  assert.deepEqual(result.segments, [{ before: e("U"), after: e("W") }]);
});

Deno.test("splitFile(): the worker's two edits around the user's make two segments; one alone is the worker's", () => {
  const windows = [window(100, 110), window(300, 310)];
  const result = splitOf(e("B"), e("W2"), [v("W1", 105), v("U", 200), v("W2", 305)], windows, {
    lo: 0,
    hi: 0,
  });
  assert.equal(result.kind, "shared");
  assert.deepEqual(result.segments, [
    { before: e("B"), after: e("W1") },
    { before: e("U"), after: e("W2") },
  ]);
  const only = splitOf(e("B"), e("W1"), [v("W1", 105)], windows, { lo: 0, hi: 0 });
  assert.deepEqual(only, { kind: "worker", segments: [{ before: e("B"), after: e("W1") }] });
  const mine = splitOf(e("B"), null, [v(null, 200)], windows, { lo: 0, hi: 0 });
  assert.equal(mine.kind, "user");
});

Deno.test("splitFile(): consecutive changes of the worker (a format after an edit) make one segment", () => {
  const result = splitOf(e("B"), e("F"), [v("U", 10), v("W", 105), v("F", 108)], [
    window(100, 110),
  ], { lo: 0, hi: 0 });
  assert.deepEqual(result.segments, [{ before: e("U"), after: e("F") }]);
});

Deno.test("splitFile(): a change across a window's edge, or a missed one, is unsure, never the worker's alone", () => {
  // The user's edit and the worker's read as one version: its span starts before the call.
  const across = splitOf(e("B"), e("UW"), [v("UW", 90, 105)], [window(100, 110)], {
    lo: 0,
    hi: 0,
  });
  assert.equal(across.kind, "unsure");
  // The watch saw the user's version, not the worker's: the last change spans both.
  const missed = splitOf(e("B"), e("W"), [v("U", 10)], [window(100, 110)], { lo: 10, hi: 105 });
  assert.equal(missed.kind, "unsure");
  assert.deepEqual(missed.segments, [{ before: e("U"), after: e("W") }]);
  // A change the watch did not see (it died with a lost run's supervisor) that ended after every
  // window is not the worker's, whatever came before it unseen.
  const after = splitOf(e("B"), e("U"), [v("W", 105)], [window(100, 110)], { lo: 105, hi: 500 });
  assert.equal(after.kind, "shared");
  assert.deepEqual(after.segments, [{ before: e("B"), after: e("W") }]);
});

Deno.test("windowsFor(): an edit's window runs from its start to its end, a command's from its start to the last activity", () => {
  const events: PitroomEvent[] = [
    event("worker.step", 1_000, {}),
    event("worker.tool_call", 2_000, {
      tool: "edit",
      kind: "edit",
      target: "src/a.ts",
      status: "ok",
      started: 1_500,
      ended: 1_600,
    }),
    event("worker.tool_call", 3_000, {
      tool: "write",
      kind: "write",
      target: "b.ts",
      status: "ok",
    }),
    event("worker.tool_call", 4_000, {
      tool: "bash",
      kind: "shell",
      target: "npm test",
      status: "ok",
    }),
  ];
  const calls = changingCalls(events);
  const options = { roots: ["/r"], cwd: "", until: 9_000 };
  assert.deepEqual(windowsFor("src/a.ts", calls, options), [
    window(1_480, 1_620),
    window(2_980, 9_020),
  ]);
  // Without a start, the call's window opens at the worker's event before it.
  assert.deepEqual(windowsFor("b.ts", calls, options)[0], window(1_980, 3_020));
});

const T0 = Date.parse("2026-12-05T09:56:00.000Z");

/**
 * The claude run of the issue, as a busy host read it (ms after `T0`): a Read, then a Read and an
 * Edit of src/app.ts in one model call. The second call's lines (both tool uses and both results)
 * reached Pitroom in one chunk at 623, after the Edit wrote the file at 575; the read before that
 * chunk was asked for at 451. claude stamped each line as it made it.
 */
function lateClaudeRun(): WorkerEvent[] {
  const iso = (ms: number) => new Date(T0 + ms).toISOString();
  const use = (msg: string, id: string, name: string, ms: number) =>
    JSON.stringify({
      type: "assistant",
      message: {
        id: msg,
        content: [{ type: "tool_use", id, name, input: { file_path: "/repo/src/app.ts" } }],
      },
      timestamp: iso(ms),
    });
  const result = (id: string, ms: number) =>
    JSON.stringify({
      type: "user",
      message: { content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] },
      timestamp: iso(ms),
    });
  const lines: [string, number, number][] = [
    [JSON.stringify({ type: "system", subtype: "init", cwd: "/repo", session_id: "s" }), 300, 0],
    [use("m1", "r1", "Read", 340), 352, 300],
    [result("r1", 440), 451, 352],
    [use("m2", "r2", "Read", 540), 622, 451],
    [use("m2", "e1", "Edit", 560), 623, 451],
    [result("r2", 570), 623, 451],
    [result("e1", 590), 623, 451],
    [JSON.stringify({ type: "result", result: "Done", usage: {} }), 642, 623],
  ];
  const state = claudeBackend.newState();
  return lines.flatMap(([line, time, since]) =>
    claudeBackend.parse(line, state, readAt(T0 + time, T0 + since, T0))
  );
}

Deno.test("the issue's race: an Edit read late, after it wrote its file, is the worker's; the user's edit before it stays the user's", () => {
  const calls = changingCalls(lateClaudeRun());
  const windows = windowsFor("src/app.ts", calls, { roots: ["/repo"], cwd: "", until: T0 + 642 });
  // The worker's write (the file's change time) came before either of its lines was read.
  const theirs = v("W", T0 + 575);
  assert.equal(ownerOf(theirs, windows), "worker");
  // In a dirty tree: the file was the user's before the run, the Edit its only change.
  assert.deepEqual(splitOf(e("DIRTY"), e("W"), [theirs], windows), {
    kind: "worker",
    segments: [{ before: e("DIRTY"), after: e("W") }],
  });
  // The user's edit well before the Edit's window (while claude ran its first Read) stays theirs.
  const mine = v("U", T0 + 400);
  assert.equal(ownerOf(mine, windows), "user");
  assert.deepEqual(splitOf(e("B"), e("W"), [mine, theirs], windows), {
    kind: "shared",
    segments: [{ before: e("U"), after: e("W") }],
  });
});

Deno.test("parseVersions() and historyOf(): watched folders only, and nothing after the watch broke", () => {
  const text = [
    JSON.stringify({ t: "dirs", at: 1, d: ["", "src"] }),
    JSON.stringify({ t: "dirs", at: 5, d: ["made"], r: true }),
    JSON.stringify({ t: "v", p: "src/a.ts", b: "U", m: "100644", lo: 10, hi: 10 }),
    JSON.stringify({ t: "lost", at: 20, p: "big.bin", why: "too large to keep" }),
    '{"t":"v","p":"torn',
  ].join("\n");
  const h = parseVersions(text);
  assert.deepEqual(historyOf(h, "src/a.ts"), [v("U", 10)]);
  assert.deepEqual(historyOf(h, "top.txt"), []);
  assert.deepEqual(historyOf(h, "made/deep/x.txt"), []);
  assert.equal(historyOf(h, "lib/b.ts"), null);
  assert.equal(historyOf(h, "big.bin"), null);
  const broken = parseVersions(
    text + "\n" + JSON.stringify({ t: "lost", at: 30, why: "overflow" }),
  );
  assert.equal(historyOf(broken, "src/a.ts"), null);
});
