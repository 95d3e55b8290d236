/**
 * The one error family of Pitroom. Every failure a user can see is a `PitroomError` with a stable
 * `code` slug, the process exit code it maps to, and at most one hint naming the next command.
 */

/** Exit codes, as documented in docs/troubleshooting.md and `pitroom help`. */
export const Exit = {
  ok: 0,
  workerFailed: 1,
  usage: 2,
  refused: 3,
  timeout: 4,
  readOnlyViolation: 5,
  verifyFailed: 6,
  damagedRecord: 7,
  stillRunning: 75,
} as const;

/** Options every Pitroom error accepts. */
export interface ErrorOptions {
  /** One hint naming the exact command to run next. */
  hint?: string;
  cause?: unknown;
}

/** Base class: a stable code slug, an exit code, an optional hint. */
export class PitroomError extends Error {
  readonly code: string;
  readonly exit: number;
  readonly hint: string | undefined;

  constructor(code: string, exit: number, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exit = exit;
    this.hint = options.hint;
  }
}

/** Bad flags, arguments or input: exit 2. */
export class UsageError extends PitroomError {
  constructor(message: string, options: ErrorOptions = {}) {
    super("usage", Exit.usage, message, options);
  }
}

/** Pitroom refused, or setup is missing: exit 3. */
export class RefusedError extends PitroomError {
  constructor(code: string, message: string, options: ErrorOptions = {}) {
    super(code, Exit.refused, message, options);
  }
}

/** A run or a wait ran out of time: exit 4. */
export class TimeoutError extends PitroomError {
  constructor(message: string, options: ErrorOptions = {}) {
    super("timeout", Exit.timeout, message, options);
  }
}

/** A read run changed the tree: exit 5. */
export class ReadOnlyViolation extends PitroomError {
  constructor(message: string, options: ErrorOptions = {}) {
    super("read_only_violation", Exit.readOnlyViolation, message, options);
  }
}

/** The --verify command failed: exit 6. */
export class VerifyFailed extends PitroomError {
  constructor(message: string, options: ErrorOptions = {}) {
    super("verify_failed", Exit.verifyFailed, message, options);
  }
}

/**
 * A file of a run's record (`run.json`, its events file, its patch) or a history row is damaged:
 * exit 7. The message names the file and what still works (`works`: the commands that do).
 */
export class DamagedRecord extends PitroomError {
  /** The run. */
  readonly run: string;
  /** The damaged file (`run.json`, `events.jsonl.gz`, `patch.diff`, `history.db`). */
  readonly file: string;
  /** What is wrong with it (the reader's own words). */
  readonly detail: string;
  /** What still works despite the damage, each a command with where it reads from. */
  readonly works: readonly string[];

  constructor(
    damage: { run: string; file: string; detail: string; works?: readonly string[] },
    options: ErrorOptions = {},
  ) {
    const works = damage.works ?? [];
    super(
      "damaged_record",
      Exit.damagedRecord,
      `Run "${damage.run}": ${damage.file} is damaged (${damage.detail})${
        works.length > 0 ? `; still works: ${works.join(", ")}` : ""
      }`,
      options,
    );
    this.run = damage.run;
    this.file = damage.file;
    this.detail = damage.detail;
    this.works = works;
  }

  /** The same damage with what still works put in. */
  withWorks(works: readonly string[]): DamagedRecord {
    const { run, file, detail } = this;
    return new DamagedRecord({ run, file, detail, works }, { cause: this.cause });
  }
}

/** Waiting ended while runs are still going: exit 75. */
export class StillRunning extends PitroomError {
  constructor(message: string, options: ErrorOptions = {}) {
    super("still_running", Exit.stillRunning, message, options);
  }
}

/** Maps any thrown value to the exit code the process ends with. */
export function exitCodeOf(error: unknown): number {
  return error instanceof PitroomError ? error.exit : Exit.workerFailed;
}

/**
 * What a person is told about an error, one line each: the message, then `hint: ...` when there
 * is one. The CLI prints them on stderr (the first after `pitroom: `), the MCP server as a tool
 * error's text. Anything that is not a `PitroomError` is an unexpected error.
 */
export function errorLines(error: unknown): string[] {
  if (!(error instanceof PitroomError)) {
    return [`unexpected error: ${error instanceof Error ? error.message : String(error)}`];
  }
  return error.hint ? [error.message, `hint: ${error.hint}`] : [error.message];
}

/** `errorLines` as one text. */
export function errorText(error: unknown): string {
  return errorLines(error).join("\n");
}
