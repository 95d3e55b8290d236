/**
 * `pitroom apply RUN | -g GROUP [--allow-delete]` and `pitroom discard RUN`: what becomes of an
 * isolate run's patch. A group is applied in the order its runs were started, stopping at the
 * first run that does not apply.
 */
import type { Applied, Engine, RunReport } from "../engine/mod.ts";
import { placeOf } from "../engine/present.ts";
import { engineFor } from "./engine_for.ts";
import { UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import type { APPLY_FLAGS, DISCARD_FLAGS } from "./apply_command.ts";
import { printJson } from "./output.ts";
import { safe } from "./safe.ts";

/** At most 20 names (made safe) on one line, then how many more. */
function names(paths: readonly string[]): string {
  const more = paths.length > 20 ? ` and ${paths.length - 20} more` : "";
  return `${paths.slice(0, 20).map(safe).join(", ")}${more}`;
}

function describeApplied(applied: Applied): string {
  const { record, report } = applied;
  const where = safe(placeOf(record));
  const written = report.applied.length + report.merged.length;
  if (written === 0 && report.already.length > 0) {
    return `${record.id} is in your tree already (${where}): ${report.already.length} file(s) as its patch leaves them: ${
      names(report.already)
    }\n`;
  }
  const lines = [`applied ${record.id} in ${where}: ${written} file(s)`];
  const byPath = new Map((record.changes?.files ?? []).map((f) => [f.path, f]));
  const line = (path: string, merged: boolean) => {
    const file = byPath.get(path);
    const mode = file?.mode ? ` (mode ${file.mode.from} -> ${file.mode.to})` : "";
    return `  ${file?.status ?? "changed"}  ${safe(path)}${mode}${
      merged ? " (merged with your later edits)" : ""
    }`;
  };
  const all = [
    ...report.applied.map((path) => line(path, false)),
    ...report.merged.map((path) => line(path, true)),
  ];
  lines.push(...all.slice(0, 20));
  if (all.length > 20) lines.push(`  ... and ${all.length - 20} more (\`--json\` lists them all)`);
  if (report.already.length > 0) {
    lines.push(`  already there: ${report.already.length} file(s): ${names(report.already)}`);
  }
  if (report.skipped.length > 0) {
    lines.push(`  submodule changes left alone: ${names(report.skipped)}`);
  }
  return lines.join("\n") + "\n";
}

function appliedJson(applied: Applied) {
  const { record, report } = applied;
  return { id: record.id, repo: placeOf(record), ...report };
}

async function applyGroup(
  engine: Engine,
  sys: Sys,
  group: string,
  options: { allowDelete: boolean; json: boolean },
) {
  const { allowDelete, json } = options;
  const result = await engine.applyGroup(group, { allowDelete });
  const { applied: done, failed, notApplied: rest, live } = result;
  if (json) {
    printJson(sys, {
      group,
      applied: done.map(appliedJson),
      ...(failed ? { failed: { run: failed.run, message: failed.error.message } } : {}),
      notApplied: rest,
      live,
    });
  } else {
    for (const applied of done) sys.out.stdout(describeApplied(applied));
    if (done.length === 0 && failed === undefined) {
      sys.out.stdout(`nothing to apply in group "${group}"\n`);
    }
    if (failed) {
      sys.out.stdout(`stopped at ${failed.run}: ${safe(failed.error.message)}\n`);
      if (failed.error.hint) sys.out.stdout(`  to rebase it: ${failed.error.hint}\n`);
      if (rest.length > 0) sys.out.stdout(`not applied yet: ${rest.join(" ")}\n`);
    }
    if (live.length > 0) {
      sys.out.stdout(`still running (apply them later): ${live.join(" ")}\n`);
    }
  }
  return failed === undefined ? 0 : failed.error.exit;
}

/** Applies isolate runs' patches. */
export const applyCommand: CommandRun<typeof APPLY_FLAGS> = async ({ sys, flags, args }) => {
  const allowDelete = flags["allow-delete"] === true;
  const json = flags.json === true;
  if (flags.group !== undefined) {
    if (args.length > 0) throw new UsageError("Give runs or -g GROUP, not both");
    return await applyGroup(engineFor(sys, flags), sys, flags.group, {
      allowDelete,
      json,
    });
  }
  const engine = engineFor(sys, flags);
  const runs = await engine.list({ runs: args.length > 0 ? args : ["last"] });
  const results: Applied[] = [];
  for (const run of runs) {
    const applied = await engine.apply(run.id, { allowDelete });
    results.push(applied);
    if (!json) sys.out.stdout(describeApplied(applied));
  }
  if (json) {
    printJson(sys, results.length === 1 ? appliedJson(results[0]!) : results.map(appliedJson));
  }
  return 0;
};

/** Removes isolate runs' copies, keeping their patches. */
export const discardCommand: CommandRun<typeof DISCARD_FLAGS> = async ({ sys, flags, args }) => {
  const engine = engineFor(sys, flags);
  const runs = await engine.list({ runs: args.length > 0 ? args : ["last"] });
  const out: RunReport[] = [];
  for (const run of runs) {
    const record = await engine.discard(run.id);
    out.push(record);
    if (!flags.json) {
      sys.out.stdout(
        `discarded the copy of ${record.id} (of ${
          safe(placeOf(record))
        }); its patch stays (\`pitroom show ${record.id} --patch\`)\n`,
      );
      if (record.isolation?.applying) {
        sys.out.stderr(
          `its apply was cut short: finish it with \`pitroom apply ${record.id}\` or take it back with \`pitroom revert ${record.id}\`\n`,
        );
      }
    }
  }
  if (flags.json) {
    printJson(
      sys,
      out.map((r) => ({
        id: r.id,
        repo: placeOf(r),
        discarded: true,
        patch: r.changes?.files.length ?? 0,
      })),
    );
  }
  return 0;
};
