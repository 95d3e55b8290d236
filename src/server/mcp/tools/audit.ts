/**
 * `pitroom_audit`: another worker and model re-checks a finished read answer against the
 * repository, handed to the host, then a wait of up to `waitSeconds`. The result holds the briefs
 * of the audited run, whose `audit` says the verdict (AGREE, PARTLY, DISAGREE) once the audit
 * ended and `disputed` the claims, and of the audit run (neither repeats the answer, which the
 * agent has). Cancelling the call stops the audit.
 */
import { schemas } from "../../../engine/mod.ts";
import { isFinal } from "../../../engine/present.ts";
import { defineTool } from "../tool.ts";
import { followStarted, runsAnswer, RunsResult, STARTS_RUNS, waitSecondsInput } from "./_runs.ts";

const { auditRequestSchema } = await schemas();

/** How long the result waits for the host to copy an ended audit's verdict onto the run. */
const SETTLE_MS = 10_000;
const input = auditRequestSchema().omit({ background: true }).extend({
  waitSeconds: waitSecondsInput("the audit"),
});

export const auditTool = defineTool({
  name: "pitroom_audit",
  title: "Audit a read answer by another model",
  description: [
    "Have another worker and model (never the one that answered) re-check a finished read run's",
    "answer against the repository. The audited run's brief gets `audit`: the verdict AGREE,",
    "PARTLY or DISAGREE, and `disputed`: the claims. Audits are not counted as runs or savings.",
  ].join(" "),
  input,
  output: RunsResult,
  annotations: STARTS_RUNS,
  async call({ waitSeconds, ...request }, ctx) {
    const started = await ctx.engine.audit({ ...request, background: true });
    const [audit] = await followStarted(ctx, [started.audit], waitSeconds);
    // An audit that ended is copied onto the audited run by the host just after: its verdict.
    const audited = audit !== undefined && isFinal(audit.state)
      ? await ctx.engine.auditSettled(started.run, started.audit, {
        timeoutMs: SETTLE_MS,
        signal: ctx.extra.signal,
      })
      : await ctx.engine.get(started.run);
    // The agent has the answer: the audit's result is its verdict and the disputed claims.
    return await runsAnswer(ctx, [audited, ...(audit ? [audit] : [])], {
      detail: { [audited.id]: "verdict", [started.audit]: "verdict" },
    });
  },
});
