/**
 * Starting the dashboard in the background without waiting for it: `launchDashboard` spawns
 * `pitroom dash --json` detached (it takes the start lock itself: it serves, or prints the live
 * one's address and ends, so two launches at once end up with one dashboard) and reads its first
 * line on the side. Nobody has to await it: a run that ends first cancels the read and goes; the
 * dashboard goes on (its one line then finds the pipe closed, which it ignores). Light: it loads
 * nothing of the server (what a long run and the host call).
 */
import type { Sys } from "../../sys/mod.ts";

/** How long a start may take before its line is given up. */
export const START_MS = 30_000;

/** A dashboard being started in the background. */
export interface Launch {
  /** Its address (with a one-time token) once it serves; undefined when it did not say one. */
  address: Promise<string | undefined>;
  /** Stops reading its line (the dashboard goes on); `address` then resolves undefined. */
  cancel(): void;
}

/** Spawns `pitroom dash --json` detached and reads its address on the side. */
export function launchDashboard(sys: Sys): Launch {
  // It takes the start lock itself, whoever its parent is.
  const { PITROOM_DASH_LOCKED: _, ...env } = sys.env.toObject();
  const child = sys.runner.spawn([...sys.selfCommand(), "dash", "--json"], {
    detached: true,
    stdout: "piped",
    stderr: "null",
    stdin: { kind: "null" },
    env: { ...env, PITROOM_STATE_DIR: sys.stateDir },
  });
  child.unref();
  const reader = child.stdout!.pipeThrough(new TextDecoderStream()).getReader();
  const address = firstLine(sys, reader, START_MS).then((line) => {
    try {
      const started = JSON.parse(line ?? "{}") as { address?: unknown };
      return typeof started.address === "string" ? started.address : undefined;
    } catch (error) {
      if (error instanceof SyntaxError) return undefined;
      throw error;
    }
  });
  return { address, cancel: () => void reader.cancel().catch(() => undefined) };
}

/** The first line `reader` gives (null when it ends, is cancelled or the time runs out first). */
export async function firstLine(
  sys: Sys,
  reader: ReadableStreamDefaultReader<string>,
  timeoutMs: number,
): Promise<string | null> {
  const timer = sys.clock.after(timeoutMs, () => void reader.cancel().catch(() => undefined));
  let text = "";
  try {
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    timer.cancel();
    await reader.cancel().catch(() => undefined);
  }
  const nl = text.indexOf("\n");
  return nl < 0 ? null : text.slice(0, nl);
}
