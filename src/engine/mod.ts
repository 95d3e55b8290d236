/**
 * engine/: the delegation engine, and its one front door. The CLI, the MCP server and the
 * dashboard import this module and nothing else of the engine (tests/architecture keeps it so);
 * no argv parsing and no HTTP live here.
 *
 * ## The rooms
 *
 * The engine's folders stand in a one-way order, each importing only those below it
 * (tests/architecture keeps it so): `core/` (chain, durations, ids, exit codes, cooldown, pause,
 * settings, scope, the run outcome), `tree/` (the workspace, snapshots, the watch, attribution,
 * journaled writes), `request/` (request to runs), `run/` (one run end to end and its hook list,
 * run/hooks.ts), `host/` (the host, its inbox, liveness and the sweep of lost runs), `follow/`
 * (feed, fold, report), `runs/` (selecting runs and acting on them), `setup/` (doctor, models,
 * usage), then the features (`answer/`, `eval/`, `history/`, `plan/`, then `audit/`, `review/`),
 * which reach a run through the hooks this door registers (features.ts). What limits a worker
 * (the floor, the guard, the sandbox, its environment, secrets) is src/confine/. Reads never
 * write: a run whose supervisor died reads as lost, and the sweep (host/liveness.ts) marks it.
 *
 * ## The flow
 *
 * `const engine = createEngine(sys)` binds the engine to a state dir and a config (the ones of
 * `sys`), and holds the state dir once (store/state.ts: its paths and the `Runs` records object),
 * handed down with `sys` so nothing below rebuilds them. The faces' presentation helpers (how a run,
 * an event, a receipt or a duration is said) are engine/present.ts, beside this door. Engine
 * errors name the request's fields (`link`, `mode: isolate`); the CLI says its flags. A caller describes work as a `RunRequest` (request/request.ts: one zod schema, which is also
 * the TypeScript type, the runtime check and the JSON Schema MCP publishes). `engine.start(req)`
 * checks it, reads the settings once (core/load_settings.ts) and builds the runs (request/build.ts: worker
 * chain from `worker`/`tier`/`model` and the config's fallbacks, mode checks, effort, caps,
 * `continue` rules, `files` attached), freezing the settings into each record. It creates the
 * records (`queued`; a crew gets one per task) and hands them to the state dir's host
 * (host/supervisor.ts, host/host.ts): one detached process that executes every background run, so a run
 * outlives the CLI call, MCP session or page that started it. `engine.run(req)` executes one run
 * in the caller's process instead (today's `pitroom run`).
 *
 * Executing a run (`executeRun`, run/lifecycle.ts): take the run's lock, wait for a slot (FIFO,
 * per-worker limits), prepare the tree (snapshot; for a write run, a watch of the tree that keeps
 * each changed file's versions, tree/tree_watch.ts; an isolate copy; a read view without secrets),
 * then one attempt per target of the chain: the backend describes the launch, the process shell
 * spawns it with the guard first on PATH, the raw stream is teed to the run folder and parsed
 * into the event union, caps stop a runaway worker, the backend classifies the end; rate limits
 * and quotas put the target in cooldown and move on. Afterwards the changes are recorded (or a
 * read run's undone; a file the user changed too is split by its versions, tree/file_history.ts),
 * `verify` runs, the answer is checked (answer/: its sections, its
 * `path:line` references, evidence flags), the receipt is priced, the history indexes the run.
 * The worker's prompt is built from templates (run/prompt.ts, run/prompts/); a read run asked again on
 * the same tree state may get an earlier answer that held up from the answer cache
 * (answer/cache.ts) without a worker.
 *
 * Following runs: `engine.subscribe(selector, onEvent, { since, fromOffsets })` replays each
 * run's events from an event index or the byte offset an earlier event carried (a client that
 * reconnects misses nothing), then delivers new ones as they are appended (follow/feed.ts, no polling); the
 * live fold (follow/fold.ts) turns events into a run's view (steps, tools, last action, tokens,
 * fallbacks, phase) and the `watch --json` lines (follow/watch_lines.ts, one definition).
 * `engine.wait(selector, { timeoutMs, any, signal })` follows the same feed (cancellable, no
 * blocking lock). `engine.get/list/report/events/patch` read what a run left; the report
 * (follow/report.ts, `RunReport`) is the one shape behind the text report and every `--json`.
 *
 * Acting on runs: `stop` works from any process (a host run gets a stop request in the host's
 * inbox, another process's foreground run SIGTERM, this process's own foreground run its abort
 * controller: no code path signals the caller's pid); `apply`/`applyGroup`/`discard` act on
 * isolate patches and copies, `revert` undoes a run's changes exactly (runs/revert.ts). Every write
 * into the user's tree is a journaled plan (tree/journaled.ts over vcs/carry_out.ts): finished by the
 * same command after a crash, taken back by its opposite.
 *
 * Plans and reviews (plan/, review/): `run` with `plan`/`step` gives the worker the implementer
 * brief of a plan task and joins the plan's group; `review(request)` builds a redacted package
 * of a run's change (or a fix round's, or a commit range's) and runs a read-only reviewer on
 * another backend; when a plan or review run ends, its implementer status or verdict is parsed
 * into the record (review/conclude.ts). `planStatus` rebuilds where a plan stands from the
 * records and the plan's notes (`planNote`). Around them:
 * `settings`, `doctor({ probe })`, `models`, `cooldowns`, `history.search/stats`, `savings`.
 *
 * Checking answers: `audit(request)` has another model re-check a finished read
 * answer (audit/mod.ts; the config's `audit` rate starts audits by itself after read runs);
 * `eval(path, { workers })` scores workers on bounded questions (eval/mod.ts). `budgetDaily`
 * (request/budget.ts) and `rankWorkers` (request/rank.ts) shape the chain when runs are built.
 */
export {
  createEngine,
  type Engine,
  type EngineOptions,
  type EngineWaitOptions,
  type GroupApplied,
  type ReviewStarted,
  type RunOptions,
  type Selector,
  type Started,
  type SubscribeOptions,
} from "./api.ts";
export type { EngineHistory, HistoryOptions, Period } from "./api_history.ts";
export type { EventsFound, Found, ListFilter } from "./api_runs.ts";
export type { Scope } from "./core/scope.ts";
export type { Stall } from "./core/stall.ts";
export type { RunRequest } from "./request/request.ts";
export type { RunReport } from "./follow/report.ts";
export type { ReviewRequest } from "./review/request.ts";
export type { Verdict } from "./review/verdict.ts";
export type { PlanStatus, ReviewRow, TaskRow } from "./plan/status.ts";
export type { EvalResult } from "./eval/mod.ts";
export type { Phase, RunView } from "./follow/fold.ts";
export type { WatchLine, WatchLineOf } from "./follow/watch_lines.ts";
export type { Check } from "./setup/doctor.ts";
export type { CheckSection } from "./setup/sections.ts";
export type { SelfCheck } from "./setup/self_check.ts";
export type { ModelRow, UsageSummary, WorkerModels } from "./setup/models.ts";
export type { Applied } from "./runs/apply.ts";
export type { HandedHow, HandedRun } from "./runs/returned.ts";
export type { FeedEvent, Subscription } from "./follow/feed.ts";
export type { LoadedSettings } from "./core/load_settings.ts";
export type { WorkerStatus } from "./setup/installed.ts";
export type { ModelCost, Setting, Settings } from "./core/settings.ts";
export { MODES } from "../workers/modes.ts";
export type { KeptRun } from "./runs/history_copy.ts";
export type { Step } from "../store/history/row.ts";
export type { Preparation } from "../store/history/ready.ts";
export type { SearchFilter, SearchHit } from "./history/search.ts";
export type { Stats, StatsRow } from "./history/stats.ts";
export type { SavingsRow, SavingsTotals } from "../receipts/totals.ts";
export type { CleanItem, CleanPlan, KeepReason } from "./runs/clean.ts";
export type { OutcomeClass, PitroomEvent } from "../events/mod.ts";
export type { Backend, WorkerName } from "../workers/types.ts";
export type { Config } from "../store/config.ts";

/**
 * The zod schemas of a run request, a review request, an audit request and a run's report, with
 * the request's check and the JSON Schemas (engine/schemas.ts), for the MCP server: loaded on
 * first use, as zod costs a command that takes no request (status, ls) a third of its start-up.
 */
export function schemas(): Promise<typeof import("./schemas.ts")> {
  return import("./schemas.ts");
}
