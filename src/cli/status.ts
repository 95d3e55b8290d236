/**
 * `pitroom status` and `pitroom ls`: each run's live view (engine/follow/fold.ts) as a table, or the
 * reports as JSON (each with its `repo`). They show the runs of the repository they are run in
 * (`-d DIR` for another), the runs `last` and parts of ids pick from; `--all` shows every
 * repository's, with a REPO column. A running run whose worker has been silent for its stall time
 * (the config's `stallAfter`) shows as `stalled (no event for 12m)`, and in JSON carries
 * `stalled`. A damaged record met is named in a line on stderr and the list goes on (exit 0: a
 * list is not about that run).
 */
import { safeLine } from "./safe.ts";
import type { Engine, RunReport } from "../engine/mod.ts";
import {
  isFinal,
  liveState,
  placeOf,
  runTime,
  scopeName,
  stallOf,
  viewOf,
} from "../engine/present.ts";
import { formatDuration } from "../sys/duration.ts";
import type { DamagedRecord } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import type { LS_FLAGS, STATUS_FLAGS } from "./status_command.ts";
import { engineFor } from "./engine_for.ts";
import { printJson, sayDamaged, table } from "./output.ts";

/** A repository's path as the REPO column shows it: the home folder as `~`, the tail kept. */
function repoCell(path: string, home: string | undefined): string {
  const short = home && (path === home || path.startsWith(`${home}/`))
    ? `~${path.slice(home.length)}`
    : path;
  const chars = [...short];
  return chars.length <= 32 ? safeLine(short, 32) : safeLine(`…${chars.slice(-31).join("")}`, 32);
}

function rows(sys: Sys, records: RunReport[], now: number, repo: boolean): string {
  const header = ["RUN", "STATE", "MODE", "TIME", "STEPS", "WORKER", "NOW / RESULT"];
  if (repo) header.splice(1, 0, "REPO");
  const home = sys.env.get("HOME");
  return table([
    header,
    ...records.map((r) => {
      const view = viewOf(r);
      const row = [
        r.id,
        r.state === "running" && r.parked !== undefined
          ? liveState(view, now)
          : stallOf(r, now)?.text ?? r.state,
        r.host === undefined ? r.mode : `${r.mode}@${r.host}`,
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
      if (repo) row.splice(1, 0, repoCell(placeOf(r), home));
      return row;
    }),
  ]);
}

async function print(
  sys: Sys,
  engine: Engine,
  records: RunReport[],
  options: { flags: { json?: boolean; all?: boolean }; empty: string; damaged: DamagedRecord[] },
): Promise<number> {
  const { flags, damaged } = options;
  const now = sys.clock.now();
  if (flags.json) {
    printJson(
      sys,
      records.map((r) => {
        const stall = stallOf(r, now);
        return { ...r, repo: placeOf(r), ...(stall === null ? {} : { stalled: stall }) };
      }),
    );
  } else if (records.length > 0) {
    sys.out.stdout(rows(sys, records, now, flags.all === true));
  } else if (damaged.length === 0) {
    const where = flags.all === true ? "" : ` in ${scopeName(await engine.scope())}`;
    const others = flags.all === true ? 0 : (await engine.list({ recent: 1, all: true })).length;
    sys.out.stderr(
      `${options.empty}${where}${others > 0 ? "; every repository's: `pitroom ls --all`" : ""}\n`,
    );
  }
  return sayDamaged(sys, damaged, { failed: false, otherwise: 0 });
}

/** Shows runs: the named ones, a group, or the live and recent ones. */
export const statusCommand: CommandRun<typeof STATUS_FLAGS> = async ({ sys, flags, args }) => {
  const engine = engineFor(sys, flags);
  const damaged: DamagedRecord[] = [];
  const common = { all: flags.all === true, onDamaged: (d: DamagedRecord) => damaged.push(d) };
  const records = args.length > 0
    ? await engine.list({ runs: args })
    : flags.group
    ? await engine.list({ group: flags.group, ...common })
    : await engine.list({ recent: 10, ...common });
  return await print(sys, engine, records, { flags, empty: "No runs yet", damaged });
};

/** Lists runs newest first. */
export const lsCommand: CommandRun<typeof LS_FLAGS> = async ({ sys, flags }) => {
  const engine = engineFor(sys, flags);
  const damaged: DamagedRecord[] = [];
  const common = { all: flags.all === true, onDamaged: (d: DamagedRecord) => damaged.push(d) };
  let records = flags.group
    ? await engine.list({ group: flags.group, ...common })
    : await engine.list({ recent: flags.limit, ...common });
  if (flags.running) records = records.filter((r) => !isFinal(r.state));
  records = records.reverse().slice(0, flags.limit);
  return await print(sys, engine, records, {
    flags,
    empty: flags.running ? "No runs are running" : "No runs yet",
    damaged,
  });
};
