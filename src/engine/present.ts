/**
 * The engine's presentation helpers for the faces (the CLI, the MCP server, the dashboard): how a
 * run, an event, a receipt, a duration or a target is said, and the fixed lists the faces offer
 * (tiers, workers, templates). Pure functions and constants only: what the engine does is behind
 * the front door (mod.ts), these only say it.
 */
export { answerSummary } from "./answer/format.ts";
export { PROMPT_TEMPLATES } from "./run/prompt.ts";
export { TEMPLATES } from "./plan/templates.ts";
export { auditPrompt, fixPrompt } from "./audit/prompt.ts";
export { QUESTION_KINDS } from "./eval/kinds.ts";
export { LiveFold, liveState, refsLabel, runTime, viewOf, workerOf } from "./follow/fold.ts";
export {
  briefHead,
  briefLine,
  type BriefOptions,
  briefText,
  type Face,
  type RunBrief,
  runBrief,
} from "./follow/brief.ts";
export {
  type Handing,
  type Returned,
  settleHandover,
  sharesOf,
  withReturned,
} from "./follow/handover.ts";
export { describeWatchLines } from "./follow/watch_lines.ts";
export { workOf } from "./follow/work.ts";
export { CHECK_SECTIONS } from "./setup/sections.ts";
export { TASK_LIMIT_BYTES } from "./request/attach.ts";
export { parseTarget, targetLabel } from "./core/chain.ts";
export { newRunId } from "./core/ids.ts";
export { formatUntil } from "./core/cooldown.ts";
export { stallOf } from "./core/stall.ts";
export { DEFAULT_MAX_PARALLEL, TIERS } from "./core/settings.ts";
export { isFinal } from "../store/record.ts";
export { isRunId } from "../store/paths.ts";
export { describeEvents, OUTCOME_CLASSES, WORK_STATES } from "../events/mod.ts";
export { hiddenLine } from "../confine/hidden.ts";
export { FREE_WORKERS, freeFirst, WORKER_NAMES } from "../workers/types.ts";
export { receiptLines } from "../receipts/lines.ts";
export { formatRatio, formatTokens, formatUsd, grouped, primaryName } from "../receipts/format.ts";
export { stepEvents } from "./runs/kept.ts";
export { renderCard } from "../receipts/card.ts";
export { renderBadge } from "../receipts/badge.ts";
export { placeOf, scopeName } from "./core/scope.ts";
