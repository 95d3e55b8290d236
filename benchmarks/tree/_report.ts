/**
 * The human report of a tree benchmark result: one Markdown table (the README takes it as it
 * is) with the medians, ratios against the git baselines and whether each target was met.
 */
import type { TreeBenchResult } from "./run.ts";

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

function markdownTable(rows: string[][]): string {
  const [header, ...body] = rows;
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header!), line(header!.map(() => "---")), ...body.map(line)].join("\n");
}

/** The report: machine, repository, then the table. */
export function formatReport(result: TreeBenchResult): string {
  const m = result.machine;
  const g = result.repo;
  const s = result.series;
  const rows = result.comparisons.map((c) => [
    c.label,
    ms(c.measuredMs),
    c.baseline,
    ms(c.baselineMs),
    `${c.ratio.toFixed(3)}x`,
    `<= ${c.target.toFixed(1)}x`,
    c.met ? "met" : "MISSED",
  ]);
  return [
    `${result.date} · nproc ${m.nproc} · load ${m.loadavgBefore.join(" ")} -> ` +
    `${m.loadavgAfter.join(" ")} · ${m.os} · git ${result.git} · deno ${result.deno}`,
    `command: ${result.command}`,
    `repository: ${g.files.toLocaleString("en-US")} committed files ` +
    `(${(g.bytes / 1e6).toFixed(1)} MB) in ${g.dirs} folders up to ${g.maxDepth} deep, ` +
    `${g.modified} modified, ${g.untracked} untracked, ${g.ignored} ignored; packed`,
    "",
    `Medians of ${result.rounds} interleaved rounds (after ${result.warmup} warm-up)`,
    "",
    markdownTable([
      ["measured", "median", "baseline", "baseline median", "ratio", "target", "result"],
      ...rows,
    ]),
    "",
    `spread (min-max): status ${spread(s.status.samplesMs)}, snapshot new store ` +
    `${spread(s.snapshotNewStore.samplesMs)}, fresh index ${spread(s.snapshotFresh.samplesMs)}, ` +
    `repeat ${spread(s.snapshotRepeat.samplesMs)}, write run ${spread(s.writeRun.samplesMs)}, ` +
    `read run ${spread(s.readRun.samplesMs)}, edit run ${spread(s.editRun.samplesMs)}, ` +
    `watch ${spread(s.watch.samplesMs)}, ` +
    `worktree add ${spread(s.worktreeAdd.samplesMs)}, copy ${spread(s.copy.samplesMs)}`,
  ].join("\n");
}

function spread(samples: readonly number[]): string {
  return `${Math.round(Math.min(...samples))}-${Math.round(Math.max(...samples))} ms`;
}
