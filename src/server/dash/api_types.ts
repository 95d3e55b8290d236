/**
 * The dashboard's HTTP contract as TypeScript types: every JSON answer of the API and every
 * server-sent event. The page imports this module type-only (`import type { ... } from
 * "../../src/server/dash/api_types.ts"`), so it imports nothing itself and needs no Deno types;
 * `_contract.ts` fails to type-check when the engine's shapes drift away from these.
 * README.md next to this file describes the routes.
 */

/** Run states: `queued` and `running` are live, the rest final. */
export type ApiRunState = "queued" | "running" | "done" | "problem" | "lost";

/** How a run (or one attempt of it) ended. */
export type ApiOutcome =
  | "ok"
  | "failed"
  | "model_not_found"
  | "rate_limited"
  | "quota"
  | "auth"
  | "timeout"
  | "stopped"
  | "read_only_violation"
  | "refused"
  | "verify_failed"
  | "capped";

/** A run's mode. */
export type ApiMode = "read" | "write" | "isolate";

/** A worker backend. */
export type ApiWorker = "opencode" | "codex" | "claude" | "gemini";

/** The kind of a tool call, the same for every worker. */
export type ApiToolKind =
  | "read"
  | "search"
  | "list"
  | "edit"
  | "write"
  | "shell"
  | "web"
  | "task"
  | "other";

/** Token counts. */
export interface ApiTokens {
  input: number;
  output: number;
  cached: number;
  reasoning: number;
}

/** Why a run needs attention: it failed, or its isolate patch waits to be applied. */
export type ApiAttention = "problem" | "unapplied";

/**
 * A run as a card shows it (the live view): one per run in `GET /api/runs`, in `run` and `event`
 * messages of the stream, and in the answers of the writes.
 */
export interface RunCard {
  id: string;
  state: ApiRunState;
  mode: ApiMode;
  /** The whole task. */
  task: string;
  /** The worker that works (or worked) on it: its last attempt, else the chain's first. */
  worker: ApiWorker | null;
  /** The model that really ran (the last attempt's; null: the CLI's own default). */
  model: string | null;
  /** `worker (model)`, as the CLI prints it. */
  workerLabel: string;
  group: string | null;
  /** A crew's run: its task's place among the tasks given together (0 first). */
  taskIndex: number | null;
  /** Queue position while queued. */
  position: number | null;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  steps: number;
  tools: number;
  /** Tool calls the worker's permissions refused (counted in `tools` too). */
  denied: number;
  /** The last tool call: `kind target`. */
  last: string | null;
  tokens: ApiTokens;
  /** What the worker cost so far, USD (reported, or the receipt's estimate once ended). */
  cost: number | null;
  /** What it saved against the primary model, USD (once ended). */
  saved: number | null;
  /** How many times the run moved along its fallback chain. */
  fallbacks: number;
  outcome: ApiOutcome | null;
  exit: number | null;
  /** A one-line reason when it did not succeed. */
  message: string | null;
  /** Files the worker changed. */
  changedFiles: number;
  /** An isolate run's patch: applied or discarded yet. */
  isolation: { applied: boolean; discarded: boolean } | null;
  /** Why it needs attention, or null. */
  attention: ApiAttention | null;
  /** True while Stop can act on it (`POST /api/runs/:id/stop`). */
  canStop: boolean;
  /** True while Discard can act on it (`POST /api/runs/:id/discard`). */
  canDiscard: boolean;
}

/** One event of a run (the engine's closed event union; `time` is ms since the epoch). */
export type ApiEvent =
  | { type: "worker.session"; time: number; sessionId: string }
  | { type: "worker.step"; time: number; index?: number }
  | { type: "worker.text"; time: number; text: string }
  | { type: "worker.reasoning"; time: number; text: string }
  | {
    type: "worker.tool_call";
    time: number;
    tool: string;
    kind: ApiToolKind;
    target: string;
    status: "ok" | "error" | "denied";
    error?: string;
  }
  | { type: "worker.denied"; time: number; tool: string; message: string }
  | {
    type: "worker.tokens";
    time: number;
    input: number;
    output: number;
    cached: number;
    reasoning: number;
    cost?: number;
  }
  | { type: "worker.answer"; time: number; text: string }
  | {
    type: "worker.error";
    time: number;
    message: string;
    status?: number;
    retryable?: boolean;
    name?: string;
    retryAfterMs?: number;
  }
  | { type: "worker.unknown"; time: number; raw: string }
  | { type: "run.queued"; time: number; run: string; position: number }
  | {
    type: "run.started";
    time: number;
    run: string;
    worker: string;
    model?: string;
    mode: string;
    attempt: number;
  }
  | {
    type: "run.progress";
    time: number;
    run: string;
    steps: number;
    tools: number;
    denied?: number;
    last?: string;
    tokens: ApiTokens;
  }
  | { type: "run.skipped"; time: number; run: string; target: string; until: number }
  | {
    type: "run.fallback";
    time: number;
    run: string;
    from: string;
    to: string;
    reason: ApiOutcome;
    message: string;
  }
  | {
    type: "run.finished";
    time: number;
    run: string;
    state: ApiRunState;
    outcome: ApiOutcome;
    exit: number;
    message?: string;
    changed?: string[];
  }
  | { type: "run.lost"; time: number; run: string; reason: string };

/** A file the worker changed. */
export interface ApiChangedFile {
  path: string;
  status: "added" | "modified" | "deleted";
  added: number;
  removed: number;
  binary: boolean;
}

/** One attempt of a run: a target of its chain that ran. */
export interface ApiAttempt {
  worker: ApiWorker;
  model?: string;
  startedAt: number;
  endedAt?: number;
  outcome?: ApiOutcome;
  message?: string;
}

/** A run's full report (the run record; the fields the page reads). */
export interface ApiReport {
  id: string;
  state: ApiRunState;
  mode: ApiMode;
  task: string;
  cwd: string;
  repoRoot?: string;
  group?: string;
  chain: { worker: ApiWorker; model?: string }[];
  effort?: string;
  web: boolean;
  timeoutMs: number;
  verifyCommand?: string;
  verify?: {
    command: string;
    ok: boolean;
    code: number | null;
    timedOut: boolean;
    ms: number;
    output: string;
  };
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  attempts: ApiAttempt[];
  /** Targets left out because they were cooling down, until when. */
  skipped?: { worker: ApiWorker; model?: string; until: number }[];
  progress: {
    steps: number;
    tools: number;
    denied?: number;
    last?: string;
    tokens: ApiTokens;
    cost?: number;
  };
  outcome?: ApiOutcome;
  exit?: number;
  message?: string;
  answer?: string;
  changes?: {
    files: ApiChangedFile[];
    /** Files changed while the run worked, not by a tool the worker called. */
    others?: ApiChangedFile[];
    reverted?: boolean;
  };
  notes?: string[];
  isolation?: { applied?: { at: number; files: string[] }; discarded?: { at: number } };
  receipt?: {
    tokens: ApiTokens;
    returnedTokens: number;
    compression: number | null;
    workerCost: number;
    workerCostSource: string;
    primary: string;
    primaryCost: number;
    saved: number;
    model?: string;
  };
  files?: { path: string; bytes: number }[];
}

/** An error answer (any status >= 400). */
export interface ApiError {
  error: {
    /** A stable slug: `bad_id`, `no_run`, `no_patch`, `forbidden_host`, `bad_secret`, ... */
    code: string;
    message: string;
    hint?: string;
  };
}

/** `GET /api/runs`: the live runs and the newest finished ones, newest first. */
export interface RunsResponse {
  now: number;
  runs: RunCard[];
}

/** `GET /api/runs/:id`: one run's card and report. */
export interface RunResponse {
  card: RunCard;
  report: ApiReport;
  /** True when the run folder was cleaned and the history answered (no copy, no raw events). */
  kept: boolean;
}

/** `GET /api/runs/:id/events`: a run's events from an index. */
export interface EventsResponse {
  run: string;
  events: ApiEvent[];
  /** The index to ask from next time (`?since=`). */
  next: number;
  kept: boolean;
}

/** One run the history search found. */
export interface HistoryHit {
  id: string;
  createdAt: number;
  endedAt: number | null;
  durationMs: number | null;
  task: string;
  worker: string | null;
  model: string | null;
  mode: string;
  group: string | null;
  state: string;
  outcome: string | null;
  exit: number | null;
  changedFiles: number;
  saved: number | null;
  answer: string | null;
  message: string | null;
  /** With `q`: the best matching passage, the matches between U+E000 and U+E001. */
  snippet?: string;
}

/** `GET /api/history`: one page of hits, newest first. */
export interface HistoryResponse {
  hits: HistoryHit[];
  offset: number;
  limit: number;
  /** True when another page follows (`offset + limit`). */
  more: boolean;
}

/** Figures of a set of runs in the stats. */
export interface StatsRow {
  /** `all`, `worker:model` (or `worker`), or a day `YYYY-MM-DD` (local time). */
  label: string;
  runs: number;
  ok: number;
  problems: number;
  /** Runs that ended rate limited or out of quota (not in the success rate). */
  limited: number;
  successRate: number | null;
  totalMs: number;
  avgMs: number;
  tokens: ApiTokens;
  returnedTokens: number;
  workerCost: number;
  primaryCost: number;
  saved: number;
}

/** `GET /api/stats`. */
export interface StatsResponse {
  since: number | null;
  until: number;
  total: StatsRow;
  targets: (StatsRow & { worker: string; model: string | null; limitedAttempts: number })[];
  days: StatsRow[];
}

/** One row of the savings totals. */
export interface SavingsRow {
  label: string;
  runs: number;
  ok: number;
  tokens: ApiTokens;
  returnedTokens: number;
  workerCost: number;
  primaryCost: number;
  saved: number;
}

/** `GET /api/savings`. */
export interface SavingsResponse {
  since: number | null;
  until: number;
  primary: string;
  total: SavingsRow;
  rows: SavingsRow[];
}

/** `GET /api/summary`: the tiles of the Live tab. */
export interface SummaryResponse {
  now: number;
  running: number;
  queued: number;
  /** Runs that ended since local midnight. */
  finishedToday: number;
  /** USD saved by the runs that ended in the last 7 days. */
  savedThisWeek: number;
}

/** One model of a worker. */
export interface ApiModel {
  id: string;
  source: "cli" | "builtin" | "config" | "usage";
  efforts: string[];
  defaultEffort: string | null;
  configured: boolean;
  isDefault: boolean;
  /** Past attempts with this model. */
  usage: { attempts: number; ok: number; timeMs: number; lastUsed: number } | null;
}

/** `GET /api/models`: one entry per worker. */
export type ModelsResponse = {
  worker: ApiWorker;
  installed: boolean;
  version: string | null;
  models: ApiModel[];
  more: number;
}[];

/** `GET /api/health`: which server answers (the CLI checks a recorded dashboard with it). */
export interface HealthResponse {
  service: "pitroom-dash";
  /** This start's id (changes at every start; not a secret). */
  instance: string;
  pid: number;
}

/** `POST /api/runs/:id/stop` and `/discard`: the run's card afterwards. */
export interface WriteResponse {
  card: RunCard;
}

/** The names of the stream's events (`GET /api/stream`), with their data. */
export interface StreamMessages {
  /** First message of every connection. */
  hello: { version: 1; now: number; resumed: boolean };
  /**
   * A run the page does not know yet: on a fresh connection every live run and the newest
   * finished ones, later every run that appears. A live run's events follow from its first one
   * in `event` messages; for a run announced final, fetch `/api/runs/:id/events`.
   */
  run: { card: RunCard };
  /** One event of a run, and the run's card with it folded in. */
  event: { run: string; event: ApiEvent; card: RunCard };
  /** The connection's start-up replay is complete: from here on everything is live. */
  ready: { runs: number };
}

/** A stream event name. */
export type StreamEventName = keyof StreamMessages;

/** `POST /api/session`: the session's key, handed out once (the page keeps it). */
export interface SessionResponse {
  key: string;
}

/** The header every API call carries the session's key in (the stream: `?key=`). */
export const KEY_HEADER = "X-Pitroom-Key";

/** The header an owner's single request carries a one-time token in (instead of a session). */
export const TOKEN_HEADER = "X-Pitroom-Token";

/** The localStorage item the page keeps its session's key in. */
export const KEY_ITEM = "pitroom-key";
