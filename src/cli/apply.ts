/**
 * `pitroom apply RUN | -g GROUP [--allow-delete]` and `pitroom discard RUN`: what becomes of an
 * isolate run's patch. A group is applied in the order its runs were started, stopping at the
 * first run that does not apply.
 */
import { type Applied, applyRun, discardRun } from "../engine/apply.ts";
import { PitroomError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { RunRecord } from "../store/record.ts";
import type { CommandRun } from "./command.ts";
import { printJson } from "./output.ts";
import { loadGroup, loadNamed } from "./runs.ts";

function describeApplied(applied: Applied): string {
  const { record, report } = applied;
  const lines = [`applied ${record.id}: ${report.applied.length + report.merged.length} file(s)`];
  const status = new Map((record.changes?.files ?? []).map((f) => [f.path, f.status]));
  for (const path of report.applied) lines.push(`  ${status.get(path) ?? "changed"}  ${path}`);
  for (const path of report.merged) {
    lines.push(`  ${status.get(path) ?? "changed"}  ${path} (merged with your later edits)`);
  }
  if (report.already.length > 0) {
    lines.push(`  already there: ${report.already.join(", ")}`);
  }
  if (report.skipped.length > 0) {
    lines.push(`  submodule changes left alone: ${report.skipped.join(", ")}`);
  }
  return lines.join("\n") + "\n";
}

function appliedJson(applied: Applied) {
  const { record, report } = applied;
  return { id: record.id, ...report };
}

/**
 * The group's isolate runs that are finished, ok and not applied yet, in the order they were
 * created (ids of the same second do not sort by time).
 */
function pending(runs: RunRecord[]): RunRecord[] {
  return runs.filter((r) =>
    r.mode === "isolate" && r.outcome === "ok" && r.isolation?.applied === undefined &&
    r.isolation?.discarded === undefined && (r.changes?.files.length ?? 0) > 0
  ).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

async function applyGroup(sys: Sys, group: string, allowDelete: boolean, json: boolean) {
  const runs = await loadGroup(sys, group);
  const live = runs.filter((r) => r.state === "queued" || r.state === "running");
  const todo = pending(runs);
  const done: Applied[] = [];
  let failed: { run: string; error: PitroomError } | null = null;
  for (const run of todo) {
    try {
      const applied = await applyRun(sys, run.id, { allowDelete });
      done.push(applied);
      if (!json) sys.out.stdout(describeApplied(applied));
    } catch (error) {
      if (!(error instanceof PitroomError)) throw error;
      failed = { run: run.id, error };
      break;
    }
  }
  const rest = failed === null ? [] : todo.slice(done.length + 1).map((r) => r.id);
  if (json) {
    printJson(sys, {
      group,
      applied: done.map(appliedJson),
      ...(failed ? { failed: { run: failed.run, message: failed.error.message } } : {}),
      notApplied: rest,
      live: live.map((r) => r.id),
    });
  } else {
    if (todo.length === 0) sys.out.stdout(`nothing to apply in group "${group}"\n`);
    if (failed) {
      sys.out.stdout(`stopped at ${failed.run}: ${failed.error.message}\n`);
      if (failed.error.hint) sys.out.stdout(`  to rebase it: ${failed.error.hint}\n`);
      if (rest.length > 0) sys.out.stdout(`not applied yet: ${rest.join(" ")}\n`);
    }
    if (live.length > 0) {
      sys.out.stdout(`still running (apply them later): ${live.map((r) => r.id).join(" ")}\n`);
    }
  }
  return failed === null ? 0 : failed.error.exit;
}

/** Applies isolate runs' patches. */
export const applyCommand: CommandRun = async ({ sys, flags, args }) => {
  const allowDelete = flags["allow-delete"] === true;
  const json = flags.json === true;
  if (flags.group !== undefined) {
    if (args.length > 0) throw new UsageError("Give runs or -g GROUP, not both");
    return await applyGroup(sys, flags.group as string, allowDelete, json);
  }
  const runs = await loadNamed(sys, args.length > 0 ? args : ["last"]);
  const results: Applied[] = [];
  for (const run of runs) {
    const applied = await applyRun(sys, run.id, { allowDelete });
    results.push(applied);
    if (!json) sys.out.stdout(describeApplied(applied));
  }
  if (json) {
    printJson(sys, results.length === 1 ? appliedJson(results[0]!) : results.map(appliedJson));
  }
  return 0;
};

/** Removes isolate runs' copies, keeping their patches. */
export const discardCommand: CommandRun = async ({ sys, flags, args }) => {
  const runs = await loadNamed(sys, args.length > 0 ? args : ["last"]);
  const out: RunRecord[] = [];
  for (const run of runs) {
    const record = await discardRun(sys, run.id);
    out.push(record);
    if (!flags.json) {
      sys.out.stdout(
        `discarded the copy of ${record.id}; its patch stays (\`pitroom show ${record.id} --patch\`)\n`,
      );
    }
  }
  if (flags.json) {
    printJson(
      sys,
      out.map((r) => ({ id: r.id, discarded: true, patch: r.changes?.files.length ?? 0 })),
    );
  }
  return 0;
};
