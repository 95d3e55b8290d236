/**
 * A seam for crash tests: with `PITROOM_TEST_PAUSE=<phase>` set, Pitroom stops at that phase,
 * writes its pid to `<stateDir>/paused-<phase>` and waits there until it is killed. The crash
 * tests kill it (or its supervisor, or its worker) at exactly that point. Without the variable
 * this costs one lookup. Workers never see the variable (PITROOM_* is scrubbed from them).
 */
import type { HeldSys } from "../../store/state.ts";
import { join } from "../../sys/path.ts";

/**
 * The phases a crash test can stop Pitroom at. `wrote:N` is inside a write into the user's tree
 * (an apply, a revert, a read run's undo), once its journal holds the plan and N files of it are
 * written (`wrote:0`: none yet); `journaled` once such a write has ended in the journal, before
 * the run record says so; `discarding` once an isolate copy is partly removed.
 */
export type PausePhase =
  | "snapshot"
  | "running"
  | "collecting"
  | "applying"
  | "capturing"
  | "reverting"
  | "journaled"
  | "discarding"
  | "indexing"
  | `wrote:${number}`;

/** Waits forever at `phase` when the test variable names it; returns at once otherwise. */
export async function pausePoint(sys: HeldSys, phase: PausePhase): Promise<void> {
  if (sys.env.get("PITROOM_TEST_PAUSE") !== phase) return;
  await Deno.writeTextFile(join(sys.stateDir, `paused-${phase}`), String(sys.pid));
  for (;;) await sys.sleep(3_600_000);
}
