/**
 * The Crush backend against streams written by hand from Crush's source (testdata/*.txt say
 * where from): its binary cannot be fetched on this project's machines, so nothing here was
 * recorded from a real crush, and no e2e suite runs it (README, "Workers").
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { crushBackend } from "../../../src/workers/crush/mod.ts";
import { crushArgv, launchCrush } from "../../../src/workers/crush/argv.ts";
import { parseCrushModels } from "../../../src/workers/crush/models.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import { endFromNote } from "../_fixtures/note.ts";
import { fuzzBackend, recordedStreams } from "../_fixtures/fuzz.ts";
import { readAt } from "../../support/line_time.ts";

const TESTDATA = join(import.meta.dirname ?? ".", "testdata");

async function written(name: string) {
  const text = await Deno.readTextFile(join(TESTDATA, `${name}.jsonl`));
  const { end, stderr } = endFromNote(await Deno.readTextFile(join(TESTDATA, `${name}.txt`)), name);
  const state = crushBackend.newState();
  const events: WorkerEvent[] = [
    ...text.split("\n").slice(0, -1).flatMap((l) => crushBackend.parse(l, state, readAt(1))),
    ...stderr.flatMap((l) => crushBackend.parseStderr(l, state, readAt(1))),
  ];
  return { events, end };
}

function spec(over: Partial<RunSpec> = {}): RunSpec {
  return {
    mode: "read",
    prompt: "Fix the bug; rm -rf / is not the way",
    cwd: "/repo",
    privateDir: "/state/runs/x/attempt-1",
    web: false,
    baseEnv: { HOME: "/home/u", PATH: "/bin" },
    ...over,
  };
}

Deno.test("launchCrush() sends the prompt on stdin, never in argv, with a data folder outside the project", () => {
  const launch = launchCrush(spec({ model: "openai/gpt-5", sessionId: "abc-1" }));
  assert.equal(launch.stdin, "Fix the bug; rm -rf / is not the way");
  assert.ok(!launch.argv.some((a) => a.includes("Fix the bug")));
  assert.deepEqual(launch.argv, [
    "crush",
    "run",
    "--quiet",
    "--verbose",
    "--data-dir",
    "/home/u/.local/share/crush/pitroom",
    "--model",
    "openai/gpt-5",
    "--session",
    "abc-1",
  ]);
  assert.equal(launch.env.CRUSH_DISABLE_METRICS, "1");
  assert.equal(launch.env.CRUSH_SKIP_DATADIR_LOCK, "1");
  assert.deepEqual(launch.state, ["/home/u/.local/share/crush/pitroom"]);
  assert.ok(!launch.argv.includes("--yolo"));
});

Deno.test("crushArgv() keeps the data folder out of the project even without a home", () => {
  const argv = crushArgv({ privateDir: "/p", baseEnv: {} });
  assert.equal(argv[argv.indexOf("--data-dir") + 1], "/p/crush");
});

Deno.test("the Crush parser reads the plain answer and the session id of the --verbose log", async () => {
  const { events, end } = await written("answer");
  assert.deepEqual(events.filter((e) => e.type === "worker.session").map((e) => e.sessionId), [
    "6f1c2a4e-9b1d-4c3e-8a55-0d2f7b9e1a10",
  ]);
  const answers = events.filter((e) => e.type === "worker.answer");
  assert.equal(
    answers.at(-1)?.text,
    "The answer is defined in src/app.ts:1 as 41.\n\nIt is a constant.",
  );
  assert.deepEqual(crushBackend.classify(end, events), { class: "ok", message: "Answered" });
  // No steps, tool calls or tokens: crush run prints none.
  assert.ok(!events.some((e) => /worker\.(step|tool_call|tokens)/.test(e.type)));
});

for (
  const [name, expected, wait] of [
    ["error_429", "rate_limited", 20_000],
    ["error_quota", "quota", undefined],
    ["error_401", "auth", undefined],
    ["error_model", "model_not_found", undefined],
  ] as const
) {
  Deno.test(`classifyCrush() classifies the written ${name} as ${expected}`, async () => {
    const { events, end } = await written(name);
    const outcome = crushBackend.classify(end, events);
    assert.equal(outcome.class, expected, outcome.message);
    assert.equal(outcome.retryAfterMs, wait);
    assert.ok(events.some((e) => e.type === "worker.error"));
  });
}

Deno.test("classifyCrush() fails an exit 0 with no answer and says stopped and timeout first", () => {
  const end = { code: 0, signal: null, timedOut: false, stopped: false, stderr: "" };
  assert.equal(crushBackend.classify(end, []).class, "failed");
  assert.equal(crushBackend.classify({ ...end, stopped: true }, []).class, "stopped");
  assert.equal(crushBackend.classify({ ...end, code: null, timedOut: true }, []).class, "timeout");
});

Deno.test("parseCrushModels() reads provider/model lines once each", async () => {
  const models = parseCrushModels(await Deno.readTextFile(join(TESTDATA, "models.txt")));
  assert.deepEqual(models.map((m) => m.id), [
    "fake/scripted",
    "fake/answer",
    "openai/gpt-5",
    "anthropic/claude-sonnet-4-5",
  ]);
});

Deno.test("the crush parser and classifier make only valid events of bad input", async () => {
  const streams = new Map([...await recordedStreams(TESTDATA)].filter(([, s]) => s.length > 0));
  const stderr = [
    "INFO Created session for non-interactive run session_id=6f1c2a4e",
    'ERROR agent processing failed: POST "http://x": 429 Too Many Requests {"message":"x"}',
    '\x1b[31mERROR\x1b[0m failed to override models: large model "x" not found',
  ];
  for (const seed of [1, 2, 3]) fuzzBackend(crushBackend, { streams, stderr, seed });
});
