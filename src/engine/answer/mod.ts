/**
 * answer/: what Pitroom makes of a worker's answer once its run is done. `check.ts` runs after
 * the worker chain, while the worker's tree (the user's, a private copy or a read view) is still
 * there: `format.ts` splits the answer into the sections of the answer format the prompt asks
 * for, `refs.ts` checks every `path:line` it cites against that tree (paths mapped back to the
 * repository, bare names resolved, named symbols looked for with `symbols.ts`), and
 * `evidence.ts` flags claims the run or the tree contradict (no tool call, files that do not
 * exist, counts `git grep` does not confirm). The results go into the run record (`sections`,
 * `refs`, `evidence`). `cache.ts` is the answer cache: before a read run's first attempt the
 * same question on the same tree state may get an earlier answer that held up, and a finished
 * run's held-up answer is remembered for the next one.
 */
export { answerSummary, type Finding, parseAnswer, type ParsedAnswer } from "./format.ts";
export {
  type CheckedRefs,
  checkReferences,
  extractReferences,
  type RefCheck,
  type Reference,
  type RefsResult,
  type RefTree,
} from "./refs.ts";
export { refTreeAt, refTreeOf } from "./check.ts";
export { EVIDENCE_KINDS, type EvidenceFlag, type EvidenceKind } from "./evidence.ts";
