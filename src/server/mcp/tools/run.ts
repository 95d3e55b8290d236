/**
 * `pitroom_run`: one task (or `tasks`, a crew) handed to the state dir's host, then a wait of up
 * to `waitSeconds`. A run still going then is returned with its id and state, never an error;
 * cancelling the call stops the runs it started (a closed session does not).
 */
import { schemas } from "../../../engine/mod.ts";
import { resolve } from "../../../sys/path.ts";
import { defineTool } from "../tool.ts";
import { followStarted, runsAnswer, RunsResult, STARTS_RUNS, waitSecondsInput } from "./_runs.ts";

const { runRequestSchema } = await schemas();
const input = runRequestSchema().omit({ background: true }).extend({
  waitSeconds: waitSecondsInput("the runs"),
});

export const runTool = defineTool({
  name: "pitroom_run",
  title: "Run a task on a worker",
  description: [
    "Give a task to a cheaper worker agent (opencode, codex, claude, gemini, qwen, kilo, copilot, crush) that works in the",
    "background and answer with its brief: the answer, the files it changed, next steps, its",
    "receipt (the whole report: pitroom_show with full).",
    "mode: read (default, nothing may change), write (edit in place, exactly revertable), isolate",
    "(a private copy; pitroom_apply lands it). tasks: several independent tasks at once (a crew,",
    "one worker each). continue: a follow-up in a finished run's worker session.",
  ].join(" "),
  input,
  output: RunsResult,
  annotations: STARTS_RUNS,
  async call({ waitSeconds, ...request }, ctx) {
    // A follow-up works where its run did; anything else in the server's directory by default.
    const inherits = request.continue !== undefined && request.dir === undefined;
    const started = await ctx.engine.start(
      inherits ? request : { ...request, dir: resolve(ctx.dir, request.dir ?? ".") },
    );
    const runs = await followStarted(ctx, started.ids, waitSeconds);
    return await runsAnswer(ctx, runs, {
      ...(started.group === undefined ? {} : { group: started.group }),
      warnings: started.warnings,
    });
  },
});
