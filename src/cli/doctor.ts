/**
 * `pitroom doctor [--probe]`: the engine's setup checks (engine/doctor.ts), as a table or JSON;
 * exit 3 when no worker is installed or a check failed.
 */
import { type Check, createEngine } from "../engine/mod.ts";
import { RefusedError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import { printJson, table } from "./output.ts";

/** Renders the checks for people (pure). */
export function renderChecks(checks: readonly Check[]): string {
  const rows = checks.map((c) => [
    c.status,
    c.worker ? `${c.check} ${c.worker}${c.model ? `:${c.model}` : ""}` : c.check,
    c.message + (c.version && c.check === "worker" ? ` (${c.version})` : "") +
    (c.hint && c.status !== "ok" ? ` · ${c.hint}` : ""),
  ]);
  return table(rows);
}

/** Checks the setup. */
export const doctorCommand: CommandRun = async ({ sys, flags }) => {
  const checks = await createEngine(sys).doctor({ probe: flags.probe === true });
  if (flags.json) printJson(sys, checks);
  else sys.out.stdout(renderChecks(checks));
  const workers = checks.filter((c) => c.check === "worker");
  if (!workers.some((c) => c.status === "ok")) {
    throw new RefusedError("no_worker", "No worker CLI is installed", {
      hint: "npm i -g opencode-ai",
    });
  }
  const failed = checks.filter((c) => c.status === "error");
  if (failed.length > 0) {
    throw new RefusedError(
      "doctor_failed",
      `${failed.length} check${failed.length === 1 ? "" : "s"} failed: ${failed[0]!.message}`,
      failed[0]!.hint ? { hint: failed[0]!.hint } : {},
    );
  }
  return 0;
};
