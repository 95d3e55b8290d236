/**
 * `pitroom_stop`: stops named runs or a group's live ones (from any process: the host runs
 * them), or clears the cooldowns so rate-limited models are tried again.
 */
import { BriefSchema } from "./_runs.ts";
import { placeOf, runBrief } from "../../../engine/present.ts";
import { z } from "zod/v4";
import { UsageError } from "../../../sys/errors.ts";
import { defineTool } from "../tool.ts";

export const stopTool = defineTool({
  name: "pitroom_stop",
  title: "Stop runs, or clear cooldowns",
  description: [
    "Stop runs (named, or a group's live ones; queued ones too), or with cooldowns: forget every",
    "cooldown so rate-limited or out-of-quota models are tried again.",
  ].join(" "),
  input: z.object({
    runs: z.array(z.string()).optional().describe("run ids (or unique parts, or `last`)"),
    group: z.string().optional().describe("stop this group's live runs"),
    cooldowns: z.boolean().optional().describe("clear every cooldown instead"),
  }),
  output: z.object({
    stopped: z.array(BriefSchema),
    clearedCooldowns: z.number().optional(),
  }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  async call({ runs, group, cooldowns }, ctx) {
    const named = runs !== undefined && runs.length > 0;
    const choices = [named, group !== undefined, cooldowns === true].filter(Boolean).length;
    if (choices !== 1) {
      throw new UsageError("Name runs, a group, or cooldowns to stop (one of them)", {
        hint: 'pitroom_stop {"runs": ["RUN"]}',
      });
    }
    if (cooldowns) {
      const cleared = await ctx.engine.clearCooldowns();
      return {
        result: { stopped: [], clearedCooldowns: cleared },
        text: `cleared ${cleared} cooldown(s)`,
      };
    }
    const stopped = await ctx.engine.stop(named ? { runs: runs! } : { group: group! });
    const text = stopped.length === 0
      ? `nothing to stop in group "${group}"`
      : stopped.map((r) =>
        `${r.id} ${r.state}${r.outcome ? ` (${r.outcome})` : ""} in ${placeOf(r)}`
      ).join("\n");
    const now = ctx.clock.now();
    return {
      result: { stopped: stopped.map((r) => runBrief(r, now, { detail: "line" })) },
      text,
    };
  },
});
