/**
 * `pitroom_audit`: another worker and model re-checks a finished read answer against the
 * repository, handed to the host, then a wait of up to `waitSeconds`. The result holds the audit
 * run and the audited run, whose `audit` field carries the verdict (AGREE, PARTLY, DISAGREE) and
 * the disputed claims once the audit ended. Cancelling the call stops the audit.
 */
import { schemas } from "../../../engine/mod.ts";
import { defineTool } from "../tool.ts";
import { followStarted, runsAnswer, RunsResult, STARTS_RUNS, waitSecondsInput } from "./_runs.ts";

const { auditRequestSchema } = await schemas();
const input = auditRequestSchema().omit({ background: true }).extend({
  waitSeconds: waitSecondsInput("the audit"),
});

export const auditTool = defineTool({
  name: "pitroom_audit",
  title: "Audit a read answer by another model",
  description: [
    "Have another worker and model (never the one that answered) re-check a finished read run's",
    "answer against the repository. The audited run's report gets `audit`: the verdict AGREE,",
    "PARTLY or DISAGREE and the DISPUTED claims. Audits are not counted as runs or savings.",
  ].join(" "),
  input,
  output: RunsResult,
  annotations: STARTS_RUNS,
  async call({ waitSeconds, ...request }, ctx) {
    const started = await ctx.engine.audit({ ...request, background: true });
    const [audit] = await followStarted(ctx, [started.audit], waitSeconds);
    const audited = await ctx.engine.get(started.run);
    return await runsAnswer(ctx, [audited, ...(audit ? [audit] : [])]);
  },
});
