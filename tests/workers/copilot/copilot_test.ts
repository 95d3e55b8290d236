/**
 * The Copilot CLI backend against streams recorded from copilot 1.0.102 with
 * `deno task fixtures:record copilot` (BYOK against the scripted model server): the parser, the
 * classifier, the launch's permission flags, and a fuzz test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { EventOf, WorkerEvent } from "../../../src/events/mod.ts";
import { copilotBackend } from "../../../src/workers/copilot/mod.ts";
import { copilotArgv, launchCopilot } from "../../../src/workers/copilot/argv.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import { parseVersion } from "../../../src/workers/_detect.ts";
import { endFromNote } from "../_fixtures/note.ts";
import { fuzzBackend, recordedStreams } from "../_fixtures/fuzz.ts";
import { readAt } from "../../support/line_time.ts";

const TESTDATA = join(import.meta.dirname ?? ".", "testdata");

async function recorded(name: string) {
  const text = await Deno.readTextFile(join(TESTDATA, `${name}.jsonl`));
  const { end } = endFromNote(await Deno.readTextFile(join(TESTDATA, `${name}.txt`)), name);
  const state = copilotBackend.newState();
  const events = text.split("\n").filter((l) => l.trim() !== "").flatMap((l) =>
    copilotBackend.parse(l, state, readAt(1_700_000_000_000))
  );
  return { events, end, outcome: copilotBackend.classify(end, events) };
}

function ofType<K extends WorkerEvent["type"]>(events: WorkerEvent[], type: K) {
  return events.filter((e): e is EventOf<K> => e.type === type);
}

function spec(over: Partial<RunSpec> = {}): RunSpec {
  return {
    mode: "read",
    prompt: "Look; $(touch pwned)",
    cwd: "/repo",
    privateDir: "/p",
    web: false,
    baseEnv: { HOME: "/home/u", PATH: "/bin" },
    ...over,
  };
}

Deno.test("launchCopilot() sends the prompt on stdin, never in argv, and lets it update nothing", () => {
  const launch = launchCopilot(spec({ model: "gpt-5", effort: "high", sessionId: "s-1" }));
  assert.equal(launch.stdin, "Look; $(touch pwned)");
  assert.ok(!launch.argv.some((a) => a.includes("touch pwned")));
  assert.ok(!launch.argv.includes("-p") && !launch.argv.includes("--prompt"));
  for (const flag of ["--no-auto-update", "--no-ask-user", "--disable-client-telemetry"]) {
    assert.ok(launch.argv.includes(flag), flag);
  }
  const after = (flag: string) => launch.argv[launch.argv.indexOf(flag) + 1];
  assert.equal(after("--model"), "gpt-5");
  assert.equal(after("--reasoning-effort"), "high");
  assert.equal(after("--resume"), "s-1");
  assert.equal(launch.env.COPILOT_AUTO_UPDATE, "false");
  assert.deepEqual(launch.state, ["/home/u/.copilot", "/home/u/.cache/copilot"]);
  assert.deepEqual(launch.firstStart, {
    marker: "/home/u/.cache/copilot/pkg",
    argv: ["copilot", "--version"],
  });
  for (const bypass of ["--allow-all-paths", "--allow-all", "--yolo", "--allow-all-urls"]) {
    assert.ok(!launch.argv.includes(bypass), bypass);
  }
});

Deno.test("copilotArgv() offers a read run only the reading tools; write runs deny the floor", () => {
  const read = copilotArgv({ mode: "read", web: false });
  const tools = read.slice(
    read.indexOf("--available-tools") + 1,
    read.indexOf("--allow-all-tools"),
  );
  assert.deepEqual(tools, ["view", "grep", "glob"]);
  const web = copilotArgv({ mode: "read", web: true });
  assert.ok(web.includes("web_fetch"));
  const write = copilotArgv({ mode: "write", web: false });
  assert.ok(!write.includes("--available-tools"));
  const denied = write.flatMap((a, i) => write[i - 1] === "--deny-tool" ? [a] : []);
  for (const rule of ["shell(git commit)", "shell(git push)", "shell(sudo)", "shell(pitroom)"]) {
    assert.ok(denied.includes(rule), rule);
  }
  assert.equal(write[write.indexOf("--excluded-tools") + 1], "web_fetch");
  assert.ok(!copilotArgv({ mode: "isolate", web: true }).includes("--excluded-tools"));
});

Deno.test("the Copilot parser reads steps, tool calls, the answer and the session of a read run", async () => {
  const { events, outcome } = await recorded("read_answer");
  assert.deepEqual(outcome, { class: "ok", message: "Answered" });
  assert.equal(ofType(events, "worker.step").length, 3);
  assert.deepEqual(
    ofType(events, "worker.tool_call").map((c) => [c.tool, c.kind, c.target, c.status]),
    [["view", "read", "/repo/notes.txt", "ok"], ["grep", "search", "hello", "ok"]],
  );
  assert.deepEqual(ofType(events, "worker.answer").map((a) => a.text), [
    "notes.txt says hello world.",
  ]);
  assert.equal(ofType(events, "worker.session").length, 1);
  // Copilot's JSON output leaves its usage out: no tokens are made up.
  assert.deepEqual(ofType(events, "worker.tokens"), []);
  assert.deepEqual(ofType(events, "worker.unknown"), []);
});

Deno.test("the Copilot parser keeps the session of a resumed run", async () => {
  const first = await recorded("read_answer");
  const next = await recorded("resume");
  assert.equal(next.outcome.class, "ok");
  assert.deepEqual(
    ofType(next.events, "worker.session").map((s) => s.sessionId),
    ofType(first.events, "worker.session").map((s) => s.sessionId),
  );
  assert.deepEqual(ofType(next.events, "worker.answer").map((a) => a.text), ["Still hello world."]);
});

Deno.test("the Copilot parser reports a denied commit in a write run and a read run's refused tools", async () => {
  const edit = await recorded("edit");
  assert.equal(edit.outcome.class, "ok");
  assert.deepEqual(
    ofType(edit.events, "worker.tool_call").map((c) => [c.tool, c.status]),
    [["edit", "ok"], ["bash", "denied"]],
  );
  assert.match(ofType(edit.events, "worker.denied")[0]?.message ?? "", /shell\(git commit\)/);
  const read = await recorded("denied_edit");
  assert.deepEqual(
    ofType(read.events, "worker.tool_call").map((c) => [c.tool, c.kind, c.status]),
    [["edit", "edit", "denied"], ["bash", "shell", "denied"]],
  );
  assert.deepEqual(ofType(read.events, "worker.denied").map((d) => d.tool), ["edit", "bash"]);
});

for (
  const [name, expected] of [
    ["error_404", "model_not_found"],
    ["error_429", "rate_limited"],
    ["error_quota", "quota"],
    ["error_401", "auth"],
  ] as const
) {
  Deno.test(`classifyCopilot() classifies the recorded ${name} as ${expected}`, async () => {
    const { outcome, end, events } = await recorded(name);
    assert.equal(end.code, 1);
    assert.equal(outcome.class, expected, outcome.message);
    assert.equal(ofType(events, "worker.error").length, 1);
  });
}

Deno.test("classifyCopilot() says stopped and timeout first, and fails an exit 0 with no answer", () => {
  const end = { code: 0, signal: null, timedOut: false, stopped: false, stderr: "" };
  assert.equal(copilotBackend.classify(end, []).class, "failed");
  assert.equal(copilotBackend.classify({ ...end, stopped: true }, []).class, "stopped");
  assert.equal(
    copilotBackend.classify({ ...end, code: null, timedOut: true }, []).class,
    "timeout",
  );
});

Deno.test("a stream garbled by Copilot's masking of a short secret becomes unknown events", () => {
  const state = copilotBackend.newState();
  const line = '{"type":"tool.e******ecution_complete","data":{"toolCallId":"c1","success":true}}';
  const events = copilotBackend.parse(line, state, readAt(1));
  assert.deepEqual(events.map((e) => e.type), ["worker.unknown"]);
});

Deno.test("the copilot parser and classifier make only valid events of bad input", async () => {
  const streams = await recordedStreams(TESTDATA);
  for (const seed of [1, 2, 3]) fuzzBackend(copilotBackend, { streams, seed });
});

Deno.test("parseVersion() reads copilot's version without the sentence's full stop", () => {
  assert.equal(
    parseVersion("GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n"),
    "1.0.102",
  );
  assert.equal(parseVersion("0.61.0-nightly.3"), "0.61.0-nightly.3");
  assert.equal(parseVersion("v1.2.3+build.7, ok"), "1.2.3+build.7");
  assert.equal(parseVersion("kilo 7.7.7"), "7.7.7");
});
