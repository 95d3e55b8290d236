/**
 * What the run-waiting tools share: the result shape (the runs' reports, the ids still going,
 * the dashboard's address) and how it is built once a wait ended.
 */
import { z } from "zod/v4";
import { type RunReport, schemas } from "../../../engine/mod.ts";
import { isFinal } from "../../../engine/present.ts";
import { followRuns } from "../follow.ts";
import { runsText } from "../render.ts";
import type { ToolAnswer, ToolContext } from "../tool.ts";

/** After this long a run still going gets the dashboard's address in the result. */
export const DASH_AFTER_MS = 3000;

/** The longest wait a call takes. */
export const MAX_WAIT_SECONDS = 3600;

/** How long a call that starts runs waits for them when it does not say. */
export const DEFAULT_RUN_WAIT_SECONDS = 50;

/** The `waitSeconds` input of the tools that start runs (run, review, audit). */
export function waitSecondsInput(what: string) {
  return z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe(
    `wait this long for ${what} to end (default ${DEFAULT_RUN_WAIT_SECONDS}; 0 returns at once); ` +
      "one still going then comes back with its id and state",
  );
}

/** The annotations of the tools that start runs: they write, add and reach workers. */
export const STARTS_RUNS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/**
 * A run's report in the tools' output schemas: the fields an agent acts on, named with their
 * types, and every other field of `runReportSchema()` let through as it is. The whole report
 * schema in each of ten tools made a 100 KB `tools/list`, paid for in every agent's context.
 */
const { runReportSchema } = await schemas();

export const ReportSchema = runReportSchema().pick({
  id: true,
  state: true,
  outcome: true,
  exit: true,
  mode: true,
  task: true,
  group: true,
  cwd: true,
  createdAt: true,
  endedAt: true,
  message: true,
  answer: true,
  refs: true,
  cached: true,
}).catchall(z.json()).describe(
  "a run's report, every field of `pitroom show --json`",
) as unknown as z.ZodType<
  RunReport,
  RunReport
>;

/** The structured result of `pitroom_run` and `pitroom_wait`. */
export const RunsResult = z.object({
  runs: z.array(ReportSchema).describe("each run's report, as `pitroom show --json` prints it"),
  still: z.array(z.string()).describe(
    "ids of the runs still going when the wait ended: collect them with pitroom_wait",
  ),
  group: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  dashboard: z.string().optional().describe("the live dashboard's address, for runs still going"),
});

/**
 * Follows the runs this call started for up to `waitSeconds` (default
 * `DEFAULT_RUN_WAIT_SECONDS`): when the call is cancelled, the runs are stopped (`pitroom_run`,
 * `pitroom_review`, `pitroom_audit`); when the session closed, they go on.
 */
export async function followStarted(
  ctx: ToolContext,
  ids: readonly string[],
  waitSeconds: number | undefined,
): Promise<RunReport[]> {
  try {
    return await followRuns(ctx, ids, {
      timeoutMs: (waitSeconds ?? DEFAULT_RUN_WAIT_SECONDS) * 1000,
    });
  } catch (error) {
    if (ctx.extra.signal.aborted && ctx.connected()) await ctx.engine.stop({ runs: [...ids] });
    throw error;
  }
}

/** The answer for runs whose wait ended. */
export async function runsAnswer(
  ctx: ToolContext,
  runs: RunReport[],
  extra: { group?: string; warnings?: string[] } = {},
): Promise<ToolAnswer<z.input<typeof RunsResult>>> {
  const now = ctx.clock.now();
  const still = runs.filter((r) => !isFinal(r.state));
  const dashboard = still.some((r) => now - r.createdAt >= DASH_AFTER_MS)
    ? await ctx.dashAddress()
    : undefined;
  const warnings = extra.warnings ?? [];
  const text = runsText(runs, now, dashboard);
  return {
    result: {
      runs,
      still: still.map((r) => r.id),
      ...(extra.group === undefined ? {} : { group: extra.group }),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(dashboard === undefined ? {} : { dashboard }),
    },
    text: warnings.length > 0
      ? `${warnings.map((w) => `warning: ${w}`).join("\n")}\n${text}`
      : text,
    // One task refused before it worked is what the CLI reports as an error.
    ...(runs.length === 1 && runs[0]!.outcome === "refused" ? { isError: true } : {}),
  };
}
