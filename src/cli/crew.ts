/**
 * `pitroom crew [-i | -w] [-g NAME] [run flags] "task 1" "task 2" ...` (or `--task-file F` with
 * `---` lines between tasks): every task becomes a background run of one group, handed to the
 * host at once. Prints the group and the commands that follow it; `--json` the group and ids.
 */
import { createRun, type NewRun } from "../engine/create.ts";
import { newRunId } from "../engine/ids.ts";
import { startSupervisors } from "../engine/supervisor.ts";
import { resolve } from "../sys/path.ts";
import { RefusedError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import { printJson } from "./output.ts";
import { oneLine } from "../sys/text.ts";
import { newRunFrom } from "./run.ts";
import { loadSettings, warn } from "./settings.ts";

/** Splits a task file into tasks: `---` lines separate them; empty tasks are dropped. */
export function splitTasks(text: string): string[] {
  const tasks: string[] = [];
  let current: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "---") {
      tasks.push(current.join("\n"));
      current = [];
    } else current.push(line);
  }
  tasks.push(current.join("\n"));
  return tasks.map((t) => t.trim()).filter((t) => t.length > 0);
}

async function readTasks(
  sys: Sys,
  args: string[],
  taskFile: string | undefined,
): Promise<string[]> {
  if (taskFile === undefined) return args.map((a) => a.trim()).filter((a) => a.length > 0);
  if (args.length > 0) {
    throw new UsageError("Give the tasks as arguments or with --task-file, not both");
  }
  try {
    return splitTasks(await Deno.readTextFile(resolve(sys.cwd(), taskFile)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Task file "${taskFile}" does not exist`);
    }
    throw error;
  }
}

/** Creates a run; a new id is drawn when one made in the same second was drawn already. */
async function createUnique(sys: Sys, spec: NewRun) {
  for (let attempt = 1;; attempt++) {
    try {
      return await createRun(sys, spec);
    } catch (error) {
      if (!(error instanceof RefusedError && error.code === "run_exists") || attempt >= 8) {
        throw error;
      }
    }
  }
}

/** Starts every task as a background run of one group. */
export const crewCommand: CommandRun = async ({ sys, flags, args }) => {
  if ([flags.read, flags.write, flags.isolate].filter(Boolean).length > 1) {
    throw new UsageError("Choose one mode: -r (read), -w (write in place) or -i (isolated copies)");
  }
  const tasks = await readTasks(sys, args, flags["task-file"] as string | undefined);
  if (tasks.length === 0) {
    throw new UsageError("No tasks given", { hint: 'pitroom crew "task 1" "task 2"' });
  }
  if (flags.write && tasks.length > 1) {
    throw new RefusedError(
      "parallel_writers",
      `${tasks.length} workers would edit the same tree in place at once`,
      {
        hint:
          "give each its own copy with -i (`pitroom crew -i ...`), then `pitroom apply -g NAME`",
      },
    );
  }
  const group = (flags.group as string | undefined) ?? `crew-${newRunId(sys)}`;
  const { settings, warnings } = await loadSettings(sys);
  warn(sys, warnings);
  // One spec for all: the directory, chain and effort are checked once.
  const spec = await newRunFrom(sys, settings, { ...flags, group }, tasks[0]!);
  const ids: string[] = [];
  try {
    for (const task of tasks) ids.push((await createUnique(sys, { ...spec, task })).id);
  } finally {
    // Whatever was created runs, even when a later task could not be created.
    if (ids.length > 0) await startSupervisors(sys, ids);
  }
  if (flags.json) {
    printJson(sys, { group, runs: ids });
    return 0;
  }
  const lines = [`crew ${group}: ${ids.length} run(s) started`];
  ids.forEach((id, i) => lines.push(`  ${id}  ${oneLine(tasks[i]!, 70)}`));
  lines.push(
    "",
    `follow:  pitroom watch -g ${group} --brief`,
    `collect: pitroom wait -g ${group}`,
  );
  if (spec.mode === "isolate") lines.push(`apply:   pitroom apply -g ${group}`);
  sys.out.stdout(lines.join("\n") + "\n");
  return 0;
};
