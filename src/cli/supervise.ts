/**
 * The hidden `__supervise RUN` command: the detached supervisor of a background run.
 */
import { supervise } from "../engine/supervisor.ts";
import { loadConfig } from "../store/config.ts";
import type { CommandRun } from "./command.ts";
import { maxParallelOf } from "./settings.ts";

/** Executes a background run. */
export const superviseCommand: CommandRun = async ({ sys, args }) => {
  const { config } = await loadConfig(sys.configPath);
  const record = await supervise(sys, args[0]!, maxParallelOf(config, sys.env));
  return record.exit ?? 1;
};
