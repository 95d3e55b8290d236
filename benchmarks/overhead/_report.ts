/**
 * The human report of a benchmark result: two Markdown tables (so the README can take them as
 * they are) and the machine line.
 */
import type { Series } from "./_measure.ts";
import type { BenchResult } from "./run.ts";
import type { OwnPart } from "./_workers.ts";

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

function signed(value: number): string {
  return `${value >= 0 ? "+" : ""}${Math.round(value)} ms`;
}

/** A table row: a command's median, its ratio to the baseline and the difference. */
function versus(label: string, measured: Series, baseline: Series): string[] {
  return [
    label,
    ms(measured.medianMs),
    `${(measured.medianMs / baseline.medianMs).toFixed(3)}x`,
    signed(measured.medianMs - baseline.medianMs),
  ];
}

function markdownTable(rows: string[][]): string {
  const [header, ...body] = rows;
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header!), line(header!.map(() => "---")), ...body.map(line)].join("\n");
}

/** The report: machine, run overhead per worker, status start-up. */
export function formatReport(result: BenchResult): string {
  const m = result.machine;
  const parts = [
    `${result.date} · nproc ${m.nproc} · load ${m.loadavgBefore.join(" ")} -> ` +
    `${m.loadavgAfter.join(" ")} · ${m.os} · deno ${result.deno}`,
    `command: ${result.command}`,
  ];
  if (result.workers.length > 0) {
    parts.push(
      "",
      `Run overhead (median of ${result.runsPerSide} interleaved runs per side; target ratio <= ` +
        `${result.targets.run.ratio} or diff <= ${result.targets.run.diffMs} ms)`,
      "",
      markdownTable([
        ["worker", "CLI", "bare", "pitroom run", "ratio", "diff", "pitroom --version", "target"],
        ...result.workers.map((w) => [
          w.worker,
          w.cliVersion,
          ms(w.bare.medianMs),
          ms(w.pitroom.medianMs),
          `${w.ratio.toFixed(3)}x`,
          signed(w.diffMs),
          ms(w.pitroomVersion.medianMs),
          w.meetsTarget ? "met" : "MISSED",
        ]),
      ]),
    );
    if (result.workers.some((w) => w.compare !== undefined)) {
      parts.push(
        "",
        "The --compare pitroom in the same rounds:",
        "",
        markdownTable([
          ["worker", "bare", "compare run", "ratio", "diff", "this run", "this - compare"],
          ...result.workers.flatMap((w) =>
            w.compare === undefined ? [] : [[
              w.worker,
              ms(w.bare.medianMs),
              ms(w.compare.run.medianMs),
              `${w.compare.ratio.toFixed(3)}x`,
              signed(w.compare.diffMs),
              ms(w.pitroom.medianMs),
              signed(w.pitroom.medianMs - w.compare.run.medianMs),
            ]]
          ),
        ]),
      );
    }
    const owned = result.workers.filter((w) => w.own !== null);
    if (owned.length > 0) {
      const cell = (own: OwnPart | null | undefined) =>
        own === null || own === undefined
          ? "-"
          : `${ms(own.total.medianMs)} (${ms(own.before.medianMs)} + ${ms(own.after.medianMs)})`;
      const comparing = owned.some((w) => w.compare !== undefined);
      parts.push(
        "",
        "Pitroom's own part of a run, from its timing marks: its start to the worker's spawn, plus " +
          "the worker's end to its exit (medians; the worker's own time left out):",
        "",
        markdownTable([
          [
            "worker",
            "this: total (before + after)",
            ...(comparing ? ["compare", "this - compare"] : []),
          ],
          ...owned.map((w) => [
            w.worker,
            cell(w.own),
            ...(comparing
              ? [
                cell(w.compare?.own),
                w.compare?.own ? signed(w.own!.total.medianMs - w.compare.own.total.medianMs) : "-",
              ]
              : []),
          ]),
        ]),
      );
    }
  }
  for (const s of result.skipped) parts.push(`skipped ${s.worker}: ${s.reason}`);
  const s = result.status;
  if (s !== null) {
    const count = s.records.toLocaleString("en-US");
    parts.push(
      "",
      `Status start-up with ${count} finished runs (median of ` +
        `${s.status.samplesMs.length} interleaved runs; target status < ${result.targets.statusMs} ms)`,
      "",
      markdownTable([
        ["command", "median", "vs --version", "own cost"],
        ["pitroom --version", ms(s.pitroomVersion.medianMs), "1.000x", "-"],
        versus("pitroom status (empty state dir)", s.statusEmpty, s.pitroomVersion),
        versus("pitroom status (10 runs)", s.statusTen, s.pitroomVersion),
        versus(`pitroom status (${count} runs)`, s.status, s.pitroomVersion),
        versus(`pitroom ls (${count} runs)`, s.ls, s.pitroomVersion),
      ]),
      "",
      `status target: ${s.meetsTarget ? "met" : "MISSED"}`,
    );
  }
  return parts.join("\n");
}
