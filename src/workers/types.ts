/**
 * The face every worker backend shows the engine. A backend describes a launch (argv, env, files,
 * cwd, stdin) and turns its CLI's output into the event union with pure functions; the engine's
 * process shell does the spawning, streaming, teeing, timing out and killing.
 */
import type { OutcomeClass, WorkerEvent } from "../events/mod.ts";
import type { Runner } from "../sys/mod.ts";

import type { Mode, WorkerName } from "./names.ts";

export { FREE_WORKERS, freeFirst, type Mode, WORKER_NAMES, type WorkerName } from "./names.ts";

/** What a backend needs to describe one launch. */
export interface RunSpec {
  mode: Mode;
  /** The full prompt text the worker gets (task plus Pitroom's rules). */
  prompt: string;
  /** Where the worker works (the repo, or the isolated copy). */
  cwd: string;
  /** A private folder of this attempt for homes, config and profiles. */
  privateDir: string;
  model?: string;
  effort?: string;
  /** Allow web fetch and search. */
  web: boolean;
  /** Continue this worker session (a follow-up). */
  sessionId?: string;
  /** The environment the worker starts from, already scrubbed of secrets Pitroom knows. */
  baseEnv: Record<string, string>;
  /** Directories the guard shim lives in, put first on PATH. */
  pathPrefix?: string[];
}

/** A file the engine writes before launch (profiles, private config). */
export interface LaunchFile {
  path: string;
  content: string;
  /** File mode; 0o600 by default. */
  mode?: number;
}

/** A launch, described. */
export interface Launch {
  argv: string[];
  /** The complete environment of the worker process. */
  env: Record<string, string>;
  cwd: string;
  files: LaunchFile[];
  /** The prompt written to stdin, which is then closed; `null` for a closed stdin. */
  stdin: string | null;
  /**
   * A worker talked to over its stdin and stdout (the Agent Client Protocol) instead of given a
   * prompt once: stdin stays open, the process shell writes what the talk says and hands it each
   * stdout line, which the talk (not `Backend.parse`) turns into events. Its `stdin` is null.
   * @default none
   */
  talk?: Talk;
  /**
   * Folders the CLI keeps its own state, sessions and caches in: writable inside the sandbox
   * (src/confine/sandbox/), made when missing.
   * @default none
   */
  state?: string[];
  /**
   * The argv to run instead when Pitroom's sandbox wraps the launch: the CLI's own sandbox
   * turned off in favour of ours where it cannot work nested (claude).
   * @default argv
   */
  inSandbox?: string[];
  /**
   * A set-up the CLI does by itself on its very first start, which two first starts at once
   * break (OpenCode creates and migrates its database): while `marker` does not exist, Pitroom
   * runs `argv` first, one process at a time (engine/run/first_start.ts).
   */
  firstStart?: { marker: string; argv: string[] };
  /**
   * Launches that give the same name start one at a time: the next one starts once this one
   * printed its first line on stdout or ended (engine/run/start_alone.ts). Codex makes a helper
   * folder of its own under `CODEX_HOME/tmp/arg0` as it starts and deletes the ones it finds
   * unlocked, so a codex starting beside another can lose its folder; its patches then fail
   * ("Failed to write file").
   */
  startAlone?: string;
}

/** What a talk makes of one line of the worker's stdout. */
export interface Heard {
  /** The events of the line (as `Backend.parse` would give them). */
  events: WorkerEvent[];
  /** Lines to write to the worker's stdin, in order (each without its newline). */
  say: string[];
  /** The conversation is over: the shell closes stdin and ends the process. */
  over: boolean;
}

/**
 * One conversation with a worker over its stdin (workers/acp/talk.ts): what to say first, what to
 * answer each line, and how to ask it to stop. It keeps its own state: one per launch.
 */
export interface Talk {
  /** Lines written as soon as the process runs. */
  open(): string[];
  /** Turns one stdout line into events and what to answer. */
  hear(line: string, at: LineTime): Heard;
  /** Lines that ask the worker to end its turn (a stop, a timeout, a cap). */
  cancel(): string[];
}

/** How the worker process ended. */
export interface ProcessEnd {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Stopped by `pitroom stop`. */
  stopped: boolean;
  /** The last part of stderr (up to 64 KiB). */
  stderr: string;
  /**
   * The launcher lost the worker (a remote host's connection dropped), said in one line: what it
   * did is unknown past what arrived, and the run ends `lost`.
   */
  lost?: string;
}

/** What `classify` makes of an ended attempt. */
export interface Outcome {
  class: OutcomeClass;
  /** One line for people. */
  message: string;
  /** How long the provider asked to wait, when it said. */
  retryAfterMs?: number;
  /** A per-day quota (cools until the next local midnight when no time is given). */
  daily?: boolean;
}

/** An installed worker CLI. */
export interface Installed {
  binary: string;
  /**
   * The first `x.y.z` its `--version` prints; when there is none, that output's first line as
   * printed (control characters replaced, at most 80 characters; "" when it printed nothing).
   */
  version: string;
}

/**
 * The versions of its CLI a backend was tested with: every suite (the parser fixtures, the e2e
 * runs against the scripted model server) passed on `pinned`, and `min`..`max` (inclusive) is
 * the span that is known to work. A bound is only ever a version a suite ran on: the comment
 * beside each declaration says what it rests on. `pitroom doctor` warns about a version outside
 * (tests/workers/tested_test.ts keeps scripts/install_workers.sh's pins inside).
 */
export interface TestedVersions {
  /** The version scripts/install_workers.sh installs for the tests. */
  pinned: string;
  /** The oldest version tested (inclusive). */
  min: string;
  /** The newest version tested (inclusive). */
  max: string;
  /** What may break on another version: the CLI surfaces the backend relies on (a phrase). */
  relies: string;
}

/** A model a worker offers. */
export interface ModelInfo {
  id: string;
  efforts: string[];
  defaultEffort?: string;
  source: "cli" | "builtin" | "config";
}

/**
 * When a line of a CLI's output reached Pitroom, and what that says about when the CLI wrote it
 * (ms since the epoch, Pitroom's clock). The line was written between `since` and `time`: `time`
 * is an upper bound only (a busy host reads late, and often several lines in one chunk), so a
 * call's start is never taken from it; `since` is a true lower bound (engine/run/lines.ts).
 */
export interface LineTime {
  /** When the line was read: the CLI wrote it no later. Events are stamped with it. */
  time: number;
  /** A moment the CLI certainly wrote the line after. */
  since: number;
  /** When the process was started: no line of it, and no time it states, is older. */
  start: number;
}

/** Mutable per-stream state a parser keeps between lines (pure: owned by the caller). */
export interface ParseState {
  steps: number;
  /** Backend-specific scratch, JSON-serialisable. */
  scratch: Record<string, unknown>;
}

/** The face of a backend. */
export interface Backend {
  /** A built-in backend's name, or the config's name of a configured (ACP) worker. */
  readonly name: string;
  /**
   * The built-in CLI whose login, provider credentials and config files the sandbox and the
   * environment treat as this worker's (null: none, every CLI's login hidden).
   * @default `name`
   */
  readonly cli?: WorkerName | null;
  /**
   * Whether the CLI always reports the tokens it used. A worker that may not (an ACP agent) has
   * its attempts without a token report recorded as "not reported", never as zero.
   * @default true
   */
  readonly reportsTokens?: boolean;
  /**
   * Variables of the caller's environment the worker keeps although their names look like
   * credentials (an ACP worker's configured `env`).
   * @default none
   */
  readonly keepEnv?: readonly string[];
  /** The CLI versions this backend was tested with. */
  readonly tested: TestedVersions;
  /** Finds the CLI on PATH and reads its version. */
  detect(runner: Runner, env: Record<string, string>): Promise<Installed | null>;
  /** Describes the launch of one attempt. */
  launch(spec: RunSpec): Launch;
  /** A fresh parse state. */
  newState(): ParseState;
  /**
   * Turns one line of the CLI's stdout into events (pure). `at.time` stamps the events; a tool
   * call's `started` is a true lower bound of its start: the CLI's own time where it states one
   * that `at` makes believable, else `at.since` (`callStart` of workers/_time.ts).
   */
  parse(line: string, state: ParseState, at: LineTime): WorkerEvent[];
  /** Turns a line of stderr into events, for CLIs that report there (pure). */
  parseStderr(line: string, state: ParseState, at: LineTime): WorkerEvent[];
  /** Classifies an ended attempt (pure). */
  classify(end: ProcessEnd, events: readonly WorkerEvent[]): Outcome;
  /** Models this worker offers. */
  models(runner: Runner, env: Record<string, string>): Promise<ModelInfo[]>;
}
