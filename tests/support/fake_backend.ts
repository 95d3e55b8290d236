/**
 * A scriptable fake worker for fast engine tests: a real `sh` process that reads its prompt from
 * stdin, prints a scenario as JSON lines, touches files, hangs, crashes or ignores SIGTERM. Its
 * backend parses those lines into the event union. The real CLIs against the scripted model
 * server remain the proof that a backend works; this one exercises slots, queue, timeouts,
 * kills and crash recovery.
 */
import { event, type WorkerEvent } from "../../src/events/mod.ts";
import type { Backend, Launch, Outcome, RunSpec } from "../../src/workers/types.ts";
import { callEnd, callStart } from "../../src/workers/_time.ts";

/** One step of a fake worker's script. */
export type FakeStep =
  | { answer: string }
  | { tool: "read" | "edit" | "write" | "shell"; target: string }
  /** Writes a file and reports a `write` tool call naming it (none with `untold`). */
  | { writeFile: string; content: string; untold?: true }
  /**
   * Replaces the first `old` in a file by `new`, in place (as an edit tool does: the file as it
   * is then, whoever changed it before), and reports an `edit` call naming it. No backslashes.
   */
  | { editFile: string; old: string; new: string }
  | { sleepMs: number }
  | { hang: true }
  | { ignoreTerm: true }
  | { exit: number }
  | { waitFile: string }
  /** Runs a command and reports it as a `shell` tool call (none with `untold`). */
  | { run: string; untold?: true }
  | { step: true }
  /** Reports the worker's session id (a follow-up continues it). */
  | { session: string }
  | { tokens: { input: number; output: number; cost?: number } }
  | {
    fail: "rate_limited" | "quota" | "model_not_found" | "auth";
    retryAfterMs?: number;
    daily?: boolean;
  };

function q(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function line(value: unknown): string {
  return `printf '%s\\n' ${q(JSON.stringify(value))}`;
}

/** Builds the shell script of a fake worker. */
export function fakeScript(steps: FakeStep[]): string {
  const out = ["cat >/dev/null", line({ t: "start", pid: "$$" })];
  for (const s of steps) {
    if ("answer" in s) out.push(line({ t: "answer", text: s.answer }));
    else if ("tool" in s) out.push(line({ t: "tool", kind: s.tool, target: s.target }));
    else if ("writeFile" in s) {
      // Like a real worker's tool: the call is reported once it is done, with when it started.
      out.push("started=$(date +%s%3N)");
      out.push(`printf '%s' ${q(s.content)} > ${q(s.writeFile)}`);
      if (!s.untold) {
        out.push(
          `printf '{"t":"tool","kind":"write","target":%s,"started":%s,"ended":%s}\\n' ${
            q(JSON.stringify(s.writeFile))
          } "$started" "$(date +%s%3N)"`,
        );
      }
    } else if ("editFile" in s) {
      const temp = `"\${TMPDIR:-/tmp}/fake-edit.$$"`;
      out.push("started=$(date +%s%3N)");
      out.push(
        `awk -v old=${q(s.old)} -v new=${
          q(s.new)
        } 'BEGIN { done = 0 } { i = index($0, old); if (!done && i > 0) { $0 = substr($0, 1, i - 1) new substr($0, i + length(old)); done = 1 } print }' ${
          q(s.editFile)
        } > ${temp} && cat ${temp} > ${q(s.editFile)} && rm -f ${temp}`,
      );
      out.push(
        `printf '{"t":"tool","kind":"edit","target":%s,"started":%s,"ended":%s}\\n' ${
          q(JSON.stringify(s.editFile))
        } "$started" "$(date +%s%3N)"`,
      );
    } else if ("sleepMs" in s) out.push(`sleep ${s.sleepMs / 1000}`);
    else if ("hang" in s) out.push("while :; do sleep 1; done");
    else if ("ignoreTerm" in s) out.push("trap '' TERM");
    else if ("exit" in s) out.push(`exit ${s.exit}`);
    else if ("fail" in s) out.push(line({ t: "fail", ...s }), "exit 1");
    else if ("run" in s) {
      out.push("started=$(date +%s%3N)");
      out.push(`(${s.run}) >/dev/null 2>&1 || true`);
      if (!s.untold) {
        out.push(
          `printf '{"t":"tool","kind":"shell","target":%s,"started":%s}\\n' ${
            q(JSON.stringify(s.run))
          } "$started"`,
        );
      }
    } else if ("step" in s) out.push(line({ t: "start" }));
    else if ("session" in s) out.push(line({ t: "session", id: s.session }));
    else if ("tokens" in s) out.push(line({ t: "tokens", ...s.tokens }));
    else if ("waitFile" in s) out.push(`while [ ! -e ${q(s.waitFile)} ]; do sleep 0.05; done`);
  }
  out.push(line({ t: "tokens", input: 10, output: 5 }));
  return out.join("\n");
}

/** A backend whose worker is `sh -c <script>`; `script(spec)` picks the steps per launch. */
export function fakeBackend(
  script: (spec: RunSpec) => FakeStep[],
  name: Backend["name"] = "opencode",
): Backend & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    name,
    prompts,
    tested: { pinned: "1.0.0", min: "1.0.0", max: "1.0.0", relies: "the fake worker's lines" },
    detect: () => Promise.resolve({ binary: "sh", version: "1.0.0" }),
    launch(spec): Launch {
      prompts.push(spec.prompt);
      return {
        argv: ["sh", "-c", fakeScript(script(spec))],
        env: {
          PATH: [...(spec.pathPrefix ?? []), spec.baseEnv.PATH ?? "/usr/bin:/bin"].join(":"),
          HOME: spec.baseEnv.HOME ?? spec.cwd,
        },
        cwd: spec.cwd,
        files: [],
        stdin: spec.prompt,
      };
    },
    newState: () => ({ steps: 0, scratch: {} }),
    parse(raw, _state, at): WorkerEvent[] {
      const time = at.time;
      let v: Record<string, unknown>;
      try {
        v = JSON.parse(raw);
      } catch {
        return [event("worker.unknown", time, { raw })];
      }
      switch (v.t) {
        case "start":
          return [event("worker.step", time, {})];
        case "answer":
          return [event("worker.answer", time, { text: String(v.text) })];
        case "session":
          return [event("worker.session", time, { sessionId: String(v.id) })];
        case "tool": {
          // The worker's own clock where it states times, as a real backend reads them.
          const started = callStart(typeof v.started === "number" ? v.started : undefined, at);
          const ended = callEnd(typeof v.ended === "number" ? v.ended : undefined, at, started);
          return [event("worker.tool_call", time, {
            tool: String(v.kind),
            kind: v.kind as "read",
            target: String(v.target),
            status: "ok",
            started,
            ...(ended === undefined ? {} : { ended }),
          })];
        }
        case "fail":
          return [event("worker.error", time, {
            message: `provider said ${v.fail}`,
            name: String(v.fail),
            ...(typeof v.retryAfterMs === "number" ? { retryAfterMs: v.retryAfterMs } : {}),
            ...(v.daily === true ? { retryable: false } : {}),
          })];
        case "tokens":
          return [event("worker.tokens", time, {
            input: Number(v.input),
            output: Number(v.output),
            cached: 0,
            reasoning: 0,
            ...(typeof v.cost === "number" ? { cost: v.cost } : {}),
          })];
        default:
          return [event("worker.unknown", time, { raw })];
      }
    },
    parseStderr: () => [],
    classify(end, events): Outcome {
      if (end.timedOut) return { class: "timeout", message: "The worker ran out of time" };
      if (end.stopped) return { class: "stopped", message: "Stopped" };
      const fail = events.find((e) => e.type === "worker.error");
      if (fail?.type === "worker.error" && fail.name) {
        return {
          class: fail.name as Outcome["class"],
          message: fail.message,
          ...(fail.retryAfterMs === undefined ? {} : { retryAfterMs: fail.retryAfterMs }),
          ...(fail.retryable === false ? { daily: true } : {}),
        };
      }
      if (end.code !== 0) {
        return { class: "failed", message: `The worker exited with ${end.code ?? end.signal}` };
      }
      if (!events.some((e) => e.type === "worker.answer")) {
        return { class: "failed", message: "No answer" };
      }
      return { class: "ok", message: "ok" };
    },
    models: () => Promise.resolve([]),
  };
}
