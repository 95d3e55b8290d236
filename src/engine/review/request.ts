/**
 * The one typed request for a review (`pitroom review`, the MCP tool `pitroom_review`): one zod
 * schema, the TypeScript type, the runtime check and the JSON Schema.
 */
import { z } from "zod/v4";
import { UsageError } from "../../sys/errors.ts";
import { MAX_DURATION } from "../../sys/duration.ts";

function build() {
  return z.object({
    run: z.string().optional().describe("the run to review (an id, a unique part, or `last`)"),
    range: z.string().optional().describe("instead of a run: commits `A..B`, from the merge base"),
    plan: z.string().optional().describe("with `range`: the plan file whose text and notes go in"),
    tier: z.string().optional().describe("the reviewer's tier (default: review, or capable)"),
    worker: z.string().optional().describe("the reviewer's worker or chain"),
    model: z.string().optional().describe("the reviewer's model"),
    dir: z.string().optional().describe("with `range`: the repository (default: the caller's)"),
    timeoutMs: z.number().positive().max(MAX_DURATION.ms).optional()
      .describe("kill the reviewer after this long"),
    background: z.boolean().optional().describe("hand the review to the host and return at once"),
  });
}

let built: ReturnType<typeof build> | undefined;

/**
 * The schema of a review request, built the first time it is asked for: a zod schema costs about a
 * millisecond to build, and a command that takes no such request needs none.
 */
export function reviewRequestSchema(): ReturnType<typeof build> {
  return built ??= build();
}

/** A review request. */
export type ReviewRequest = z.infer<ReturnType<typeof build>>;

/** Checks an untrusted review request; a bad one is a usage error naming the first problem. */
export function parseReviewRequest(value: unknown): ReviewRequest {
  const parsed = reviewRequestSchema().safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "request";
    throw new UsageError(`Invalid review request: ${where}: ${issue?.message ?? "not valid"}`);
  }
  const r = parsed.data;
  if ((r.run === undefined) === (r.range === undefined)) {
    throw new UsageError("Review a run or a range: give one of `run` and `range: A..B`");
  }
  if (r.plan !== undefined && r.range === undefined) {
    throw new UsageError("`plan` goes with `range`: a run's review finds its plan itself");
  }
  if (r.tier !== undefined && r.worker !== undefined) {
    throw new UsageError("Choose one of `worker` and `tier`");
  }
  return r;
}

/** The JSON Schema of a review request (for the MCP tool). */
export function reviewRequestJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(reviewRequestSchema()) as Record<string, unknown>;
}
