/**
 * A worker CLI's first start, done once and alone. OpenCode creates and migrates its database
 * the first time it runs; two first starts at once (a crew on a fresh install) make one fail
 * with "Failed query: CREATE TABLE ...". So while the launch's marker is missing, the set-up
 * command runs first under the state dir's lock, and the runs that waited find it done.
 */
import type { HeldSys } from "../../store/state.ts";
import { withLock } from "../../store/locks.ts";
import { exists } from "../../sys/fs.ts";
import { join } from "../../sys/path.ts";
import type { Launch } from "../../workers/types.ts";

/** Runs the launch's first-start set-up when its marker is missing (at most one at a time). */
export async function ensureFirstStart(sys: HeldSys, launch: Launch): Promise<void> {
  const first = launch.firstStart;
  if (first === undefined || await exists(first.marker)) return;
  const locks = sys.state.paths.locks;
  await Deno.mkdir(locks, { recursive: true });
  await withLock(join(locks, "first-start.lock"), async () => {
    if (await exists(first.marker)) return;
    // Its outcome is not ours to judge: the run's own start reports any real failure, a CLI
    // that is not installed included.
    try {
      await sys.runner.run(first.argv, {
        env: launch.env,
        cwd: launch.cwd,
        stdin: { kind: "null" },
      });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  });
}
