/**
 * `pitroom_show`: one run's brief (what an agent acts on), with `full` its whole report (every
 * field of `pitroom show --json`: attempts, settings, snapshots), and on request its exact patch
 * and its events. A run whose folder was cleaned comes from the history, as `pitroom show` gives
 * it: its record, its steps as events and its patch, with `kept: true`.
 */
import type { PitroomEvent } from "../../../engine/mod.ts";
import { briefHead, briefText, runBrief, stepEvents } from "../../../engine/present.ts";
import { BriefSchema, ReportSchema } from "./_runs.ts";
import { z } from "zod/v4";
import { defineTool } from "../tool.ts";

const input = z.object({
  run: z.string().describe("run id (or a unique part of it, or `last`)"),
  full: z.boolean().optional().describe(
    "add the whole report (every field of `pitroom show --json`: attempts, settings, snapshots)",
  ),
  patch: z.boolean().optional().describe("add the exact diff the worker made"),
  events: z.boolean().optional().describe("add the run's events"),
  since: z.number().int().min(0).optional().describe("with events: from this event index"),
});

const output = z.object({
  run: BriefSchema,
  report: ReportSchema.optional().describe("with full: the whole report"),
  patch: z.string().optional(),
  events: z.array(z.object({ type: z.string(), time: z.number() }).catchall(z.json())).optional()
    .describe("the run's events (`pitroom help events` describes each type)"),
  kept: z.boolean().optional().describe(
    "true: the run's folder was cleaned (or its run.json is damaged) and this is what the history keeps (events are its steps)",
  ),
  damaged: z.array(z.string()).optional().describe(
    "each damaged file of the run met: which file, and what still works",
  ),
});

export const showTool = defineTool({
  name: "pitroom_show",
  title: "Show a run",
  description: [
    "One run's brief (answer, changes, next steps, receipt); full adds the whole report, patch",
    "the exact diff, events the run's events.",
  ].join(" "),
  input,
  output,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async call({ run, full, patch, events, since }, ctx) {
    const found = await ctx.engine.found(run);
    const { report, kept } = found;
    const damaged = found.damage === undefined ? [] : [found.damage.message];
    const diff = patch ? await ctx.engine.foundPatch(found) : undefined;
    let evs: PitroomEvent[] | undefined;
    // A damaged run.json leaves its folder's events file: it is read as usual.
    if (events && (kept === null || found.damage !== undefined)) {
      const read = await ctx.engine.eventsFound(report.id, since === undefined ? {} : { since });
      evs = read.events;
      if (read.damage !== null) damaged.push(read.damage.message);
    } else if (events) evs = stepEvents(kept!.steps).slice(since ?? 0);
    const brief = runBrief(report, ctx.clock.now());
    const head: string[] = [...damaged];
    if (kept !== null) {
      head.push(
        found.damage === undefined
          ? `Run "${report.id}": its folder was cleaned; this is what the history keeps`
          : `Run "${report.id}": this is the history's copy of its record`,
      );
    }
    const tail: string[] = [];
    if (full) tail.push(JSON.stringify(report));
    if (diff !== undefined) tail.push(diff);
    if (evs !== undefined) tail.push(evs.map((e) => JSON.stringify(e)).join("\n"));
    return {
      result: {
        run: brief,
        ...(full ? { report } : {}),
        ...(diff === undefined ? {} : { patch: diff }),
        ...(evs === undefined ? {} : { events: evs }),
        ...(kept === null ? {} : { kept: true }),
        ...(damaged.length === 0 ? {} : { damaged }),
      },
      text: [...head, briefText(brief), ...tail].join("\n\n"),
      line: [...head, briefHead(brief)].join("\n"),
    };
  },
});
