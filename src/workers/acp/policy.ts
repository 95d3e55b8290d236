/**
 * How Pitroom answers an ACP agent's `session/request_permission` (pure): at once, by the run's
 * mode, never left waiting for a person.
 * - Always refused: a call that names a path outside the worker's tree or inside a `.git`, a
 *   command of the floor (confine/floor.ts: git history, sudo, publishing, Pitroom itself,
 *   recursive deletion), the web unless the run allows it.
 * - read: only reading, searching and thinking are allowed; edits, deletions, moves, commands and
 *   anything the agent does not name are refused.
 * - write and isolate: edits and commands within the tree are allowed too.
 * The answer picks the agent's `allow_once` option, or its `reject_once` one; never an "always"
 * option (the agent would remember it beyond the run), and `cancelled` when no fitting option is
 * offered. The sandbox holds whatever an agent does without asking.
 */
import { deniedCommandPrefixes } from "../../confine/floor.ts";
import { isObject, type Json, str } from "../_json.ts";
import { isAbsolute, join, normalize } from "../../sys/path.ts";
import { MODES } from "../modes.ts";
import type { Mode } from "../types.ts";

/** What the policy knows of the run. */
export interface PolicyRun {
  mode: Mode;
  /** Whether the run may reach the web. */
  web: boolean;
  /** The worker's tree (absolute). */
  cwd: string;
}

/** A decision, with why for a refusal. */
export type Decision = { allow: true } | { allow: false; why: string };

const FLOOR = deniedCommandPrefixes();

/** Tool kinds (ACP's `ToolKind`) a read run may use. */
const READING = new Set(["read", "search", "think"]);
/** Tool kinds that change files. */
const CHANGING = new Set(["edit", "delete", "move"]);

/** The paths a tool call names: its locations, its diffs, and path-like raw inputs. */
export function callPaths(call: Json): string[] {
  const out: string[] = [];
  if (Array.isArray(call.locations)) {
    for (const loc of call.locations) {
      if (isObject(loc) && str(loc.path)) out.push(loc.path as string);
    }
  }
  if (Array.isArray(call.content)) {
    for (const item of call.content) {
      if (isObject(item) && item.type === "diff" && str(item.path)) out.push(item.path as string);
    }
  }
  const raw = isObject(call.rawInput) ? call.rawInput : {};
  for (const key of ["path", "file_path", "filePath", "absolute_path", "dir_path", "cwd"]) {
    const value = str(raw[key]);
    if (value !== undefined && value !== "") out.push(value);
  }
  return out;
}

/** The command a tool call runs, where it says one. */
export function callCommand(call: Json): string | undefined {
  const raw = isObject(call.rawInput) ? call.rawInput : {};
  const command = raw.command;
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.every((c) => typeof c === "string")) {
    return command.join(" ");
  }
  return call.kind === "execute" ? str(call.title) : undefined;
}

/** Where `path` stands against the tree: inside, inside a `.git`, or outside. */
function placeOf(path: string, cwd: string): "inside" | "git" | "outside" {
  const full = normalize(isAbsolute(path) ? path : join(cwd, path));
  const root = normalize(cwd).replace(/\/+$/, "");
  if (full !== root && !full.startsWith(root + "/")) return "outside";
  const rest = full.slice(root.length).split("/");
  return rest.includes(".git") ? "git" : "inside";
}

/** The floor's prefix a command starts with (in any of its `;`, `&&`, `|` parts), if any. */
export function floorHit(command: string): string | undefined {
  for (const part of command.split(/;|&&|\|\||\||\n|`|\$\(|\(/)) {
    const words = part.trim().split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    const text = words.join(" ");
    const base = text.replace(/^\S*\//, "");
    for (const prefix of FLOOR) {
      for (const candidate of [text, base]) {
        if (candidate === prefix || candidate.startsWith(prefix + " ")) return prefix;
      }
    }
  }
  return undefined;
}

/** Decides one permission request's tool call for the run (pure). */
export function decide(call: Json, run: PolicyRun): Decision {
  const kind = str(call.kind) ?? "other";
  for (const path of callPaths(call)) {
    const place = placeOf(path, run.cwd);
    if (place === "outside") return { allow: false, why: `${path} is outside the worker's tree` };
    if (place === "git") return { allow: false, why: `${path} is inside a .git folder` };
  }
  const command = callCommand(call);
  if (command !== undefined) {
    const hit = floorHit(command);
    if (hit !== undefined) return { allow: false, why: `"${hit}" is never allowed (the floor)` };
  }
  if (kind === "fetch" && !run.web) return { allow: false, why: "the run has no web access" };
  if (MODES[run.mode].edits) return { allow: true };
  if (READING.has(kind) || (kind === "fetch" && run.web)) return { allow: true };
  if (CHANGING.has(kind)) return { allow: false, why: "a read run changes nothing" };
  if (kind === "execute") return { allow: false, why: "a read run runs no commands" };
  return { allow: false, why: `a read run allows only reading ("${kind}" asked)` };
}

/** The outcome of a permission request for a decision and the options the agent offered. */
export function outcomeFor(decision: Decision, options: unknown): Json {
  const offered = Array.isArray(options) ? options.filter(isObject) : [];
  const want = decision.allow ? "allow_once" : "reject_once";
  const option = offered.find((o) => o.kind === want && str(o.optionId) !== undefined);
  return option === undefined
    ? { outcome: "cancelled" }
    : { outcome: "selected", optionId: option.optionId as string };
}
