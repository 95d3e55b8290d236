/**
 * Pitroom's own logs (`logs/` in the state dir): where a failure goes that must not stop what
 * it happened in (a progress write of a live run, the history, a hosted run's crash), so it is
 * kept instead of dropped.
 */
import type { HeldSys } from "./state.ts";
import { isOsError } from "../sys/fs.ts";
import { join } from "../sys/path.ts";

/** The state-dir log files. */
export type LogName = "history.log" | "host.log" | "runs.log";

/**
 * Appends one line to `logs/<name>`: the time, what failed, and the error's stack. A log that
 * cannot be written (the disk is full, say) leaves nowhere to report to: that one OS error is
 * dropped; any other error is thrown.
 */
export async function logFailure(
  sys: Pick<HeldSys, "state" | "clock">,
  name: LogName,
  entry: { what: string; error: unknown },
): Promise<void> {
  const logs = sys.state.paths.logs;
  const { error } = entry;
  const detail = error instanceof Error ? error.stack ?? error.message : String(error);
  const line = `${new Date(sys.clock.now()).toISOString()} ${entry.what}: ${detail}\n`;
  try {
    await Deno.mkdir(logs, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(join(logs, name), line, { append: true, mode: 0o600 });
  } catch (failure) {
    if (!isOsError(failure)) throw failure;
  }
}
