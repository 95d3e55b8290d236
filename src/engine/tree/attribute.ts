/**
 * Which changed paths of a write or read run are the worker's: pure, from the paths the
 * snapshots found changed and the worker's normalized tool calls (its events file). A path is
 * the worker's when a tool call could have changed it:
 *
 * - an edit or write call that names it (by its path relative to the worker's folder or its
 *   absolute path; a target the parser shortened with "…" names every path it could be cut
 *   from, and a target that names several paths, as codex's patches do, names each of them);
 * - any call that runs a command (kind `shell`, or codex's `exec_command` whatever its kind,
 *   which only labels the command's first program) other than the few certainly read-only ones
 *   (confine/read_only_command.ts), starts a sub-agent (`task`), or is a tool Pitroom does not
 *   know (`other`, but for the to-do and memory tools), and an edit or write call without a
 *   target: a command can start any
 *   program, and a program can write anywhere, so such a call could have changed every path of
 *   the tree (a command is not bounded by the paths in its text or by its folder).
 *
 * Calls the worker was denied are left out. When the times are known (`until`, the worker's
 * last recorded activity, and each path's last change), a call counts only for changes that
 * landed before it was reported: an edit or write call is reported once its file is written, so
 * a file last changed after the call's event is not that call's; a command may have left
 * programs running, so it counts up to `until`. A path last changed after every call that could
 * have changed it (a user's edit on top of the worker's, an edit after the worker was gone) is
 * not the worker's. Every path that is not the worker's is reported apart.
 */
import type { PitroomEvent } from "../../events/mod.ts";
import { join, normalize } from "../../sys/path.ts";
import { readsOnly } from "../../confine/read_only_command.ts";

/** A changed path (relative to the repository root) and when it was last changed, if known. */
export interface ChangedPath {
  path: string;
  /** Last change (ms since the epoch, from the file's times); null or absent when unknown. */
  changedAt?: number | null;
}

/** What attribution needs besides the changed paths. */
export interface AttributeOptions {
  /** The worker's events (other events are ignored). */
  events: readonly PitroomEvent[];
  /** Absolute spellings of the repository root (as given and resolved), for absolute targets. */
  roots: readonly string[];
  /** The worker's folder relative to the root ("" for the root itself). */
  cwd: string;
  /** Count a line the worker's parser did not understand as a call that could change anything. */
  unknownChanges?: boolean;
  /**
   * The worker's last recorded activity (ms since the epoch, the clock of the events' times);
   * without it the paths' times are not used.
   */
  until?: number;
}

/** The changed paths split by who could have changed them. */
export interface Attribution {
  /** Paths a tool call of the worker could have changed. */
  worker: string[];
  /** Paths changed while the run worked (or after), not by a tool the worker called. */
  others: string[];
  /** True when some call (a command, say) could have changed any path. */
  unbounded: boolean;
}

/** Tools that run a shell command whatever kind their parser gives the call. */
const COMMAND_TOOLS = new Set(["exec_command"]);
/**
 * Tools of kind `other` that keep their state outside the tree (to-do lists, plans, memory):
 * claude's, opencode's and gemini's.
 */
const NO_FILE_TOOLS = new Set([
  "TodoWrite",
  "TodoRead",
  "ExitPlanMode",
  "todowrite",
  "todoread",
  "write_todos",
  "save_memory",
]);
/** Kinds of call that change no file (when the tool is not a command runner). */
const READING_KINDS = new Set(["read", "search", "list", "web"]);

/** A file-changing call's target, when it started (as far as known) and when it was reported. */
export interface NamedCall {
  target: string;
  /**
   * When it started at the earliest: the event's `started`, else (a record made before parsers
   * gave one) the worker's event before it.
   */
  from: number;
  /** When it ended: as the CLI tells it, else when it was reported. */
  to: number;
  time: number;
}

/** What the worker's calls could have changed. */
export interface ChangingCalls {
  /** The calls that name the files they change. */
  named: NamedCall[];
  /** True when some call could have changed any file. */
  unbounded: boolean;
  /** When the first such call started (as `NamedCall.from`). */
  unboundedFrom?: number;
}

/** The file-changing calls that name their files, and whether any call could change anything. */
export function changingCalls(
  events: readonly PitroomEvent[],
  options: { unknownChanges?: boolean } = {},
): ChangingCalls {
  const named: NamedCall[] = [];
  const out: ChangingCalls = { named, unbounded: false };
  let previous: number | undefined;
  const anything = (from: number) => {
    out.unbounded = true;
    out.unboundedFrom = Math.min(out.unboundedFrom ?? from, from);
  };
  for (const ev of events) {
    const before = previous;
    if (ev.type.startsWith("worker.")) previous = ev.time;
    if (ev.type === "worker.unknown" && options.unknownChanges) anything(before ?? ev.time);
    if (ev.type !== "worker.tool_call" || ev.status === "denied") continue;
    const from = Math.min(ev.started ?? before ?? ev.time, ev.time);
    if (COMMAND_TOOLS.has(ev.tool) || ev.kind === "shell") {
      if (!readsOnly(ev.target)) anything(from);
    } else if (READING_KINDS.has(ev.kind) || NO_FILE_TOOLS.has(ev.tool)) continue;
    else if ((ev.kind === "edit" || ev.kind === "write") && ev.target.trim() !== "") {
      named.push({
        target: ev.target,
        from,
        to: Math.min(ev.ended ?? ev.time, ev.time),
        time: ev.time,
      });
    } else anything(from);
  }
  return out;
}

/**
 * How long before a call's start a write still counts as its own (ms): a file's change time comes
 * from the kernel's coarse clock, which lags the clock the start was read from by up to a tick.
 */
export const START_SLACK_MS = 20;
/**
 * How long after a call ended a change still counts as its own (ms): a file's change time lags
 * the clock by up to a kernel tick, and a deletion is dated by the event that announced it.
 */
export const END_SLACK_MS = 20;

/**
 * The windows in which the worker's calls could have written `path`: each call naming it, from
 * its start to its report, and with a command, from the first command's start to `until`.
 */
export function windowsFor(
  path: string,
  calls: ChangingCalls,
  options: Omit<AttributeOptions, "events" | "until"> & { until: number },
): { from: number; to: number }[] {
  const forms = spellings(path, { ...options, events: [] });
  const windows = calls.named
    .filter((call) => forms.some((spelling) => targetNames(call.target, spelling)))
    .map((call) => ({
      from: call.from - START_SLACK_MS,
      to: Math.min(call.to, options.until) + END_SLACK_MS,
    }));
  if (calls.unbounded) {
    windows.push({
      from: (calls.unboundedFrom ?? -Infinity) - START_SLACK_MS,
      to: options.until + END_SLACK_MS,
    });
  }
  return windows;
}

/** `path` relative to the folder `from` (both relative to the same root). */
function relativeTo(from: string, path: string): string {
  if (from === "") return path;
  const a = from.split("/");
  const b = path.split("/");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/");
}

/** The ways a target can spell `path`, whitespace collapsed as the parsers do. */
function spellings(path: string, options: AttributeOptions): string[] {
  const cwd = normalize(options.cwd === "" ? "." : options.cwd);
  const rel = relativeTo(cwd === "." ? "" : cwd, path);
  const forms = [rel, `./${rel}`, ...options.roots.map((root) => join(root, path))];
  return forms.map((form) => form.replace(/\s+/g, " ").trim());
}

/**
 * True when `target` (one target, or several separated by spaces, possibly shortened with "…"
 * at its end or start) names `spelling`.
 */
export function targetNames(target: string, spelling: string): boolean {
  let body = target.trim();
  const cutEnd = body.endsWith("…");
  if (cutEnd) body = body.slice(0, -1);
  const cutStart = body.startsWith("…");
  if (cutStart) body = body.slice(1);
  if (body === spelling || ` ${body} `.includes(` ${spelling} `)) return true;
  for (let i = 0; i < body.length; i++) {
    const starts = i === 0 || body[i - 1] === " ";
    const ends = i === body.length - 1 || body[i + 1] === " ";
    // The last word of a target cut at its end may be any path it begins.
    if (cutEnd && starts && spelling.startsWith(body.slice(i))) return true;
    // The first word of a target cut at its start may be any path it ends.
    if (cutStart && ends && spelling.endsWith(body.slice(0, i + 1))) return true;
  }
  return false;
}

/** Splits `changed` into the paths the worker's recorded calls could have changed and the rest. */
export function attribute(
  changed: readonly ChangedPath[],
  options: AttributeOptions,
): Attribution {
  const { named, unbounded } = changingCalls(options.events, options);
  const out: Attribution = { worker: [], others: [], unbounded };
  const until = options.until;
  for (const { path, changedAt } of changed) {
    // A change counts for a call reported at `reach` or later when the times are known.
    const inTime = (reach: number) =>
      until === undefined || changedAt == null || changedAt <= reach;
    const forms = spellings(path, options);
    const worker = (unbounded && inTime(until ?? Infinity)) ||
      named.some((call) =>
        inTime(Math.min(call.time, until ?? Infinity)) &&
        forms.some((spelling) => targetNames(call.target, spelling))
      );
    (worker ? out.worker : out.others).push(path);
  }
  return out;
}
