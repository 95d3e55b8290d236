/**
 * Bad input for a backend's parser, made from its own recorded streams (so every branch the real
 * CLI reaches gets the bad values): lines torn at any byte, binary noise, nesting far deeper than
 * any CLI writes, fields of the wrong type, prototype keys (`constructor`, `toString`,
 * `hasOwnProperty`, `__proto__`) as names, ids and keys, megabyte lines, `1e400` and negative
 * numbers. `fuzzBackend()` feeds it all, stream by stream with one state each as an attempt would,
 * through `parse`, `parseStderr` and `classify`, and fails on the first event that is not a valid
 * event of the union, an `unknown` event longer than its bound, or a throw.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isEvent, OUTCOME_CLASSES, type WorkerEvent } from "../../../src/events/mod.ts";
import { UNKNOWN_RAW_CHARS } from "../../../src/workers/_json.ts";
import type { Backend, ProcessEnd } from "../../../src/workers/types.ts";
import { readAt } from "../../support/line_time.ts";

/** A small seeded PRNG (mulberry32), so a failure can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROTO_KEYS = ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"];
const HUGE = "x".repeat(1_100_000);
const DEEP = "[".repeat(100_000) + "]".repeat(100_000);
const DEEP_OBJECT = '{"a":'.repeat(50_000) + "1" + "}".repeat(50_000);

/** A placeholder string that is swapped for raw JSON text after `JSON.stringify`. */
const RAW = "\u0000RAW\u0000";

/** Values of every JSON type and then some, as raw JSON text. */
const WRONG_VALUES = [
  "null",
  "true",
  "0",
  "-1",
  "-12345",
  "1e400",
  "-1e400",
  "1.5",
  '""',
  '"constructor"',
  '"__proto__"',
  "[]",
  "[1,2]",
  "{}",
  '{"__proto__":{"polluted":true}}',
  JSON.stringify(HUGE),
  DEEP,
  DEEP_OBJECT,
];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

/** Every path to a value inside `value` (objects and arrays), at most `limit` of them. */
function paths(value: unknown, limit = 400): (string | number)[][] {
  const out: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (out.length >= limit) return;
    if (path.length > 0) out.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    }
  };
  walk(value, []);
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1);
  if (last !== undefined) node[last] = value;
}

/** One line changed in one of the ways bad input comes. */
export function mutate(line: string, rand: () => number): string {
  const kind = Math.floor(rand() * 9);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    value = undefined;
  }
  switch (kind) {
    case 0: // torn: a prefix or a suffix, cut anywhere (a UTF-16 half included)
      return rand() < 0.5
        ? line.slice(0, Math.floor(rand() * line.length))
        : line.slice(Math.floor(rand() * line.length));
    case 1: { // binary noise, NULs and lone surrogates included
      const bytes = crypto.getRandomValues(new Uint8Array(1 + Math.floor(rand() * 200)));
      const noise = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
      return rand() < 0.5 ? noise : `${line.slice(0, 20)}${noise}\u0000\ud800${line.slice(20)}`;
    }
    case 2: // a huge line, JSON or not
      return rand() < 0.5 ? HUGE : line.replace(/"([^"\\]{1,40})"/, `"$1${HUGE}"`);
    case 3: // numbers out of range or negative
      return line.replace(
        /(?<=[:,[])\s*\d+(?:\.\d+)?/g,
        () => pick(rand, ["1e400", "-3", "-1e400"]),
      );
    default:
      break;
  }
  if (value === undefined || typeof value !== "object" || value === null) return line;
  const all = paths(value);
  if (all.length === 0) return line;
  switch (kind) {
    case 4:
    case 5: { // a field of the wrong type (a deep or huge one included)
      const raw = pick(rand, WRONG_VALUES);
      setAt(value, pick(rand, all), RAW);
      return JSON.stringify(value).replace(JSON.stringify(RAW), raw);
    }
    case 6: { // prototype keys as names and ids
      for (const path of all) {
        const v = path.reduce<unknown>(
          (n, k) => (n as Record<string | number, unknown>)?.[k],
          value,
        );
        if (typeof v === "string" && rand() < 0.5) setAt(value, path, pick(rand, PROTO_KEYS));
      }
      return JSON.stringify(value);
    }
    case 7: { // prototype keys as keys
      const at = pick(rand, all).slice(0, -1);
      const parent = at.reduce<unknown>(
        (n, k) => (n as Record<string | number, unknown>)?.[k],
        value,
      );
      if (typeof parent !== "object" || parent === null || Array.isArray(parent)) return line;
      const key = pick(rand, PROTO_KEYS);
      return JSON.stringify(value).replace(/^\{/, `{"${key}":{"type":"tool_use"},`);
    }
    default: { // a line of the right type with nothing else
      const type = (value as { type?: unknown }).type;
      return JSON.stringify({ type, ...(rand() < 0.5 ? { [pick(rand, PROTO_KEYS)]: 1 } : {}) });
    }
  }
}

/** Lines no CLI writes, whatever the backend. */
export const ODD_LINES: readonly string[] = [
  "",
  " ",
  "null",
  "[]",
  "42",
  '"text"',
  "{}",
  '{"type":null}',
  '{"type":"__proto__"}',
  '{"type":"constructor"}',
  '{"__proto__":{"type":"result"}}',
  DEEP,
  DEEP_OBJECT,
  HUGE,
  "\u0000\u0001\u0002\ufffd\ud800",
];

/** The recorded stdout streams of a backend (`testdata/*.jsonl`), by name. */
export async function recordedStreams(dir: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
    const text = await Deno.readTextFile(join(dir, entry.name));
    out.set(entry.name, text.split("\n").filter((line) => line.trim() !== ""));
  }
  return out;
}

function check(events: readonly WorkerEvent[], where: string): void {
  for (const e of events) {
    assert.ok(isEvent(e), `${where}: not a valid event: ${JSON.stringify(e).slice(0, 300)}`);
    if (e.type === "worker.unknown") {
      assert.ok(e.raw.length <= UNKNOWN_RAW_CHARS, `${where}: unknown raw of ${e.raw.length}`);
    }
  }
}

const ENDS: ProcessEnd[] = [
  { code: 0, signal: null, timedOut: false, stopped: false, stderr: "" },
  { code: 1, signal: null, timedOut: false, stopped: false, stderr: HUGE },
  { code: 173, signal: null, timedOut: false, stopped: false, stderr: "\u0000\n\nerror\n" },
  { code: null, signal: "SIGKILL", timedOut: false, stopped: false, stderr: "" },
];

/** Options of `fuzzBackend`. */
export interface FuzzOptions {
  /** The backend's recorded streams. */
  streams: Map<string, string[]>;
  /** Stderr lines the backend reads (its refusal and log lines), to mutate too. */
  stderr?: readonly string[];
  /** Rounds over every stream, each with other mutations. @default 12 */
  rounds?: number;
  seed?: number;
}

/** Feeds a backend's parser and classifier bad input; throws on the first invalid event. */
export function fuzzBackend(backend: Backend, options: FuzzOptions): { lines: number } {
  const rand = prng(options.seed ?? 13);
  let lines = 0;
  for (let round = 0; round < (options.rounds ?? 12); round++) {
    for (const [name, stream] of options.streams) {
      const where = `${backend.name} ${name} round ${round}`;
      const state = backend.newState();
      const events: WorkerEvent[] = [];
      const all = [...stream, ...(round === 0 ? ODD_LINES : [])];
      for (const line of all) {
        const bad = rand() < 0.5 ? mutate(line, rand) : line;
        const got = backend.parse(bad, state, readAt(1));
        check(got, `${where}: ${bad.slice(0, 120)}`);
        events.push(...got);
        lines++;
      }
      for (const line of [...(options.stderr ?? []), ...ODD_LINES.slice(0, 6)]) {
        const bad = rand() < 0.5 ? mutate(line, rand) : line;
        const got = backend.parseStderr(bad, state, readAt(1));
        check(got, `${where} stderr: ${bad.slice(0, 120)}`);
        events.push(...got);
        lines++;
      }
      for (const end of ENDS) {
        const outcome = backend.classify(end, events);
        assert.ok(OUTCOME_CLASSES.includes(outcome.class), `${where}: class ${outcome.class}`);
        assert.equal(typeof outcome.message, "string");
        if (outcome.retryAfterMs !== undefined) {
          assert.ok(
            Number.isFinite(outcome.retryAfterMs) && outcome.retryAfterMs >= 0,
            `${where}: retryAfterMs ${outcome.retryAfterMs}`,
          );
        }
      }
    }
  }
  return { lines };
}
