/**
 * `show` of a run whose folder was cleaned: the report, steps and patch the history keeps.
 */
import { safeLine } from "./safe.ts";
import type { KeptRun, Step } from "../engine/mod.ts";
import { stepEvents } from "../engine/present.ts";
import type { Sys } from "../sys/mod.ts";
import { printJson, printJsonLine } from "./output.ts";
import { renderReport } from "./report.ts";

/** The steps as report lines. */
export function renderSteps(steps: Step[]): string {
  if (steps.length === 0) return "steps: (none kept)\n";
  const lines = ["steps:"];
  for (const s of steps) {
    if (s.type === "tool") {
      const status = s.status === "ok"
        ? ""
        : `  ${s.status}${s.text ? `: ${safeLine(s.text, 60)}` : ""}`;
      lines.push(`  ${(s.kind ?? "other").padEnd(6)} ${safeLine(s.target ?? "", 80)}${status}`);
    } else {
      lines.push(`  ${s.type.padEnd(6)} ${safeLine(s.text ?? "", 90)}`);
    }
  }
  return lines.join("\n") + "\n";
}

/**
 * Prints a kept run's report or events the way `show` prints one with a folder (its patch:
 * show.ts): `why` the history's copy is shown, its folder cleaned or its run.json damaged (the
 * damage is named by the caller).
 */
export function showKept(
  sys: Sys,
  flags: { readonly events?: boolean; readonly json?: boolean; readonly full?: boolean },
  kept: KeptRun,
  why: "cleaned" | "damaged" = "cleaned",
): number {
  const { record } = kept;
  const note = why === "cleaned"
    ? `Run "${record.id}": its folder was cleaned; this is what the history keeps\n`
    : `Run "${record.id}": this is the history's copy of its record\n`;
  if (flags.events) {
    sys.out.stderr(
      `${note}(its steps only: ${
        why === "cleaned" ? "the events file went with the folder" : "the history keeps no more"
      })\n`,
    );
    for (const ev of stepEvents(kept.steps)) printJsonLine(sys, ev);
    return 0;
  }
  if (flags.json) {
    printJson(sys, record);
    return 0;
  }
  sys.out.stderr(note);
  sys.out.stdout(
    renderReport(record, sys.clock.now(), { full: flags.full === true }) + "\n" +
      renderSteps(kept.steps),
  );
  return 0;
}
