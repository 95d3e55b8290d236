/**
 * `pitroom status` and `pitroom ls`: each run's live view (engine/fold.ts) as a table, or the
 * reports as JSON.
 */
import { safeLine } from "./safe.ts";
import {
  createEngine,
  formatDuration,
  isFinal,
  type RunReport,
  runTime,
  viewOf,
} from "../engine/mod.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import { printJson, table } from "./output.ts";

function rows(records: RunReport[], now: number): string {
  const header = ["RUN", "STATE", "MODE", "TIME", "STEPS", "WORKER", "NOW / RESULT"];
  return table([
    header,
    ...records.map((r) => {
      const view = viewOf(r);
      return [
        r.id,
        r.state,
        r.mode,
        formatDuration(runTime(r, now)),
        String(view.steps),
        view.worker,
        safeLine(
          isFinal(r.state)
            ? (r.sections?.summary || (r.answer ?? r.message ?? ""))
            : (view.last ?? r.task),
          48,
        ),
      ];
    }),
  ]);
}

function print(sys: Sys, records: RunReport[], json: boolean, empty: string): number {
  if (json) printJson(sys, records);
  else if (records.length === 0) sys.out.stderr(`${empty}\n`);
  else sys.out.stdout(rows(records, sys.clock.now()));
  return 0;
}

/** Shows runs: the named ones, a group, or the live and recent ones. */
export const statusCommand: CommandRun = async ({ sys, flags, args }) => {
  const engine = createEngine(sys);
  const records = args.length > 0
    ? await engine.list({ runs: args })
    : flags.group
    ? await engine.list({ group: flags.group as string })
    : await engine.list({ recent: 10 });
  return print(sys, records, flags.json === true, "No runs yet");
};

/** Lists runs newest first. */
export const lsCommand: CommandRun = async ({ sys, flags }) => {
  const engine = createEngine(sys);
  let records = flags.group
    ? await engine.list({ group: flags.group as string })
    : await engine.list({ recent: flags.limit as number });
  if (flags.running) records = records.filter((r) => !isFinal(r.state));
  records = records.reverse().slice(0, flags.limit as number);
  return print(
    sys,
    records,
    flags.json === true,
    flags.running ? "No runs are running" : "No runs yet",
  );
};
