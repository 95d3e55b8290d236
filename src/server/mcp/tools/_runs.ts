/**
 * What the run-waiting tools share: the result shape (each run's brief, the ids still going, the
 * dashboard's address) and how it is built once a wait ended. A brief is what an agent acts on
 * (engine/follow/brief.ts); the whole report is `pitroom_show` with `full`, or the run's resource.
 */
import { z } from "zod/v4";
import { type RunReport, schemas } from "../../../engine/mod.ts";
import {
  briefHead,
  type BriefOptions,
  briefText,
  isFinal,
  runBrief,
} from "../../../engine/present.ts";
import { followRuns } from "../follow.ts";
import type { HandingOver, ToolContext } from "../tool.ts";

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

const { runReportSchema, runBriefSchema } = await schemas();

/**
 * A run's whole report in the output schema of `pitroom_show` with `full`: the fields an agent
 * acts on, named with their types, and every other field of `runReportSchema()` let through as it
 * is (the whole report schema made `tools/list` 100 KB, paid for in every agent's context).
 */
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

/** A run as an agent is handed it (engine/follow/brief.ts). */
export const BriefSchema = runBriefSchema().describe(
  "a run as an agent acts on it; the whole report is pitroom_show with full",
);

/** The structured result of `pitroom_run`, `pitroom_wait`, `pitroom_review`, `pitroom_audit`. */
export const RunsResult = z.object({
  runs: z.array(BriefSchema),
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

/** Options of `runsAnswer`. */
export interface RunsAnswerOptions {
  group?: string;
  warnings?: string[];
  /** How much of each run the briefs say, by run id (`full` when not named). */
  detail?: Readonly<Record<string, BriefOptions["detail"]>>;
}

/** The answer for runs whose wait ended: it hands them over (tool.ts settles and records it). */
export async function runsAnswer(
  ctx: ToolContext,
  runs: RunReport[],
  options: RunsAnswerOptions = {},
): Promise<HandingOver<z.input<typeof RunsResult>>> {
  const now = ctx.clock.now();
  const still = runs.filter((r) => !isFinal(r.state));
  const dashboard = still.some((r) => now - r.createdAt >= DASH_AFTER_MS)
    ? await ctx.dashAddress()
    : undefined;
  const warnings = options.warnings ?? [];
  const said = [
    ...warnings.map((w) => `warning: ${w}`),
    ...(dashboard === undefined ? [] : [`Live view of every run: ${dashboard}`]),
  ];
  return {
    runs,
    render(shown) {
      const briefs = shown.map((r) =>
        runBrief(r, now, { detail: options.detail?.[r.id] ?? "full" })
      );
      const text = [...briefs.map(briefText), ...said].join("\n\n");
      const line = [...briefs.map(briefHead), ...said].join("\n");
      return {
        result: {
          runs: briefs,
          still: still.map((r) => r.id),
          ...(options.group === undefined ? {} : { group: options.group }),
          ...(warnings.length > 0 ? { warnings } : {}),
          ...(dashboard === undefined ? {} : { dashboard }),
        },
        text,
        line,
        // One task refused before it worked is what the CLI reports as an error.
        ...(runs.length === 1 && runs[0]!.outcome === "refused" ? { isError: true } : {}),
      };
    },
  };
}
