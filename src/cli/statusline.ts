/**
 * `pitroom statusline [--then CMD]`: a Claude Code status line. Claude Code passes a JSON object
 * on stdin; the user's own status-line command (`--then`) runs first with that stdin and a short
 * timeout, its output is printed, then Pitroom's part: runs going now and this week's savings.
 * Fast on purpose: the live runs come from the `active/` markers, the savings from the history
 * (which loads node:sqlite only when it has a database).
 */
import { createEngine } from "../engine/mod.ts";
import { formatUsd } from "../engine/present.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import type { STATUSLINE_FLAGS } from "./statusline_command.ts";
import { readCapped } from "../sys/read.ts";

/** How long the user's own status line may take, ms. */
export const THEN_TIMEOUT_MS = 1000;

const WEEK_MS = 7 * 86_400_000;

/** Pitroom's part of the status line (pure). */
export function pitroomPart(running: number, savedThisWeek: number): string {
  return `pitroom ${running} running · ${formatUsd(savedThisWeek)} saved this week`;
}

/** The whole status line: the user's own output, then Pitroom's part on its last line (pure). */
export function statusText(own: string | null, part: string): string {
  const mine = (own ?? "").replace(/\s+$/, "");
  return mine === "" ? `${part}\n` : `${mine} · ${part}\n`;
}

/** The most of the agent's input read; past it the input is dropped (it is a few KB). */
const INPUT_LIMIT_BYTES = 1024 * 1024;
/** The most of the user's own command's output kept: a status line is a line or two. */
const OWN_LIMIT_BYTES = 64 * 1024;

async function readStdin(): Promise<string> {
  if (Deno.stdin.isTerminal()) return "";
  const read = await readCapped(Deno.stdin.readable, INPUT_LIMIT_BYTES);
  return read.over ? "" : read.text;
}

async function collect(stream: ReadableStream<Uint8Array> | null): Promise<string> {
  return stream === null ? "" : (await readCapped(stream, OWN_LIMIT_BYTES)).text;
}

/**
 * Runs the user's status-line command through `sh -c` with `input` on stdin; its stdout, or
 * null when it did not finish within `timeoutMs` (its whole process group is killed then).
 */
export async function runOwn(
  sys: Sys,
  command: string,
  input: string,
  timeoutMs: number,
): Promise<string | null> {
  const child = sys.runner.spawn(["sh", "-c", command], {
    stdin: { kind: "text", text: input },
    detached: true,
    stderr: "null",
  });
  const output = collect(child.stdout);
  const timer = new AbortController();
  const late = sys.sleep(timeoutMs, timer.signal).then(() => "late" as const, () => "done");
  const finished = Promise.all([output, child.status]).then(() => "done" as const);
  const first = await Promise.race([finished, late]);
  timer.abort();
  if (first === "late") {
    sys.runner.kill(-child.pid, "SIGKILL");
    await Promise.allSettled([output, child.status]);
    return null;
  }
  return await output;
}

/** Prints the status line. */
export const statuslineCommand: CommandRun<typeof STATUSLINE_FLAGS> = async ({ sys, flags }) => {
  const input = await readStdin();
  const then = flags.then !== undefined && flags.then.trim() !== "" ? flags.then : null;
  const engine = createEngine(sys);
  const [own, active, saved] = await Promise.all([
    then === null ? Promise.resolve(null) : runOwn(sys, then, input, THEN_TIMEOUT_MS),
    engine.liveIds(),
    // Without a history there is nothing saved yet: the engine spares loading it.
    engine.savedSince(sys.clock.now() - WEEK_MS),
  ]);
  sys.out.stdout(statusText(own, pitroomPart(active.length, saved)));
  return 0;
};
