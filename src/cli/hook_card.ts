/**
 * `pitroom hook-card`: a Claude Code / Codex PostToolUse hook. It reads the hook's JSON on stdin
 * (`tool_name`, `tool_input.command`, `tool_response`), and when the shell command was a Pitroom
 * command that started (`run --bg`, `crew`), finished (`wait`, a foreground `run`) or applied
 * (`apply`) runs, prints one card per run and phase as `{"systemMessage": …}` (the field both
 * clients show to the user). A marker in the run's folder (`cards/<phase>`) makes a second call
 * print nothing. Anything else prints nothing and exits 0.
 */
import { safeLine } from "./safe.ts";
import { createEngine, MODES, type RunReport as RunRecord } from "../engine/mod.ts";
import {
  formatUsd,
  isFinal,
  isRunId,
  runTime,
  workerOf as workerLabel,
} from "../engine/present.ts";
import { formatDuration } from "../sys/duration.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun, NoFlags } from "./command.ts";
import { shellCommands } from "./shell_words.ts";
import { readCapped } from "../sys/read.ts";

/** What a Pitroom command did to its runs. */
export type Phase = "started" | "finished" | "applied";

/** The part of a PostToolUse hook's input the card needs. */
export interface HookInput {
  command: string;
  /** What the command printed (stdout and stderr). */
  output: string;
}

/** One Pitroom command found in a shell command line. */
export interface PitroomCall {
  sub: string;
  args: string[];
  phase: Phase;
}

/** The most runs one call shows cards for. */
const MAX_CARDS = 12;
/**
 * A run id where Pitroom's output lists one: at the start of a line (`run --bg`, `--brief`, a
 * crew's list), after `run ` (a report's header) or `applied `, or as a JSON `"id"`.
 */
const LISTED_ID = /^\s*(?:run |applied |"id":\s*)?"?(\d{8}-\d{6}-[0-9a-f]{4})\b/gm;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.filter((v) => typeof v === "string").join(" ");
  return "";
}

/** Reads a PostToolUse hook's JSON (pure); null when it is not a shell command's. */
export function parseHookInput(json: string): HookInput | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
  if (!isObject(value) || !isObject(value.tool_input)) return null;
  const command = text(value.tool_input.command);
  if (command === "") return null;
  const response = value.tool_response;
  const output = isObject(response)
    ? [response.stdout, response.stderr, response.output].map(text).filter(Boolean).join("\n")
    : text(response);
  return { command, output };
}

function phaseOf(sub: string, args: readonly string[]): Phase | null {
  if (args.includes("--help") || args.includes("-h")) return null;
  switch (sub) {
    case "run":
      return args.includes("--bg") ? "started" : "finished";
    case "crew":
      return "started";
    case "wait":
      return "finished";
    case "apply":
      return "applied";
    default:
      return null;
  }
}

/** Words that may come before the program: `env`, `time`, `npx` and the like. */
const PREFIXES = new Set(["env", "exec", "time", "command", "nohup", "npx", "bunx", "pnpx"]);

/** Where `pitroom` is the program of a command's words (after prefixes), or -1. */
function programAt(words: readonly string[]): number {
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (/(^|\/)pitroom$/.test(word)) return i;
    if (word === "deno" && words[i + 1] === "task" && words[i + 2] === "pitroom") return i + 2;
    if (!PREFIXES.has(word) && !/^[A-Za-z_]\w*=/.test(word) && !word.startsWith("-")) return -1;
  }
  return -1;
}

/** The Pitroom commands of a shell command line that start, finish or apply runs (pure). */
export function pitroomCalls(line: string): PitroomCall[] {
  const calls: PitroomCall[] = [];
  for (const words of shellCommands(line)) {
    const at = programAt(words);
    if (at < 0 || at + 1 >= words.length) continue;
    const [sub, ...args] = words.slice(at + 1);
    const phase = phaseOf(sub!, args);
    if (phase !== null) calls.push({ sub: sub!, args, phase });
  }
  return calls;
}

/** The run ids a call names or printed, first seen first (pure). */
export function runIdsOf(call: PitroomCall, output: string): string[] {
  const ids = call.args.filter(isRunId);
  for (const match of output.matchAll(LISTED_ID)) ids.push(match[1]!);
  return [...new Set(ids)].slice(0, MAX_CARDS);
}

function changesText(record: RunRecord): string | null {
  const files = record.changes?.files ?? [];
  if (files.length === 0) return MODES[record.mode].keepsChanges ? "no files changed" : null;
  const added = files.reduce((s, f) => s + f.added, 0);
  const removed = files.reduce((s, f) => s + f.removed, 0);
  const undone = record.changes?.reverted ? ", undone" : "";
  return `${files.length} file${files.length === 1 ? "" : "s"} +${added} -${removed}${undone}`;
}

/** The card of a run in a phase (pure). */
export function renderCard(record: RunRecord, phase: Phase, now: number): string {
  const time = formatDuration(runTime(record, now));
  const worker = workerLabel(record);
  const saved = record.receipt ? `saved ~${formatUsd(record.receipt.saved)} (estimate)` : null;
  let head: string;
  let details: (string | null)[];
  if (phase === "started") {
    head = `▶ pitroom ${record.id} ${record.state} · ${record.mode}`;
    details = [worker, `"${safeLine(record.task, 60)}"`];
  } else if (phase === "applied") {
    const files = record.isolation?.applied?.files.length ?? record.changes?.files.length ?? 0;
    head = `⇢ pitroom ${record.id} applied · ${files} file${files === 1 ? "" : "s"}`;
    details = [worker, changesText(record), saved];
  } else {
    const ok = record.state === "done";
    head = `${ok ? "✓" : "✗"} pitroom ${record.id} ${record.state} in ${time} · ${record.mode}`;
    details = [
      worker,
      changesText(record),
      ok ? null : safeLine(record.message ?? record.outcome ?? "", 80),
      saved,
    ];
  }
  return `${head}\n  ${details.filter((d): d is string => !!d).join(" · ")}`;
}

function shownIn(phase: Phase, record: RunRecord): boolean {
  if (phase === "finished") return isFinal(record.state);
  if (phase === "applied") return record.isolation?.applied !== undefined;
  return true;
}

/** The cards a hook input calls for, each marked shown (once per run and phase). */
export async function cardsFor(sys: Sys, input: HookInput): Promise<string[]> {
  const engine = createEngine(sys);
  const cards: string[] = [];
  for (const call of pitroomCalls(input.command)) {
    for (const id of runIdsOf(call, input.output)) {
      const record = await engine.peek(id);
      if (record === null || !shownIn(call.phase, record)) continue;
      if (await engine.markCardShown(id, call.phase)) {
        cards.push(renderCard(record, call.phase, sys.clock.now()));
      }
    }
  }
  return cards;
}

/** The most of a hook's input read (a tool's output rides in it); past it the call is not ours. */
const INPUT_LIMIT_BYTES = 8 * 1024 * 1024;

async function readStdin(): Promise<string> {
  if (Deno.stdin.isTerminal()) return "";
  const read = await readCapped(Deno.stdin.readable, INPUT_LIMIT_BYTES);
  return read.over ? "" : read.text;
}

/** Prints the cards of a PostToolUse hook call, or nothing. */
export const hookCardCommand: CommandRun<NoFlags> = async ({ sys }) => {
  const input = parseHookInput(await readStdin());
  if (input === null || pitroomCalls(input.command).length === 0) return 0;
  const cards = await cardsFor(sys, input);
  if (cards.length > 0) sys.out.stdout(JSON.stringify({ systemMessage: cards.join("\n") }) + "\n");
  return 0;
};
