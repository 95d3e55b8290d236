/**
 * `pitroom_run`: one task (or `tasks`, a crew) handed to the state dir's host, then a wait of up
 * to `waitSeconds`. A run still going then is returned with its id and state, never an error;
 * cancelling the call stops the runs it started (a closed session does not).
 */
import { z } from "zod/v4";
import { RunRequestSchema } from "../../../engine/mod.ts";
import { resolve } from "../../../sys/path.ts";
import { followRuns } from "../follow.ts";
import { defineTool } from "../tool.ts";
import { MAX_WAIT_SECONDS, runsAnswer, RunsResult, stoppedIfCancelled } from "./_runs.ts";

/** How long `pitroom_run` waits when the call does not say. */
export const DEFAULT_RUN_WAIT_SECONDS = 50;

const input = RunRequestSchema.omit({ background: true }).extend({
  waitSeconds: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe(
    `wait this long for the runs to end (default ${DEFAULT_RUN_WAIT_SECONDS}; 0 returns at once); ` +
      "a run still going then comes back with its id and state",
  ),
});

export const runTool = defineTool({
  name: "pitroom_run",
  title: "Run a task on a worker",
  description: [
    "Give a task to a cheaper worker agent (opencode, codex, claude, gemini) that works in the",
    "background and answer with its report: the answer, the files it changed, its receipt.",
    "mode: read (default, nothing may change), write (edit in place, exactly revertable), isolate",
    "(a private copy; pitroom_apply lands it). tasks: several independent tasks at once (a crew,",
    "one worker each). continue: a follow-up in a finished run's worker session.",
  ].join(" "),
  input,
  output: RunsResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  async call({ waitSeconds, ...request }, ctx) {
    // A follow-up works where its run did; anything else in the server's directory by default.
    const inherits = request.continue !== undefined && request.dir === undefined;
    const started = await ctx.engine.start(
      inherits ? request : { ...request, dir: resolve(ctx.dir, request.dir ?? ".") },
    );
    const runs = await stoppedIfCancelled(ctx, started.ids, () =>
      followRuns(ctx, started.ids, {
        timeoutMs: (waitSeconds ?? DEFAULT_RUN_WAIT_SECONDS) * 1000,
      }));
    return await runsAnswer(ctx, runs, {
      ...(started.group === undefined ? {} : { group: started.group }),
      warnings: started.warnings,
    });
  },
});
