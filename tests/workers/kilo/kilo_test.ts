/**
 * The Kilo backend: OpenCode's parser, classifier and argv with Kilo's flavour, against streams
 * recorded from kilo 7.7.7 (`deno task fixtures:record kilo`), and a fuzz test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { EventOf, WorkerEvent } from "../../../src/events/mod.ts";
import { kiloBackend } from "../../../src/workers/kilo/mod.ts";
import { launchKilo } from "../../../src/workers/kilo/argv.ts";
import { launchOpencode } from "../../../src/workers/opencode/argv.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import { endFromNote } from "../_fixtures/note.ts";
import { fuzzBackend, recordedStreams } from "../_fixtures/fuzz.ts";
import { readAt } from "../../support/line_time.ts";

const TESTDATA = join(import.meta.dirname ?? ".", "testdata");

async function recorded(name: string) {
  const text = await Deno.readTextFile(join(TESTDATA, `${name}.jsonl`));
  const { end, stderr } = endFromNote(await Deno.readTextFile(join(TESTDATA, `${name}.txt`)), name);
  const state = kiloBackend.newState();
  const events = [
    ...text.split("\n").filter((l) => l.trim() !== "").flatMap((l) =>
      kiloBackend.parse(l, state, readAt(1_700_000_000_000))
    ),
    ...stderr.flatMap((l) => kiloBackend.parseStderr(l, state, readAt(1_700_000_000_000))),
  ];
  return { events, end, outcome: kiloBackend.classify(end, events) };
}

function ofType<K extends WorkerEvent["type"]>(events: WorkerEvent[], type: K) {
  return events.filter((e): e is EventOf<K> => e.type === type);
}

function spec(over: Partial<RunSpec> = {}): RunSpec {
  return {
    mode: "read",
    prompt: "Read it; `rm -rf ~`",
    cwd: "/repo",
    privateDir: "/p",
    web: false,
    baseEnv: { HOME: "/home/u", PATH: "/bin", KILO_CONFIG_CONTENT: '{"model":"kilo/free"}' },
    ...over,
  };
}

Deno.test("launchKilo() is OpenCode's launch under Kilo's names: stdin prompt, KILO_* config, kilo/ folders", () => {
  const launch = launchKilo(spec({ model: "kilo/x", sessionId: "ses_1", effort: "high" }));
  const opencode = launchOpencode(spec({ model: "kilo/x", sessionId: "ses_1", effort: "high" }));
  assert.equal(launch.stdin, "Read it; `rm -rf ~`");
  assert.ok(!launch.argv.some((a) => a.includes("rm -rf")));
  assert.deepEqual(launch.argv, ["kilo", ...opencode.argv.slice(1)]);
  const config = JSON.parse(launch.env.KILO_CONFIG_CONTENT!);
  // The user's inline config is kept under the per-run agent and permissions.
  assert.equal(config.model, "kilo/free");
  assert.deepEqual(config.agent, JSON.parse(opencode.env.OPENCODE_CONFIG_CONTENT!).agent);
  assert.deepEqual(JSON.parse(launch.env.KILO_PERMISSION!), config.permission);
  assert.equal(launch.env.OPENCODE_CONFIG_CONTENT, undefined);
  assert.equal(launch.env.KILO_TELEMETRY_LEVEL, "off");
  assert.equal(launch.env.KILO_SESSION_RETRY_LIMIT, "5");
  assert.deepEqual(launch.state, [
    "/home/u/.local/share/kilo",
    "/home/u/.cache/kilo",
    "/home/u/.config/kilo",
    "/home/u/.local/state/kilo",
    "/home/u/.local/state/kilo-sandbox-policy",
    "/home/u/.local/state/kilo-sandbox-preference",
  ]);
  assert.deepEqual(launch.firstStart, {
    marker: "/home/u/.local/share/kilo/kilo.db",
    argv: ["kilo", "models"],
  });
});

Deno.test("the Kilo parser reads a recorded read run: steps, tool calls, tokens, the answer", async () => {
  const { events, outcome } = await recorded("read_answer");
  assert.deepEqual(outcome, { class: "ok", message: "Answered" });
  assert.deepEqual(
    ofType(events, "worker.tool_call").map((c) => [c.tool, c.kind, c.status]),
    [["read", "read", "ok"], ["grep", "search", "ok"]],
  );
  const tokens = ofType(events, "worker.tokens");
  assert.equal(tokens.length, 3);
  assert.deepEqual(
    { input: tokens[2]?.input, output: tokens[2]?.output, cached: tokens[2]?.cached },
    { input: 100, output: 20, cached: 40 },
  );
  assert.deepEqual(ofType(events, "worker.answer").map((a) => a.text), [
    "notes.txt says hello world.",
  ]);
  assert.equal(ofType(events, "worker.session").length, 1);
  assert.deepEqual(ofType(events, "worker.unknown"), []);
});

Deno.test("the Kilo parser reports what the read and write profiles refused", async () => {
  const read = await recorded("denied_edit");
  assert.equal(read.outcome.class, "ok");
  assert.deepEqual(ofType(read.events, "worker.denied").map((d) => d.tool), [
    "edit",
    "bash",
    "webfetch",
  ]);
  const write = await recorded("write_denied_commit");
  assert.equal(write.outcome.class, "ok");
  assert.deepEqual(
    ofType(write.events, "worker.tool_call").map((c) => [c.tool, c.status]),
    [["bash", "denied"], ["webfetch", "denied"]],
  );
});

Deno.test("the Kilo parser keeps the session of a recorded follow-up", async () => {
  const first = await recorded("chat");
  const next = await recorded("resume");
  assert.equal(next.outcome.class, "ok");
  const ids = (events: WorkerEvent[]) => ofType(events, "worker.session").map((s) => s.sessionId);
  assert.deepEqual(ids(next.events), ids(first.events));
  assert.deepEqual(ofType(next.events, "worker.answer").map((a) => a.text), ["Second answer."]);
});

for (
  const [name, expected, wait] of [
    ["error_404", "model_not_found", undefined],
    ["error_429", "rate_limited", 1000],
    ["error_quota", "quota", 1000],
    ["error_401", "auth", undefined],
  ] as const
) {
  Deno.test(`classifyKilo() classifies the recorded ${name} as ${expected}, in Kilo's name`, async () => {
    const { outcome, end } = await recorded(name);
    assert.equal(end.code, 1);
    assert.equal(outcome.class, expected, outcome.message);
    assert.equal(outcome.retryAfterMs, wait);
  });
}

Deno.test("classifyKilo() names Kilo in its messages", () => {
  const end = { code: 0, signal: null, timedOut: false, stopped: false, stderr: "" };
  assert.equal(kiloBackend.classify(end, []).message, "Kilo ended without an answer");
  assert.equal(
    kiloBackend.classify({ ...end, code: null, timedOut: true }, []).message,
    "Kilo did not finish in time",
  );
});

Deno.test("the kilo parser and classifier make only valid events of bad input", async () => {
  const streams = await recordedStreams(TESTDATA);
  const stderr = [
    'timestamp=2026-01-01T00:00:00.000Z level=ERROR run=00000000 message=failed error="ProviderModelNotFoundError: Model not found: fake/x"',
    "\x1b[93m\x1b[1m! \x1b[0mpermission requested: bash (touch x.txt); auto-rejecting",
  ];
  for (const seed of [1, 2, 3]) fuzzBackend(kiloBackend, { streams, stderr, seed });
});
