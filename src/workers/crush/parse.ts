/**
 * Crush's `run` output (pure), from its source (`internal/cmd/run.go`): stdout carries only the
 * assistant's final text, as plain text streamed as it grows, no JSON and no tool calls; with
 * `--verbose` its log goes to stderr (`INFO Created session for non-interactive run
 * session_id=<id>`, `Continuing session ...` on a follow-up), and a failed run ends with the
 * error on stderr ("agent processing failed: ..." with the provider's message) and exit 1.
 * So a Crush run has no steps, tool calls or tokens Pitroom can see: they are not reported.
 * Every stdout line adds to the answer (the last `worker.answer` is the whole text so far).
 */
import { event, type WorkerEvent } from "../../events/mod.ts";
import type { LineTime, ParseState } from "../types.ts";
import { oneLine } from "../../sys/text.ts";

interface Scratch {
  lines?: string[];
  session?: string;
}

// deno-lint-ignore no-control-regex
const CONTROL = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Turns one stdout line of `crush run` into events: the answer so far. */
export function parseCrushLine(line: string, state: ParseState, { time }: LineTime): WorkerEvent[] {
  const scratch = state.scratch as Scratch;
  const lines = (scratch.lines ??= []);
  lines.push(line.replace(CONTROL, ""));
  const text = lines.join("\n").trim();
  return text === "" ? [] : [event("worker.answer", time, { text })];
}

const SESSION =
  /\b(?:Created|Continuing) session for non-interactive run\b.*\bsession_id=("?)([A-Za-z0-9-]+)\1/;
const ERROR_LINE =
  /\b(?:agent processing failed|agent run failed|agent error|failed to override models|no providers configured|data directory already in use)\b.*$/i;

/** Turns a stderr line (the `--verbose` log, the final error) into events. */
export function parseCrushStderr(
  line: string,
  state: ParseState,
  { time }: LineTime,
): WorkerEvent[] {
  const plain = line.replace(CONTROL, "").trim();
  const scratch = state.scratch as Scratch;
  const session = SESSION.exec(plain);
  if (session !== null) {
    const id = session[2]!;
    if (id === scratch.session) return [];
    scratch.session = id;
    return [event("worker.session", time, { sessionId: id })];
  }
  const error = ERROR_LINE.exec(plain);
  if (error !== null) {
    const status = /\b([45]\d\d)\b/.exec(error[0])?.[1];
    return [event("worker.error", time, {
      message: oneLine(error[0], 300),
      ...(status === undefined ? {} : { status: Number(status) }),
    })];
  }
  return [];
}
