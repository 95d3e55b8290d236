import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { isEvent } from "../../../src/events/mod.ts";
import {
  commandKind,
  newCodexState,
  parseCodexLine,
  parseCodexStderr,
  unwrapCommand,
} from "../../../src/workers/codex/parse.ts";
import type { ParseState } from "../../../src/workers/types.ts";
import { readAt } from "../../support/line_time.ts";

const T = 1_000;

function lines(name: string): string[] {
  const path = fromFileUrl(new URL(`./testdata/${name}`, import.meta.url));
  return Deno.readTextFileSync(path).split("\n").filter((line) => line !== "");
}

function parseAll(name: string, state: ParseState = newCodexState()): WorkerEvent[] {
  return lines(name).flatMap((line) => parseCodexLine(line, state, readAt(T)));
}

function ofType<K extends WorkerEvent["type"]>(events: WorkerEvent[], type: K) {
  return events.filter((e): e is Extract<WorkerEvent, { type: K }> => e.type === type);
}

Deno.test("parseCodexLine() turns a recorded read run into valid events with no unknowns", () => {
  const events = parseAll("read-answer.jsonl");
  assert.ok(events.every(isEvent));
  assert.deepEqual(ofType(events, "worker.unknown"), []);
  assert.deepEqual(ofType(events, "worker.session").map((e) => e.sessionId), [
    "00000000-0000-0000-0000-000000000001",
  ]);
  const calls = ofType(events, "worker.tool_call").map((e) => [e.tool, e.kind, e.target, e.status]);
  // The first two ran in parallel: they are reported in the order they finished.
  assert.deepEqual(calls.slice(0, 2).sort(), [
    ["exec_command", "read", "cat -- notes.txt", "ok"],
    ["exec_command", "search", "grep -rn -e hello -- .", "ok"],
  ]);
  assert.deepEqual(calls.slice(2), [["exec_command", "list", "ls -la -- .", "ok"]]);
  assert.deepEqual(ofType(events, "worker.answer").map((e) => e.text), [
    "notes.txt says hello world.",
  ]);
  assert.deepEqual(ofType(events, "worker.text").map((e) => e.text), [
    "Looking.",
    "notes.txt says hello world.",
  ]);
});

/** Codex's usage on the recording's last `turn.completed` line (totals over the thread). */
function finalUsage(
  name: string,
): [input: number, cached: number, output: number, reasoning: number] {
  const line = lines(name).findLast((l) => l.includes('"type":"turn.completed"')) ?? "{}";
  const u = JSON.parse(line).usage;
  return [u.input_tokens, u.cached_input_tokens, u.output_tokens, u.reasoning_output_tokens];
}

Deno.test("parseCodexLine() splits cached input and reasoning output out of codex's usage", () => {
  const [tokens] = ofType(parseAll("read-answer.jsonl"), "worker.tokens");
  // The totals follow request sizes; cached and reasoning are the scenario's (40 and 5).
  const [input, cached, output, reasoning] = finalUsage("read-answer.jsonl");
  assert.deepEqual([cached, reasoning], [40, 5]);
  assert.deepEqual(
    tokens && [tokens.input, tokens.cached, tokens.output, tokens.reasoning],
    [input - cached, cached, output - reasoning, reasoning],
  );
});

Deno.test("parseCodexLine() reports a resumed thread's tokens as the difference from priorUsage", () => {
  const first = newCodexState();
  parseAll("resume-first.jsonl", first);
  const prior = finalUsage("resume-first.jsonl");
  assert.deepEqual(first.scratch.usageTotals, {
    input: prior[0],
    cached: prior[1],
    output: prior[2],
    reasoning: prior[3],
  });
  const state = newCodexState();
  state.scratch.priorUsage = first.scratch.usageTotals;
  const events = parseAll("resume.jsonl", state);
  // The follow-up turn's usage is the scenario's: 100 uncached input, 90 cached, output 2.
  const [tokens] = ofType(events, "worker.tokens");
  assert.deepEqual(
    tokens && [tokens.input, tokens.cached, tokens.output, tokens.reasoning],
    [100, 90, 2, 0],
  );
  const [input, cached, output, reasoning] = finalUsage("resume.jsonl");
  assert.deepEqual(state.scratch.usageTotals, { input, cached, output, reasoning });
  assert.deepEqual(ofType(events, "worker.session").map((e) => e.sessionId), [
    "00000000-0000-0000-0000-000000000001",
  ]);
  assert.deepEqual(ofType(events, "worker.answer").map((e) => e.text), ["Still hello."]);
});

Deno.test("parseCodexLine() reports per-turn tokens when one stream holds two turns", () => {
  const state = newCodexState();
  const usage = (input: number, output: number) =>
    JSON.stringify({
      type: "turn.completed",
      usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: output },
    });
  parseCodexLine(usage(100, 10), state, readAt(T));
  const second = parseCodexLine(usage(250, 14), state, readAt(T));
  assert.deepEqual(
    second.map((e) => e.type === "worker.tokens" ? [e.input, e.output] : null),
    [[150, 4]],
  );
});

Deno.test("parseCodexLine() maps file changes to edit and write tool calls", () => {
  const calls = ofType(parseAll("edit.jsonl"), "worker.tool_call");
  assert.deepEqual(calls.map((e) => [e.tool, e.kind, e.target, e.status]), [
    ["apply_patch", "edit", "/repo/notes.txt", "ok"],
    ["apply_patch", "write", "/repo/new.txt", "ok"],
  ]);
});

Deno.test("parseCodexLine() starts a call at the bound of its item.started line, not when that was read", () => {
  // The recorded edit run read as a busy host reads it: the patch's two lines in a second chunk,
  // read at 900 (after the patch wrote its file), the read before it asked for at 200.
  const [thread, turn, started, completed] = lines("edit.jsonl");
  const state = newCodexState();
  parseCodexLine(thread!, state, readAt(150, 0));
  parseCodexLine(turn!, state, readAt(150, 0));
  parseCodexLine(started!, state, readAt(900, 200, 0));
  const [call] = ofType(parseCodexLine(completed!, state, readAt(900, 200, 0)), "worker.tool_call");
  assert.deepEqual([call?.target, call?.started, call?.time], ["/repo/notes.txt", 200, 900]);
});

Deno.test("parseCodexLine() starts a call it sees only done at the bound of the line before", () => {
  const state = newCodexState();
  parseCodexLine(JSON.stringify({ type: "turn.started" }), state, readAt(150, 100));
  const done = JSON.stringify({
    type: "item.completed",
    item: { id: "item_9", type: "file_change", changes: [{ path: "/r/a.txt", kind: "update" }] },
  });
  const [call] = ofType(parseCodexLine(done, state, readAt(900, 800)), "worker.tool_call");
  assert.deepEqual([call?.started, call?.time], [100, 900]);
});

Deno.test("parseCodexLine() marks a sandbox-refused shell write as denied", () => {
  const events = parseAll("read-shell-write.jsonl");
  const [call] = ofType(events, "worker.tool_call");
  assert.equal(call?.status, "denied");
  assert.equal(call?.kind, "shell");
  assert.equal(call?.target, "echo pwned > b.txt");
  assert.deepEqual(ofType(events, "worker.denied").map((e) => e.message), [
    "/bin/bash: line 1: b.txt: Read-only file system",
  ]);
});

Deno.test("parseCodexLine() sees no call when exec_command refuses a read run's shell write", () => {
  // Codex 0.169.0 refuses the write before running it and prints nothing about it.
  const events = parseAll("read-shell-refused.jsonl");
  assert.ok(events.every(isEvent));
  assert.deepEqual(ofType(events, "worker.unknown"), []);
  assert.deepEqual(ofType(events, "worker.tool_call"), []);
  assert.deepEqual(ofType(events, "worker.answer").map((e) => e.text), ["Tried."]);
});

Deno.test("parseCodexLine() reports a failed curl as a web call in error", () => {
  const [call] = ofType(parseAll("read-trespass.jsonl"), "worker.tool_call");
  assert.deepEqual(call && [call.kind, call.status], ["web", "error"]);
});

Deno.test("parseCodexStderr() turns a router refusal into a denied apply_patch", () => {
  const [line] = lines("read-trespass.stderr");
  const events = parseCodexStderr(line ?? "", newCodexState(), readAt(T));
  assert.ok(events.every(isEvent));
  assert.deepEqual(events.map((e) => e.type), ["worker.tool_call", "worker.denied"]);
  const [call] = ofType(events, "worker.tool_call");
  assert.deepEqual(call && [call.tool, call.kind, call.status], ["apply_patch", "edit", "denied"]);
});

Deno.test("parseCodexStderr() ignores warnings and other codex errors", () => {
  const state = newCodexState();
  assert.deepEqual(
    parseCodexStderr(
      "2026-01-01T00:00:00Z ERROR codex_core::session: failed to record rollout items: thread x not found",
      state,
      readAt(T),
    ),
    [],
  );
  assert.deepEqual(parseCodexStderr("WARNING: proceeding, even though ...", state, readAt(T)), []);
});

Deno.test("parseCodexLine() turns turn.failed into a turn_failed error with its status", () => {
  const events = parseAll("rate.jsonl");
  const failed = ofType(events, "worker.error").filter((e) => e.name === "turn_failed");
  assert.deepEqual(failed.map((e) => [e.status, e.message]), [
    [429, "exceeded retry limit, last status: 429 Too Many Requests"],
  ]);
  assert.deepEqual(ofType(events, "worker.answer"), []);
});

Deno.test("parseCodexLine() keeps lines it does not know as worker.unknown", () => {
  const state = newCodexState();
  assert.deepEqual(parseCodexLine("not json", state, readAt(T)), [
    { type: "worker.unknown", time: T, raw: "not json" },
  ]);
  const odd = JSON.stringify({ type: "item.completed", item: { type: "hologram" } });
  assert.deepEqual(parseCodexLine(odd, state, readAt(T)), [{
    type: "worker.unknown",
    time: T,
    raw: odd,
  }]);
});

Deno.test("unwrapCommand() and commandKind() read codex's bash wrapper", () => {
  assert.equal(unwrapCommand(`/bin/bash -lc 'echo '\\''hi'\\'''`), "echo 'hi'");
  assert.equal(unwrapCommand(`/bin/bash -lc "grep -n \\"a b\\" x"`), `grep -n "a b" x`);
  assert.equal(commandKind("rg --files src"), "list");
  assert.equal(commandKind("sed -n 1,20p a.ts"), "read");
  assert.equal(commandKind("sed -i s/a/b/ a.ts"), "shell");
  assert.equal(commandKind("/usr/bin/curl -sS x"), "web");
  assert.equal(commandKind("git commit -m x"), "shell");
});
