/**
 * The one typed request for a run (or a crew of runs). Defined once with zod: the TypeScript
 * type, the runtime check (`parseRequest`) and the JSON Schema MCP tools publish
 * (`runRequestJsonSchema`). The CLI parses its flags into it; `engine.start`/`engine.run` turn
 * it into runs (build.ts). Nothing else builds runs.
 */
import { z } from "zod/v4";
import { UsageError } from "../../sys/errors.ts";
import { MAX_DURATION } from "../../sys/duration.ts";
import { MODE_NAMES } from "../../workers/modes.ts";

function build() {
  const positive = z.number().positive();
  return z.object({
    task: z.string().optional().describe("the task; give this or `tasks`"),
    tasks: z.array(z.string()).optional().describe("a crew: one background run per task"),
    mode: z.enum(MODE_NAMES).optional()
      .describe("read (default), write in place, or isolate (a private copy)"),
    worker: z.string().optional().describe("worker or chain: opencode, codex:gpt-5.5,claude"),
    model: z.string().optional().describe("model of the first worker"),
    tier: z.string().optional().describe("use the worker of a tier: cheap, standard, ..."),
    effort: z.string().optional().describe("reasoning effort (low, medium, high, ...)"),
    dir: z.string().optional().describe("directory to work in (default: the caller's)"),
    files: z.array(z.string()).optional().describe("files attached to the task"),
    verify: z.string().optional().describe("command run in the worker's tree after it succeeds"),
    link: z.array(z.string()).optional().describe("isolate runs: ignored folders to link in"),
    host: z.string().optional().describe(
      "isolate runs: run the worker on this host of the config's `hosts` (SSH or a container)",
    ),
    allowLinks: z.boolean().optional().describe(
      "isolate runs without a sandbox: run although links in the tree lead out of the copy",
    ),
    allowSecrets: z.boolean().optional().describe(
      "write and isolate runs: let the worker read the tree's secret-looking files (.env, keys)",
    ),
    web: z.boolean().optional().describe("allow the worker to fetch web pages"),
    group: z.string().optional().describe("the group the run joins"),
    caps: z.object({
      maxTokens: positive.optional(),
      maxCost: positive.optional(),
      maxSteps: positive.optional(),
    }).optional().describe("stop the worker once it reaches one of these"),
    timeoutMs: z.number().positive().max(MAX_DURATION.ms).optional().describe(
      "kill the worker after this long",
    ),
    noFallback: z.boolean().optional().describe("do not move along the fallback chain"),
    park: z.boolean().optional().describe(
      "when every worker of the chain is out of quota, wait (within the timeout) for the first to come back instead of failing; default: the config's `park`",
    ),
    continue: z.string().optional().describe("follow up on a finished run (or `last`)"),
    fresh: z.boolean().optional().describe(
      "ask a worker again instead of reusing the cached answer of the same question",
    ),
    background: z.boolean().optional().describe("hand the run to the host and return at once"),
    plan: z.string().optional().describe(
      "a plan file: the worker gets task `step`'s implementer brief (`task` is the notes)",
    ),
    step: z.number().int().positive().optional().describe("with `plan`: the task's number"),
    audit: z.boolean().optional().describe(
      "read runs: have another worker audit the answer (true) or never (false); default: the config's sample rate",
    ),
  });
}

let built: ReturnType<typeof build> | undefined;

/**
 * The schema of a run request, built the first time it is asked for: a zod schema costs about a
 * millisecond to build, and a command that takes no such request needs none.
 */
export function runRequestSchema(): ReturnType<typeof build> {
  return built ??= build();
}

/** A run request (what `engine.start` and `engine.run` take). */
export type RunRequest = z.infer<ReturnType<typeof build>>;

/** Checks an untrusted request; a bad one is a usage error naming the first problem. */
export function parseRequest(value: unknown): RunRequest {
  const parsed = runRequestSchema().safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.join(".") || "request";
  throw new UsageError(`Invalid run request: ${where}: ${issue?.message ?? "not valid"}`);
}

/** The JSON Schema of a run request (for MCP tools). */
export function runRequestJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(runRequestSchema()) as Record<string, unknown>;
}
