/**
 * engine/: the delegation engine. No argv parsing and no HTTP here: the CLI (and later the
 * dashboard and MCP server) call these functions.
 *
 * A run flows like this. `createRun` writes the record (`queued`) and marks it live.
 * `executeRun` runs it in the foreground, or in the one host process of the state dir that
 * `startSupervisor` hands background runs to (an inbox the host watches; host.ts). It takes the
 * run's lock, waits for a slot in FIFO order (per-worker limits apply), and `walkChain` prepares
 * the tree: a snapshot before the worker; for an isolate run a private copy (vcs/copy.ts); for a
 * read run in a tree with secret-looking files a shared write-protected view without them
 * (vcs/view.ts). Then one `runAttempt` per target of the worker chain: the backend describes the
 * launch, the worker gets a scrubbed environment with the git guard and floor shims first on its
 * PATH (env.ts, guard.ts), the process shell (`runProcess`) spawns it as a process group with the
 * prompt on stdin, the raw stream is teed to the run folder and parsed into the event union,
 * `gather` folds events into progress, caps stop a runaway worker, and the backend classifies the
 * end. Rate limits and quotas put the target in cooldown and the chain moves on, handing over what
 * was done. Afterwards the work tree is compared with the snapshot: a write or isolate run's
 * changes are recorded (patch.diff), a read run's are undone (exit 5); `--verify` runs in the
 * worker's tree. The final record gets its receipt, the files are compressed, the run is indexed
 * in the history, the slot and locks are freed.
 *
 * Around it: `waitForRuns`, `stopRun` and `revertRun` act on existing runs, `applyRun` and
 * `discardRun` on isolate runs' patches and copies; the feed (feed.ts) publishes every run's
 * events to subscribers (watch, wait, later the dashboard and MCP) as they are written;
 * `reconcile` marks a run whose supervisor died `lost`; `resolveSettings` gives effective
 * settings with sources; `pausePoint` is the crash tests' seam.
 */
export { createRun, type NewRun } from "./create.ts";
export { type ExecuteOptions, executeRun } from "./lifecycle.ts";
export { startSupervisor } from "./supervisor.ts";
export { revertRun, stopRun, waitForRun, waitForRuns } from "./control.ts";
export { applyRun, discardRun } from "./apply.ts";
export { reconcile } from "./liveness.ts";
export { parseChain, resolveChain, targetLabel } from "./chain.ts";
export { resolveSettings, resolveTier } from "./settings.ts";
