/**
 * engine/: the delegation engine. No argv parsing and no HTTP here: the CLI (and later the
 * dashboard and MCP server) call these functions.
 *
 * A run flows like this. `createRun` writes the record (`queued`) and marks it live.
 * `executeRun` (in the foreground, or in the detached supervisor `startSupervisor` starts) takes
 * the run's lock, waits for a slot in FIFO order, and `walkChain` snapshots the tree, then runs
 * one `runAttempt` per target of the worker chain: the backend describes the launch, the process
 * shell (`runProcess`) spawns it as a process group with the prompt on stdin, the raw stream is
 * teed to the run folder and parsed into the event union, `gather` folds events into progress,
 * and the backend classifies the end. Rate limits and quotas put the target in cooldown and the
 * chain moves on, handing over what was done. Afterwards the tree is compared with the snapshot:
 * a write run's changes are recorded (patch.diff), a read run's are undone (exit 5). The final
 * record is written, the stream compressed, the slot and locks freed.
 *
 * Around it: `waitForRuns`, `stopRun` and `revertRun` act on existing runs; `reconcile` marks a
 * run whose supervisor died `lost`; `resolveSettings` gives effective settings with sources.
 */
export { createRun, type NewRun } from "./create.ts";
export { type ExecuteOptions, executeRun } from "./lifecycle.ts";
export { startSupervisor, supervise } from "./supervisor.ts";
export { revertRun, stopRun, waitForRun, waitForRuns } from "./control.ts";
export { reconcile } from "./liveness.ts";
export { parseChain, resolveChain, targetLabel } from "./chain.ts";
export { resolveSettings, resolveTier } from "./settings.ts";
