/**
 * The live progress of `wait` and `watch` on a terminal: the line's words (pure), and the real
 * CLI given a terminal (`script -qfec`): `wait` redraws one line in place while the runs go on and
 * erases it before the reports, `watch`'s table ends with the total; piped, both print what they
 * always did (nothing on stderr, no escape sequence).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunView } from "../../src/engine/mod.ts";
import { progressLine } from "../../src/cli/progress_line.ts";
import { crewWorld, fakePitroomArgv, task } from "../crew/_world.ts";
import { moduleCacheEnv } from "../support/pitroom.ts";
import { waitFor } from "../support/temp.ts";

const T0 = Date.UTC(2026, 11, 5, 9, 0, 0);

/** What redraws a line: carriage return, erase to its end. */
const ERASE = "\r\x1b[K";

/** True when `text` holds no escape character and no carriage return. */
function inert(text: string): boolean {
  return !text.includes("\x1b") && !text.includes("\r");
}

function view(over: Partial<RunView>): RunView {
  return {
    id: "20261205-090000-aaaa",
    task: "t",
    mode: "read",
    worker: "opencode",
    phase: "running",
    steps: 0,
    tools: 0,
    tokens: { input: 0, output: 0, cached: 0, reasoning: 0 },
    fallbacks: [],
    announced: true,
    ...over,
  };
}

const done = { event: "done" } as NonNullable<RunView["end"]>;
const failed = { event: "problem" } as NonNullable<RunView["end"]>;

Deno.test("progressLine() counts a crew: done of all, failed, running, queued, tokens, time since the first start", () => {
  const views = [
    view({
      end: done,
      startedAt: T0,
      tokens: { input: 9_000, output: 1_000, cached: 0, reasoning: 0 },
    }),
    view({ end: done, startedAt: T0 + 1000 }),
    view({ end: failed, startedAt: T0 + 2000 }),
    view({ startedAt: T0 + 3000, tokens: { input: 2_000, output: 300, cached: 50, reasoning: 0 } }),
    view({ startedAt: T0 + 3000 }),
    ...Array.from({ length: 5 }, () => view({ phase: "queued" })),
  ];
  assert.equal(
    progressLine(views, T0 + 64_000, T0 + 10_000),
    "3/10 done · 1 failed · 2 running · 5 queued · 12.3k tokens · 1m04s",
  );
  // Nothing started yet: the time since the wait began, no tokens.
  assert.equal(
    progressLine([view({ phase: "queued" }), view({ phase: "queued" })], T0 + 5_000, T0),
    "0/2 done · 2 queued · 5s",
  );
});

Deno.test("progressLine() of one run says its steps and what it does now", () => {
  const one = view({
    startedAt: T0,
    steps: 4,
    last: "read src/a.ts",
    tokens: { input: 1_000, output: 200, cached: 0, reasoning: 0 },
  });
  assert.equal(
    progressLine([one], T0 + 12_000, T0),
    "running · 4 steps · read src/a.ts · 1.2k tokens · 12s",
  );
  assert.equal(
    progressLine([view({ ...one, end: done })], T0 + 12_000, T0),
    "done · 4 steps · 1.2k tokens · 12s",
  );
});

Deno.test("progressLine() fits 79 columns and shows a worker's control characters inert", () => {
  const line = progressLine(
    [view({ startedAt: T0, steps: 1, last: `read ${"x".repeat(200)}\x1b[2J` })],
    T0 + 1000,
    T0,
  );
  assert.ok([...line].length <= 79, line);
  assert.ok(line.endsWith("…"), line);
  const hostile = progressLine([view({ startedAt: T0, steps: 1, last: "read a\x1b[2Jb" })], T0, T0);
  assert.equal(hostile.includes("\x1b"), false, hostile);
});

/** Runs pitroom on a terminal (`script`): what the terminal showed, and the exit code. */
async function onTerminal(
  w: Awaited<ReturnType<typeof crewWorld>>,
  args: string[],
  until?: { shows: RegExp; then: () => Promise<void> },
): Promise<{ code: number; shown: string }> {
  const quoted = [...fakePitroomArgv(), ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`);
  const child = new Deno.Command("script", {
    args: ["-qfec", quoted.join(" "), "/dev/null"],
    cwd: w.dir,
    env: { ...moduleCacheEnv(), ...w.env, TERM: "dumb" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let shown = "";
  let closed = false;
  const reading = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) shown += chunk;
    closed = true;
  })();
  try {
    if (until) {
      // A bound for a loaded machine; a terminal closed without showing it fails at once.
      await waitFor(() => until.shows.test(shown) || closed, {
        timeoutMs: 90_000,
        what: `${until.shows}`,
      });
      if (!until.shows.test(shown)) {
        throw new Error(`the terminal closed without showing ${until.shows}`);
      }
      await until.then();
    }
  } catch (error) {
    // Nothing is left running by a failed test: the runs are let go, the terminal closed.
    await until?.then();
    try {
      child.kill("SIGKILL");
    } catch {
      // It ended already.
    }
    await Promise.all([child.status, reading]);
    throw new Error(`${error}; the terminal showed ${JSON.stringify(shown)}`);
  }
  const status = await child.status;
  await reading;
  return { code: status.code, shown };
}

Deno.test("wait on a terminal: one line redrawn in place while the runs go on, gone before the reports", async () => {
  await using w = await crewWorld();
  const gate = join(w.dir, "go");
  const crew = await w.run([
    "crew",
    "--json",
    task("One", [{ tool: "read", target: "a.ts" }, { answer: "one" }]),
    task("Two", [{ tool: "read", target: "b.ts" }, { waitFile: gate }, { answer: "two" }]),
  ]);
  assert.equal(crew.code, 0, crew.stderr);
  const { group } = JSON.parse(crew.stdout);
  const { code, shown } = await onTerminal(w, ["wait", "-g", group, "--brief"], {
    // deno-lint-ignore no-control-regex -- the line's own redraw is what is looked for
    shows: /\r\x1b\[K1\/2 done · 1 running · .*\d+s/,
    then: () => Deno.writeTextFile(gate, ""),
  });
  assert.equal(code, 0, shown);
  // The line is erased, then the reports come (one per run).
  const erased = shown.lastIndexOf(ERASE);
  const reports = shown.slice(erased + ERASE.length);
  assert.match(reports, /^\d{8}-\d{6}-\w{4} +done /, JSON.stringify(shown));
  assert.equal(reports.match(/ done /g)?.length, 2, reports);
  assert.equal(inert(reports.replaceAll("\r\n", "\n")), true, reports);
});

Deno.test("wait and watch piped, or wait --json on a terminal: no progress line", async () => {
  await using w = await crewWorld();
  const one = await w.run(["run", "--bg", task("One", [{ sleepMs: 1200 }, { answer: "one" }])]);
  const id = one.stdout.trim();
  const waited = await w.run(["wait", id, "--brief"]);
  assert.equal(waited.code, 0, waited.stderr);
  assert.equal(waited.stderr, "");
  assert.equal(inert(waited.stdout), true, waited.stdout);
  const watched = await w.run(["watch", id, "--brief"]);
  assert.equal(watched.code, 0, watched.stderr);
  assert.equal(inert(watched.stdout + watched.stderr), true, watched.stdout);
  assert.doesNotMatch(watched.stdout, /\d\/\d done/);
  const json = await onTerminal(w, ["wait", id, "--json"]);
  assert.equal(json.code, 0, json.shown);
  assert.equal(json.shown.includes(ERASE), false, json.shown);
  assert.equal(JSON.parse(json.shown.replaceAll("\r\n", "\n"))[0].id, id);
});

Deno.test("watch on a terminal: the table of runs ends with their total", async () => {
  await using w = await crewWorld();
  const crew = await w.run([
    "crew",
    "--json",
    task("One", [{ answer: "one" }]),
    task("Two", [{ sleepMs: 1500 }, { answer: "two" }]),
  ]);
  assert.equal(crew.code, 0, crew.stderr);
  const { group } = JSON.parse(crew.stdout);
  const { code, shown } = await onTerminal(w, ["watch", "-g", group]);
  assert.equal(code, 0, shown);
  assert.match(shown, /RUN +STATE +WORKER/);
  // The last table drawn: both done, and the total under it.
  assert.match(shown, /2\/2 done · (\d+ tokens · )?\d+s\r?\n$/);
});
