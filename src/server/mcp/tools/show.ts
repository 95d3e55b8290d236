/**
 * `pitroom_show`: one run's report, and on request its exact patch and its events. A run whose
 * folder was cleaned comes from the history, as `pitroom show` gives it: its record, its steps as
 * events and its patch, with `kept: true`.
 */
import { stepEvents } from "../../../engine/mod.ts";
import { ReportSchema } from "./_runs.ts";
import { z } from "zod/v4";
import { runText } from "../render.ts";
import { defineTool } from "../tool.ts";

const input = z.object({
  run: z.string().describe("run id (or a unique part of it, or `last`)"),
  patch: z.boolean().optional().describe("add the exact diff the worker made"),
  events: z.boolean().optional().describe("add the run's events"),
  since: z.number().int().min(0).optional().describe("with events: from this event index"),
});

const output = z.object({
  report: ReportSchema,
  patch: z.string().optional(),
  events: z.array(z.object({ type: z.string(), time: z.number() }).catchall(z.json())).optional()
    .describe("the run's events (`pitroom help events` describes each type)"),
  kept: z.boolean().optional().describe(
    "true: the run's folder was cleaned and this is what the history keeps (events are its steps)",
  ),
});

export const showTool = defineTool({
  name: "pitroom_show",
  title: "Show a run",
  description: "One run's report (answer, changes, receipt), with its exact patch or events.",
  input,
  output,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async call({ run, patch, events, since }, ctx) {
    const found = await ctx.engine.found(run);
    const { report, kept } = found;
    const diff = patch ? await ctx.engine.foundPatch(found) : undefined;
    const evs = !events
      ? undefined
      : kept === null
      ? await ctx.engine.events(report.id, since === undefined ? {} : { since })
      : stepEvents(kept.steps).slice(since ?? 0);
    const parts = [runText(report, ctx.clock.now())];
    if (kept !== null) {
      parts.unshift(`Run "${report.id}": its folder was cleaned; this is what the history keeps`);
    }
    if (diff !== undefined) parts.push(diff);
    if (evs !== undefined) parts.push(evs.map((e) => JSON.stringify(e)).join("\n"));
    return {
      result: {
        report,
        ...(diff === undefined ? {} : { patch: diff }),
        ...(evs === undefined ? {} : { events: evs }),
        ...(kept === null ? {} : { kept: true }),
      },
      text: parts.join("\n\n"),
    };
  },
});
