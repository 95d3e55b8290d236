import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";
import type { WorkerEvent } from "../../../src/events/mod.ts";
import { classifyCodex, retryHintMs } from "../../../src/workers/codex/classify.ts";
import { newCodexState, parseCodexLine } from "../../../src/workers/codex/parse.ts";
import type { ProcessEnd } from "../../../src/workers/types.ts";
import { endFromNote } from "../_fixtures/note.ts";
import { readAt } from "../../support/line_time.ts";

function recorded(name: string): WorkerEvent[] {
  const path = fromFileUrl(new URL(`./testdata/${name}.jsonl`, import.meta.url));
  const state = newCodexState();
  return Deno.readTextFileSync(path).split("\n").filter((l) => l !== "")
    .flatMap((line) => parseCodexLine(line, state, readAt(1)));
}

const ended = (code: number | null, extra: Partial<ProcessEnd> = {}): ProcessEnd => ({
  code,
  signal: null,
  timedOut: false,
  stopped: false,
  stderr: "",
  ...extra,
});

for (
  const [name, expected] of [
    ["read-answer", "ok"],
    ["missing-model", "model_not_found"],
    ["rate", "rate_limited"],
    ["quota", "quota"],
    ["auth", "auth"],
  ] as const
) {
  Deno.test(`classifyCodex() classifies the recorded ${name} stream as ${expected}`, () => {
    const outcome = classifyCodex(ended(expected === "ok" ? 0 : 1), recorded(name));
    assert.equal(outcome.class, expected, outcome.message);
  });
}

Deno.test("classifyCodex() says timeout and stopped from the process end", () => {
  assert.equal(
    classifyCodex(ended(null, { timedOut: true, signal: "SIGTERM" }), []).class,
    "timeout",
  );
  assert.equal(
    classifyCodex(ended(null, { stopped: true, signal: "SIGTERM" }), []).class,
    "stopped",
  );
});

Deno.test("classifyCodex() marks a per-day limit as a daily quota with its wait", () => {
  const error: WorkerEvent = {
    type: "worker.error",
    time: 1,
    name: "turn_failed",
    message:
      "Rate limit reached for x on requests per day (RPD): Limit 200, Used 200. Please try again in 7m12s.",
  };
  assert.deepEqual(classifyCodex(ended(1), [error]), {
    class: "quota",
    message: error.message,
    retryAfterMs: 432_000,
    daily: true,
  });
});

Deno.test("classifyCodex() falls back to stderr for a bad flag (exit 2)", () => {
  const outcome = classifyCodex(
    ended(2, { stderr: "error: unexpected argument '--nope' found\n" }),
    [],
  );
  assert.deepEqual([outcome.class, outcome.message], [
    "failed",
    "error: unexpected argument '--nope' found",
  ]);
});

Deno.test("retryHintMs() reads waits in seconds, minutes and milliseconds", () => {
  assert.equal(retryHintMs("Please try again in 20s."), 20_000);
  assert.equal(retryHintMs("retry in 1.5s"), 1_500);
  assert.equal(retryHintMs("try again in 250ms"), 250);
  assert.equal(retryHintMs("exceeded retry limit, last status: 429"), undefined);
});

/** The recorded end (exit, stderr) of a recording from its note. */
function recordedEnd(name: string): ProcessEnd {
  const path = fromFileUrl(new URL(`./testdata/${name}.txt`, import.meta.url));
  return endFromNote(Deno.readTextFileSync(path), name).end;
}

/** codex's start-up warning when it cannot write its PATH aliases (a read-only home, say). */
const ALIAS_WARNING =
  "WARNING: proceeding, even though we could not create PATH aliases: Read-only file system (os error 30)";

for (
  const [name, expected] of [
    ["not-git", "Not inside a trusted directory and --skip-git-repo-check was not specified."],
    [
      "bad-config",
      "Error loading config.toml: /private/codex_home/config.toml:2:22: unclosed table, expected `]`",
    ],
  ] as const
) {
  Deno.test(`classifyCodex() says what failed in the recorded ${name} stderr, behind warnings`, () => {
    const end = recordedEnd(name);
    assert.equal(classifyCodex(end, recorded(name)).message, expected);
    const warned = { ...end, stderr: `${ALIAS_WARNING}\n${end.stderr}` };
    assert.equal(classifyCodex(warned, recorded(name)).message, expected);
  });
}
