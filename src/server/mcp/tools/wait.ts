/**
 * `pitroom_wait`: waits for named runs, a group, or every live run (all, or `any`), up to
 * `timeoutSeconds`; runs still going then come back with their state. Cancelling the call only
 * stops the waiting.
 */
import { z } from "zod/v4";
import { isFinal } from "../../../engine/present.ts";
import { UsageError } from "../../../sys/errors.ts";
import { followRuns } from "../follow.ts";
import { defineTool } from "../tool.ts";
import { MAX_WAIT_SECONDS, runsAnswer, RunsResult } from "./_runs.ts";

/** How long `pitroom_wait` waits when the call does not say. */
export const DEFAULT_WAIT_SECONDS = 50;

const input = z.object({
  runs: z.array(z.string()).optional().describe("run ids (or unique parts, or `last`)"),
  group: z.string().optional().describe("wait for this group's runs"),
  any: z.boolean().optional().describe("return as soon as one run ended"),
  timeoutSeconds: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe(
    `wait at most this long (default ${DEFAULT_WAIT_SECONDS}); runs still going come back as they are`,
  ),
});

export const waitTool = defineTool({
  name: "pitroom_wait",
  title: "Wait for runs",
  description: [
    "Wait for runs started earlier (by pitroom_run, the CLI, anyone) and get their reports.",
    "Name runs, or a group; with neither, every run still going. Runs still going when the",
    "time is up come back with their state: wait again later.",
  ].join(" "),
  input,
  output: RunsResult,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async call({ runs, group, any, timeoutSeconds }, ctx) {
    if (runs !== undefined && runs.length > 0 && group !== undefined) {
      throw new UsageError("Wait for runs or for a group, not both");
    }
    const chosen = runs !== undefined && runs.length > 0
      ? await ctx.engine.list({ runs })
      : group !== undefined
      ? await ctx.engine.list({ group })
      : (await ctx.engine.list({ recent: 0 })).filter((r) => !isFinal(r.state));
    if (chosen.length === 0) {
      throw new UsageError("Nothing to wait for: no runs are running", {
        hint: 'name a run: pitroom_wait {"runs": ["RUN"]}',
      });
    }
    const damaged: string[] = [];
    const reports = await followRuns(ctx, chosen.map((r) => r.id), {
      timeoutMs: (timeoutSeconds ?? DEFAULT_WAIT_SECONDS) * 1000,
      ...(any ? { any: true } : {}),
      onDamage: (line) => damaged.includes(line) || damaged.push(line),
    });
    // A damaged file met is said with the reports, as the CLI says it on stderr.
    return await runsAnswer(ctx, reports, {
      ...(group === undefined ? {} : { group }),
      ...(damaged.length > 0 ? { warnings: damaged } : {}),
    });
  },
});
