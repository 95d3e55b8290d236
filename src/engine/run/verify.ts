/**
 * `--verify CMD` (the CLI flag, the MCP `verify` field: one request field, this one path): after
 * a worker succeeded, run the command with `sh -c` in the worker's tree, as the worker ran: in
 * the same sandbox (confine/sandboxing.ts: writable only the worker's tree, the copy of an isolate
 * run or the repository without `.git` of a write run, nothing of a read run; Pitroom's state
 * dir, credentials and the tree's hidden files out of sight), with the worker's cleaned
 * environment and the guard first on PATH (env.ts, keeping no provider's credentials), through
 * the same process shell (a process group with a time bound; in the sandbox's PID namespace
 * everything it starts ends with it). Its exit code and the tail of its output are kept. A
 * failing verify ends the run with exit 6.
 */
import type { SandboxSetting } from "../../confine/sandbox/mod.ts";
import type { HeldSys } from "../../store/state.ts";
import { join } from "../../sys/path.ts";
import type { Verify } from "../../store/record.ts";
import type { Mode } from "../../workers/types.ts";
import { workerEnv } from "../../confine/env.ts";
import { runProcess } from "./process.ts";
import { sandboxAttempt } from "../../confine/sandboxing.ts";

const OUTPUT_TAIL = 4000;

/** What `runVerify` needs of the run. */
export interface VerifyOptions {
  /** The worker's directory. */
  cwd: string;
  timeoutMs: number;
  stop?: AbortSignal;
  /** The run: its id (the recursion marker), mode, private folder and hidden tree files. */
  run: {
    id: string;
    mode: Mode;
    privateDir: string;
    secrets?: readonly string[];
    /** The run's sandbox setting (as frozen when it was created). */
    sandbox: SandboxSetting;
  };
}

/** Runs the verify command in `cwd` and reports how it went, with the report's notes. */
export async function runVerify(
  sys: HeldSys,
  command: string,
  options: VerifyOptions,
): Promise<{ verify: Verify; notes: string[] }> {
  let output = "";
  const keep = (line: string) => {
    output = (output + line + "\n").slice(-OUTPUT_TAIL);
  };
  const started = sys.clock.now();
  const { baseEnv, pathPrefix } = await workerEnv(sys, { worker: null, runId: options.run.id });
  const path = [...pathPrefix, ...(baseEnv.PATH ? [baseEnv.PATH] : [])].join(":");
  const privateDir = join(options.run.privateDir, "verify");
  await Deno.mkdir(privateDir, { recursive: true, mode: 0o700 });
  const { launch, notes } = await sandboxAttempt(sys, {
    argv: ["sh", "-c", command],
    env: { ...baseEnv, PATH: path },
    cwd: options.cwd,
    files: [],
    stdin: null,
  }, {
    mode: options.run.mode,
    privateDir,
    worker: null,
    who: "The verify command",
    setting: options.run.sandbox,
    ...(options.run.secrets === undefined ? {} : { secrets: options.run.secrets }),
  });
  const end = await runProcess(sys, launch, {
    timeoutMs: options.timeoutMs,
    onStdoutLine: keep,
    onStderrLine: keep,
    ...(options.stop ? { stop: options.stop } : {}),
  });
  const ok = end.code === 0 && !end.timedOut && !end.stopped;
  return {
    verify: {
      command,
      ok,
      code: end.code,
      timedOut: end.timedOut,
      ms: sys.clock.now() - started,
      output,
    },
    notes: notes.filter((n) => n.includes("without a sandbox")),
  };
}
