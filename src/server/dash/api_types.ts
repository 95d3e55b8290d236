/**
 * The dashboard's HTTP contract as TypeScript types: every JSON answer of the API and every
 * server-sent event. The page imports this module type-only (`import type { ... } from
 * "../../src/server/dash/api_types.ts"`), so nothing of the server enters its bundle; the run's
 * shapes are the run record's and the event union's own types (store/record.ts,
 * store/history/row.ts, events/mod.ts: modules with no effects, which the page can type-check),
 * and `_contract.ts` keeps the rest in step with the engine.
 * README.md next to this file describes the routes.
 */
import type { OutcomeClass, PitroomEvent, RunState, WorkState } from "../../events/mod.ts";
import type { SearchHit } from "../../store/history/row.ts";
import type { RunRecord, Tokens } from "../../store/record.ts";
import type { Mode } from "../../workers/names.ts";

/** Run states: `queued` and `running` are live, the rest final. */
export type ApiRunState = RunState;

/** How a run (or one attempt of it) ended. */
export type ApiOutcome = OutcomeClass;

/** A run's mode. */
export type ApiMode = Mode;

/** A worker: a built-in backend (`WorkerName`) or one of the config's own (an ACP agent). */
export type ApiWorker = string;

/** Token counts. */
export type ApiTokens = Tokens;

/** Why a run needs attention: it failed, or its isolate patch waits to be applied. */
export type ApiAttention = "problem" | "unapplied";

/**
 * What a run is to the user: a plain run, a plan task (its implementer), a review, an audit of an
 * answer, or an audit's correction round.
 */
export type ApiKind = "run" | "plan" | "review" | "audit" | "correction";

/**
 * What became of a finished run's work: answered from the answer cache, its patch applied, its
 * patch not applied yet, its copy discarded unapplied, or its changes reverted (a `run.changed`
 * event says it the moment it changes).
 */
export type ApiDisposition = WorkState;

/** How a badge reads: good, needs a look, bad, or neither. */
export type ApiTone = "good" | "warn" | "bad" | "info";

/** One badge of a verdict: `SPEC PASS`, `QUALITY NEEDS-FIXES`, `AUDIT PARTLY`, `STATUS DONE`. */
export interface ApiBadge {
  name: string;
  value: string;
  tone: ApiTone;
}

/** A finding of a review, a claim an audit disputes, an open issue: with its place. */
export interface ApiPoint {
  /** A review finding's severity (`Critical`, `Important`, `Minor`, `Cannot verify`). */
  severity: string | null;
  /** The `path:line` it names, when it names one. */
  ref: string | null;
  text: string;
}

/**
 * A verdict on a run: a review's (SPEC and QUALITY, with its findings), an audit's (AGREE, PARTLY
 * or DISAGREE, with the disputed claims) or a plan task's implementer status (with its open
 * issues). A review or audit run carries its own; a reviewed or audited run the latest one on it.
 */
export interface ApiVerdict {
  kind: "review" | "audit" | "status";
  /** The run that gave it (a review's or audit's own id), or null when none could start. */
  run: string | null;
  badges: ApiBadge[];
  points: ApiPoint[];
  /** Why it says less than it should (a failed audit, a review without a verdict line). */
  note: string | null;
}

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
  kind: ApiKind;
  /**
   * What the card is titled, from the record, never from Pitroom's own prompt: `Review of RUN`,
   * `Audit of RUN`, `Correction of RUN`, `Plan PLAN.md · task N: TITLE`, else the task.
   */
  title: string;
  /** The run a review, an audit, a correction or a follow-up is about, or null. */
  about: string | null;
  /** The verdicts to show as badges (its own first). */
  verdicts: ApiVerdict[];
  /** What became of its work once it ended, or null. */
  disposition: ApiDisposition | null;
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
  /**
   * `stalled (no event for 12m)` while a running run's worker has sent no event for its stall
   * time (the config's `stallAfter`); absent otherwise. The run goes on; its next event clears it.
   */
  stalled?: string;
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
export type ApiEvent = PitroomEvent;

/** A run's full report: the run record. */
export type ApiReport = RunRecord;

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

/**
 * One run the history search found (`snippet` with `q`: matches between U+E000 and U+E001), with
 * its card (null when its record cannot be read any more).
 */
export type HistoryHit = SearchHit & { card: RunCard | null };

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
