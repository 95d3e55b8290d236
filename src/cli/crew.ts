/**
 * `pitroom crew [-i | -w] [-g NAME] [run flags] "task 1" "task 2" ...` (or `--task-file F` with
 * `---` lines between tasks): every task becomes a background run of one group, handed to the
 * host at once. Prints the group and the commands that follow it; `--json` the group and ids.
 */
import { checkLinkFlags, readTaskFile } from "./flag_files.ts";
import { safeLine } from "./safe.ts";
import { createEngine, MODES } from "../engine/mod.ts";
import { newRunId, sharesOf } from "../engine/present.ts";
import { UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import type { CREW_FLAGS } from "./crew_command.ts";
import { jsonText, warn } from "./output.ts";
import { bytesOf } from "./handover.ts";
import { liveViewForBackground } from "./live_view.ts";
import { modeOf, requestFrom } from "./run.ts";

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
  return splitTasks(await readTaskFile(sys, taskFile));
}

/** Starts every task as a background run of one group. */
export const crewCommand: CommandRun<typeof CREW_FLAGS> = async ({ sys, flags, args }) => {
  const mode = modeOf(flags, "isolated copies");
  const tasks = await readTasks(sys, args, flags["task-file"]);
  if (tasks.length === 0) {
    throw new UsageError("No tasks given", { hint: 'pitroom crew "task 1" "task 2"' });
  }
  await checkLinkFlags(sys, flags.link, flags.dir);
  const engine = createEngine(sys);
  const group = flags.group ?? `crew-${newRunId(sys)}`;
  const started = await engine.start({ ...requestFrom(flags, mode), group, tasks });
  warn(sys, started.warnings);
  const ids = started.ids;
  const dashboard = await liveViewForBackground(sys);
  let out: string;
  if (flags.json) {
    out = jsonText({ group, runs: ids, ...(dashboard === undefined ? {} : { dashboard }) });
  } else {
    const lines = [`crew ${group}: ${ids.length} run(s) started`];
    ids.forEach((id, i) => lines.push(`  ${id}  ${safeLine(tasks[i]!, 70)}`));
    lines.push(
      "",
      `follow:  pitroom watch -g ${group} --brief`,
      `collect: pitroom wait -g ${group}`,
    );
    if (mode !== undefined && MODES[mode].usesCopy) {
      lines.push(`apply:   pitroom apply -g ${group}`);
    }
    if (dashboard !== undefined) lines.push(`live:    ${dashboard}`);
    out = lines.join("\n") + "\n";
  }
  sys.out.stdout(out);
  // What the caller read of the runs so far, shared among them.
  const shares = sharesOf(bytesOf(out), new Map(ids.map((id) => [id, 1])));
  await engine.handedOver([...shares].map(([id, bytes]) => ({ id, bytes })), {
    via: "cli",
    what: "crew",
  });
  return 0;
};
