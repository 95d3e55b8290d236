/**
 * `pitroom_info`: reports without changing anything, by topic: the runs (live and recent), the
 * history (find an earlier answer before asking again), stats and models (pick a worker),
 * savings, cooldowns, the effective config, the doctor's checks. The structured result is what
 * the CLI's `--json` of the same report prints.
 */
import { BriefSchema } from "./_runs.ts";
import { z } from "zod/v4";
import { parseDuration } from "../../../sys/duration.ts";
import { briefText, runBrief, WORKER_NAMES } from "../../../engine/present.ts";
import { defineTool, type ToolContext } from "../tool.ts";

const TOPICS = [
  "runs",
  "history",
  "stats",
  "savings",
  "models",
  "cooldown",
  "config",
  "doctor",
] as const;

const input = z.object({
  topic: z.enum(TOPICS).describe("what to report"),
  query: z.string().optional().describe("history: words to search tasks, answers and steps for"),
  since: z.string().optional().describe(
    "history, stats, savings: a period like 7d or 30d, or all (default: history all, else 30d)",
  ),
  limit: z.number().int().min(1).max(200).optional().describe(
    "runs: recent runs besides the live ones (default 10); history: hits (default 20)",
  ),
  worker: z.string().max(64).optional().describe(
    `models: only this worker (${WORKER_NAMES.join(", ")}, or one of the config's own)`,
  ),
});

const output = z.object({
  topic: z.enum(TOPICS),
  runs: z.array(BriefSchema).optional().describe(
    "topic runs: each run's state and task (its answer: pitroom_show)",
  ),
  data: z.json().optional().describe("every other topic: the CLI's --json of that report"),
});

type Input = z.infer<typeof input>;

function sinceOf(text: string, now: number): number | null {
  return text === "all" ? null : now - parseDuration(text, "since");
}

async function dataOf(topic: Exclude<Input["topic"], "runs">, i: Input, ctx: ToolContext) {
  const { engine } = ctx;
  const now = ctx.clock.now();
  switch (topic) {
    case "history": {
      const since = sinceOf(i.since ?? "all", now);
      return await engine.history.search({
        ...(i.query ? { text: i.query } : {}),
        ...(since === null ? {} : { since }),
      }, { limit: i.limit ?? 20, marks: ["**", "**"] });
    }
    case "stats":
      return await engine.history.stats({ since: sinceOf(i.since ?? "30d", now) });
    case "savings":
      return await engine.savings({ since: sinceOf(i.since ?? "30d", now) });
    case "models":
      return await engine.models(i.worker);
    case "cooldown":
      return await engine.cooldowns();
    case "config": {
      const { loaded, settings, warnings } = await engine.settings();
      return { configPath: loaded.path, configExists: loaded.exists, settings, warnings };
    }
    case "doctor":
      return await engine.doctor();
  }
}

export const infoTool = defineTool({
  name: "pitroom_info",
  title: "Pitroom reports",
  description: [
    "Read-only reports by topic: runs (live and recent), history (search earlier runs before",
    "asking again), stats and models (which worker to pick), savings, cooldown, config, doctor.",
  ].join(" "),
  input,
  output,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async call(i, ctx) {
    if (i.topic === "runs") {
      const now = ctx.clock.now();
      const runs = (await ctx.engine.list({ recent: i.limit ?? 10 })).map((r) =>
        runBrief(r, now, { detail: "line" })
      );
      const text = runs.length === 0 ? "no runs yet" : runs.map(briefText).join("\n\n");
      return {
        result: { topic: i.topic, runs },
        text,
        line: `${runs.length} run(s)`,
      };
    }
    // As JSON: what the CLI prints with --json (fields left undefined are left out).
    const data = JSON.parse(JSON.stringify(await dataOf(i.topic, i, ctx)));
    return {
      result: { topic: i.topic, data },
      text: JSON.stringify(data),
      line: `pitroom_info ${i.topic}: the report is the structured content`,
    };
  },
});
