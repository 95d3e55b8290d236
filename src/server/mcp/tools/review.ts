/**
 * `pitroom_review`: a read-only reviewer on another backend than the implementer's reviews a
 * run's change (or a commit range), handed to the host, then a wait of up to `waitSeconds`. The
 * review run's brief carries the verdict (`verdict`) and the reviewer's answer once it ended; the
 * reviewed run gets the verdict too. Cancelling the call stops the review.
 */
import { schemas } from "../../../engine/mod.ts";
import { resolve } from "../../../sys/path.ts";
import { defineTool } from "../tool.ts";
import { followStarted, runsAnswer, RunsResult, STARTS_RUNS, waitSecondsInput } from "./_runs.ts";

const { reviewRequestSchema } = await schemas();
const input = reviewRequestSchema().omit({ background: true }).extend({
  waitSeconds: waitSecondsInput("the review"),
});

export const reviewTool = defineTool({
  name: "pitroom_review",
  title: "Review a change by a second model",
  description: [
    "Have a worker on another model review a finished write or isolate run's change (run), or",
    "the commits of a branch (range A..B, with plan for a whole-plan review). The reviewer gets",
    "the brief, the implementer's report and the diff (secrets redacted) and must return",
    "SPEC: PASS|FAIL and QUALITY: APPROVED|NEEDS-FIXES with findings by severity; a review",
    "without both verdicts is a failed review, never a pass.",
  ].join(" "),
  input,
  output: RunsResult,
  annotations: STARTS_RUNS,
  async call({ waitSeconds, ...request }, ctx) {
    const started = await ctx.engine.review({
      ...request,
      ...(request.range === undefined ? {} : { dir: resolve(ctx.dir, request.dir ?? ".") }),
      background: true,
    });
    const runs = await followStarted(ctx, [started.id], waitSeconds);
    return await runsAnswer(ctx, runs, { warnings: started.warnings });
  },
});
