/**
 * Scenario files (`DIR/NAME.json`) of the scripted model server: validation into typed turns,
 * the choice of scenario (model id or `[[scenario:NAME]]` marker) and of turn (tool-result rounds
 * after the latest user message). Everything here is pure except `loadScenario` and
 * `listScenarios`, which read the scenarios dir.
 */
import { join } from "node:path";
import type { Action, Conversation, ErrorKind } from "./dialect.ts";

/** An error a turn answers with. */
export interface TurnError {
  status: number;
  kind: ErrorKind;
  /** The scenario's message; absent: the dialect's usual text for the kind. */
  message?: string;
  retryAfterS?: number;
  /** Fail only the first N requests of the turn, then play it normally. */
  times?: number;
}

/** Token usage a turn reports (missing parts count 0). */
export interface TurnUsage {
  input: number;
  output: number;
  cached: number;
  reasoning: number;
}

/** One validated turn. */
export interface Turn {
  say?: string;
  answer?: string;
  /** The tool calls of the turn (one for a single action, several for `calls`). */
  calls: Action[];
  error?: TurnError;
  hang: boolean;
  delayMs: number;
  usage?: TurnUsage;
}

/** One validated scenario file. */
export interface Scenario {
  name: string;
  turns: Turn[];
  followup?: Turn[];
}

/** A scenario file that cannot be used, with the place of the fault. */
export class ScenarioError extends Error {
  override name = "ScenarioError";
}

/** The error kinds and the HTTP status each gets when the scenario gives none. */
export const ERROR_STATUS: Readonly<Record<ErrorKind, number>> = {
  model_not_found: 404,
  rate_limit: 429,
  quota: 429,
  quota_daily: 429,
  auth: 401,
  overloaded: 503,
  server: 500,
};

const ACTION_KEYS = ["read", "grep", "list", "write", "edit", "shell", "web", "tool"] as const;
const TURN_KEYS = new Set<string>([
  ...ACTION_KEYS,
  "say",
  "answer",
  "calls",
  "error",
  "hang",
  "delay_ms",
  "usage",
]);
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MARKER = /\[\[scenario:([A-Za-z0-9][A-Za-z0-9._-]*)\]\]/g;

/** Text the server sends when a scenario runs past its last turn and has no answer to repeat. */
export const DONE_TEXT = "done";

function fail(where: string, what: string): never {
  throw new ScenarioError(`${where}: ${what}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown, where: string): string {
  if (typeof value !== "string") fail(where, `expected a string, got ${JSON.stringify(value)}`);
  return value;
}

function count(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    fail(where, `expected a whole number >= 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

function fields(value: unknown, where: string, required: string[], optional: string[] = []) {
  if (!isObject(value)) fail(where, `expected an object with ${required.join(", ")}`);
  for (const key of required) {
    if (!(key in value)) fail(where, `missing "${key}"`);
  }
  for (const key of Object.keys(value)) {
    if (!required.includes(key) && !optional.includes(key)) fail(where, `unknown key "${key}"`);
  }
  return value;
}

function parseAction(key: (typeof ACTION_KEYS)[number], value: unknown, where: string): Action {
  const at = `${where}.${key}`;
  switch (key) {
    case "read":
      return { read: str(value, at) };
    case "list":
      return { list: str(value, at) };
    case "shell":
      return { shell: str(value, at) };
    case "web":
      return { web: str(value, at) };
    case "grep": {
      if (typeof value === "string") return { grep: value };
      const o = fields(value, at, ["pattern"], ["path"]);
      const pattern = str(o.pattern, `${at}.pattern`);
      return o.path === undefined
        ? { grep: { pattern } }
        : { grep: { pattern, path: str(o.path, `${at}.path`) } };
    }
    case "write": {
      const o = fields(value, at, ["path", "content"]);
      return {
        write: { path: str(o.path, `${at}.path`), content: str(o.content, `${at}.content`) },
      };
    }
    case "tool": {
      const o = fields(value, at, ["name"], ["input"]);
      const name = str(o.name, `${at}.name`);
      if (name === "") fail(`${at}.name`, "expected a tool name");
      const input = o.input ?? {};
      if (!isObject(input)) fail(`${at}.input`, "expected an object");
      return { tool: { name, input } };
    }
    case "edit": {
      const o = fields(value, at, ["path", "old", "new"]);
      return {
        edit: {
          path: str(o.path, `${at}.path`),
          old: str(o.old, `${at}.old`),
          new: str(o.new, `${at}.new`),
        },
      };
    }
  }
}

function singleAction(value: Record<string, unknown>, where: string): Action[] {
  const keys = ACTION_KEYS.filter((key) => key in value);
  if (keys.length > 1) fail(where, `more than one action (${keys.join(", ")}): use "calls"`);
  const key = keys[0];
  return key === undefined ? [] : [parseAction(key, value[key], where)];
}

function parseError(value: unknown, where: string): TurnError {
  const o = fields(value, where, ["kind"], ["status", "message", "retry_after_s", "times"]);
  const kind = str(o.kind, `${where}.kind`);
  if (!(kind in ERROR_STATUS)) {
    fail(
      `${where}.kind`,
      `unknown kind "${kind}" (one of ${Object.keys(ERROR_STATUS).join(", ")})`,
    );
  }
  const known = kind as ErrorKind;
  const status = o.status === undefined ? ERROR_STATUS[known] : count(o.status, `${where}.status`);
  if (status < 400 || status > 599) fail(`${where}.status`, `expected 400-599, got ${status}`);
  return {
    status,
    kind: known,
    ...(o.message === undefined ? {} : { message: str(o.message, `${where}.message`) }),
    ...(o.retry_after_s === undefined
      ? {}
      : { retryAfterS: count(o.retry_after_s, `${where}.retry_after_s`) }),
    ...(o.times === undefined ? {} : { times: count(o.times, `${where}.times`) }),
  };
}

function parseUsage(value: unknown, where: string): TurnUsage {
  const o = fields(value, where, ["input", "output"], ["cached", "reasoning"]);
  return {
    input: count(o.input, `${where}.input`),
    output: count(o.output, `${where}.output`),
    cached: o.cached === undefined ? 0 : count(o.cached, `${where}.cached`),
    reasoning: o.reasoning === undefined ? 0 : count(o.reasoning, `${where}.reasoning`),
  };
}

function parseTurn(value: unknown, where: string): Turn {
  if (!isObject(value)) fail(where, "expected an object");
  for (const key of Object.keys(value)) {
    if (!TURN_KEYS.has(key)) fail(where, `unknown key "${key}"`);
  }
  let calls = singleAction(value, where);
  if (value.calls !== undefined) {
    if (calls.length > 0) fail(where, `"calls" and a single action together`);
    if (!Array.isArray(value.calls) || value.calls.length === 0) {
      fail(`${where}.calls`, "expected a non-empty list of actions");
    }
    calls = value.calls.map((item, i) => {
      const at = `${where}.calls[${i}]`;
      if (!isObject(item)) fail(at, "expected an object with one action");
      const extra = Object.keys(item).filter((k) =>
        !(ACTION_KEYS as readonly string[]).includes(k)
      );
      if (extra.length > 0) fail(at, `unknown key "${extra[0]}"`);
      const action = singleAction(item, at)[0];
      if (action === undefined) fail(at, "expected one action");
      return action;
    });
  }
  if (value.answer !== undefined && calls.length > 0) {
    fail(where, `"answer" ends the model turn and cannot come with tool calls`);
  }
  if (value.hang !== undefined && typeof value.hang !== "boolean") {
    fail(`${where}.hang`, "expected true or false");
  }
  return {
    ...(value.say === undefined ? {} : { say: str(value.say, `${where}.say`) }),
    ...(value.answer === undefined ? {} : { answer: str(value.answer, `${where}.answer`) }),
    calls,
    ...(value.error === undefined ? {} : { error: parseError(value.error, `${where}.error`) }),
    hang: value.hang === true,
    delayMs: value.delay_ms === undefined ? 0 : count(value.delay_ms, `${where}.delay_ms`),
    ...(value.usage === undefined ? {} : { usage: parseUsage(value.usage, `${where}.usage`) }),
  };
}

function parseTurns(value: unknown, where: string): Turn[] {
  if (!Array.isArray(value) || value.length === 0) {
    fail(where, "expected a non-empty list of turns");
  }
  return value.map((turn, i) => parseTurn(turn, `${where}[${i}]`));
}

/** Validates the parsed JSON of scenario `name`; throws a `ScenarioError` naming the fault. */
export function parseScenario(name: string, json: unknown): Scenario {
  const where = `scenario "${name}"`;
  if (!isObject(json)) fail(where, 'expected an object with "turns"');
  for (const key of Object.keys(json)) {
    if (key !== "turns" && key !== "followup") fail(where, `unknown key "${key}"`);
  }
  if (json.turns === undefined) fail(where, `missing "turns"`);
  return {
    name,
    turns: parseTurns(json.turns, `${where} turns`),
    ...(json.followup === undefined
      ? {}
      : { followup: parseTurns(json.followup, `${where} followup`) }),
  };
}

/** True when `name` can name a scenario file (no path separators, no leading dot). */
export function isScenarioName(name: string): boolean {
  return NAME.test(name);
}

/**
 * Reads and validates `dir/NAME.json`; `null` when there is no such file (or the name cannot
 * name one), a `ScenarioError` when the file is not valid JSON or not a valid scenario.
 */
export async function loadScenario(dir: string, name: string): Promise<Scenario | null> {
  if (!isScenarioName(name)) return null;
  const file = join(dir, `${name}.json`);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(`scenario "${name}": ${file} is not JSON: ${String(error)}`);
  }
  return parseScenario(name, json);
}

/** The scenario names in `dir` (files `NAME.json`), sorted; empty when the dir is missing. */
export async function listScenarios(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".json")) continue;
      const name = entry.name.slice(0, -".json".length);
      if (isScenarioName(name)) names.push(name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return names.sort();
}

/**
 * The scenario a request names: the last `[[scenario:NAME]]` marker in the latest user message,
 * else the last `/`-separated part of the model id.
 */
export function scenarioName(conversation: Pick<Conversation, "model" | "latestUser">): string {
  const markers = [...conversation.latestUser.matchAll(MARKER)];
  const marked = markers.at(-1)?.[1];
  if (marked !== undefined) return marked;
  return conversation.model.split("/").at(-1) ?? conversation.model;
}

/** Where in a scenario a request is. */
export interface TurnChoice {
  /** `followup` when the request is a follow-up and the scenario has a followup list. */
  list: "turns" | "followup";
  /** Index into that list (may be past its end). */
  index: number;
  /** The turn to play; `null` past the last turn. */
  turn: Turn | null;
}

/** Chooses the turn from the request alone (follow-up or not, tool-result rounds). */
export function chooseTurn(
  scenario: Scenario,
  conversation: Pick<Conversation, "userTurns" | "toolRounds">,
): TurnChoice {
  const followup = conversation.userTurns > 1 && scenario.followup !== undefined;
  const list = followup ? "followup" : "turns";
  const turns = (followup ? scenario.followup : scenario.turns) ?? scenario.turns;
  const index = conversation.toolRounds;
  return { list, index, turn: turns[index] ?? null };
}

/** The text played past the last turn: the last answer of the list played, else `done`. */
export function pastEndText(scenario: Scenario, list: TurnChoice["list"]): string {
  const turns = (list === "followup" ? scenario.followup : scenario.turns) ?? scenario.turns;
  for (let i = turns.length - 1; i >= 0; i--) {
    const answer = turns[i]?.answer;
    if (answer !== undefined) return answer;
  }
  return DONE_TEXT;
}
