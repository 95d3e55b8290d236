/**
 * The run modes as one table of facts: every decision that depends on a run's mode (what the
 * worker's tools and sandbox let it write, whether its changes are kept, where they land) reads a
 * named column here instead of testing the mode's name. A mode added to `Mode` without a row is a
 * type error.
 */
import type { Mode } from "./types.ts";

/** What a run mode means for the worker, its changes and its answer. */
export interface ModeFacts {
  /**
   * The worker may change files: its tools allow edits and the shell, the sandbox lets it write
   * where it works, and the run needs a git repository. Otherwise it may only read.
   */
  edits: boolean;
  /**
   * The worker's changes are its result: recorded as its patch (reviewable, revertable, handed
   * to the next target on a fallback). Otherwise any change is a violation, undone after it.
   */
  keepsChanges: boolean;
  /**
   * The worker works in a private copy of the tree (`--link` folders, a follow-up reuses it);
   * its changes reach the tree only by `apply`, and a revert takes back what the apply wrote.
   */
  usesCopy: boolean;
  /**
   * The worker edits the user's tree in place: one such run per repository at a time (the
   * writer lock), the tree watched for the user's own edits and for a moved HEAD or index.
   */
  editsInPlace: boolean;
  /** `allowSecrets` may let the worker see the tree's secret-looking files. */
  secretsAllowed: boolean;
  /**
   * The answer is the run's whole result: the answer cache may keep and give it, audits re-check
   * it, and an answer given without a single tool call is flagged.
   */
  answerOnly: boolean;
}

/** The facts of every run mode. */
export const MODES = {
  read: {
    edits: false,
    keepsChanges: false,
    usesCopy: false,
    editsInPlace: false,
    secretsAllowed: false,
    answerOnly: true,
  },
  write: {
    edits: true,
    keepsChanges: true,
    usesCopy: false,
    editsInPlace: true,
    secretsAllowed: true,
    answerOnly: false,
  },
  isolate: {
    edits: true,
    keepsChanges: true,
    usesCopy: true,
    editsInPlace: false,
    secretsAllowed: true,
    answerOnly: false,
  },
} as const satisfies Record<Mode, ModeFacts>;

/** The mode names (workers/names.ts; the test holds the table to them, in order). */
export { MODE_NAMES } from "./names.ts";
