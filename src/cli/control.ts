/**
 * `pitroom stop RUN` and `pitroom revert RUN`.
 */
import { revertRun, stopRun } from "../engine/control.ts";
import { statePaths } from "../store/paths.ts";
import { resolveRunId } from "../store/runs.ts";
import type { CommandRun } from "./command.ts";
import { printJson } from "./output.ts";

/** Stops a run. */
export const stopCommand: CommandRun = async ({ sys, flags, args }) => {
  const id = await resolveRunId(statePaths(sys.stateDir), args[0]!);
  const record = await stopRun(sys, id);
  if (flags.json) printJson(sys, record);
  else {sys.out.stdout(
      `${record.id}  ${record.state}${record.outcome ? ` (${record.outcome})` : ""}\n`,
    );}
  return 0;
};

/** Reverts a run's changes. */
export const revertCommand: CommandRun = async ({ sys, flags, args }) => {
  const id = await resolveRunId(statePaths(sys.stateDir), args[0]!);
  const record = await revertRun(sys, id);
  const files = record.changes?.files ?? [];
  if (flags.json) printJson(sys, { id: record.id, reverted: files.map((f) => f.path) });
  else {sys.out.stdout(`reverted ${files.length} file(s) of ${record.id}:\n${
      files.map((f) => `  ${f.path}\n`).join("")
    }`);}
  return 0;
};
