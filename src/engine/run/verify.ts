/**
 * `--verify CMD`: after a worker succeeded, run the command in the worker's tree (through the
 * same process shell, as a process group with a time bound) and keep its exit code and the tail
 * of its output. A failing verify ends the run with exit 6.
 */
import type { Verify } from "../../store/record.ts";
import type { Sys } from "../../sys/mod.ts";
import { runProcess } from "./process.ts";

const OUTPUT_TAIL = 4000;

/** Runs the verify command in `cwd` and reports how it went. */
export async function runVerify(
  sys: Sys,
  command: string,
  options: { cwd: string; timeoutMs: number; stop?: AbortSignal },
): Promise<Verify> {
  let output = "";
  const keep = (line: string) => {
    output = (output + line + "\n").slice(-OUTPUT_TAIL);
  };
  const started = sys.clock.now();
  const end = await runProcess(sys, {
    argv: ["sh", "-c", command],
    env: sys.env.toObject(),
    cwd: options.cwd,
    files: [],
    stdin: null,
  }, {
    timeoutMs: options.timeoutMs,
    onStdoutLine: keep,
    onStderrLine: keep,
    ...(options.stop ? { stop: options.stop } : {}),
  });
  const ok = end.code === 0 && !end.timedOut && !end.stopped;
  return {
    command,
    ok,
    code: end.code,
    timedOut: end.timedOut,
    ms: sys.clock.now() - started,
    output,
  };
}
