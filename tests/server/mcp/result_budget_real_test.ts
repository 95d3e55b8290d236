/**
 * The tools that start runs (pitroom_run, pitroom_review, pitroom_audit) held to the result budget
 * (_budget.ts) over the real program (`pitroom mcp` on stdio) and real workers on the scripted
 * model: codex answers and edits, claude reviews and audits, for a client named as Claude Code
 * (the whole result counts). result_budget_test.ts holds the other tools, and a generic client's
 * parts (in-process, fast).
 */
import assert from "node:assert/strict";
import { assertWithin, runsBudget } from "./_budget.ts";
import { engineOf, stdioClient, structured, textOf, world } from "./_world.ts";

const ANSWER = [
  "The answer is defined in src/app.ts:1 as the exported constant `answer`.",
  "",
  "- src/app.ts:1 exports `answer = 41`; nothing else is in the file.",
  "- README.md:1 is the title only.",
].join("\n");

const SCENARIOS = {
  read: { turns: [{ read: "src/app.ts" }, { answer: ANSWER }] },
  edit: {
    turns: [
      { edit: { path: "src/app.ts", old: "41", new: "42" } },
      { answer: "Set it to 42 in src/app.ts." },
    ],
  },
  review: {
    turns: [{
      answer: "SPEC: PASS\nQUALITY: APPROVED\n\nFindings:\n- Minor: src/app.ts:1 has no comment.",
    }],
  },
  audit: {
    turns: [{ answer: "AUDIT: PARTLY\nDISPUTED:\n- README.md:1 is more than a title" }],
  },
};

Deno.test("pitroom_run, pitroom_review and pitroom_audit results stay within their budget", async (t) => {
  await using w = await world(SCENARIOS);
  const engine = engineOf(w);
  // Claude Code's results are held whole; the parts a generic client gets are the same briefs
  // and their text, held in result_budget_test.ts (one kind of client here keeps the test quick).
  for (const [name, readsStructured] of [["claude-code", true]] as const) {
    await using c = await stdioClient(w, { clientName: name });
    const call = async (tool: string, args: Record<string, unknown>) => {
      const result = await c.client.callTool({ name: tool, arguments: args });
      assert.notEqual(result.isError, true, textOf(result));
      return result;
    };
    const codex = { worker: "codex", task: `Where is the answer? (${name})` };
    let readId = "";
    let writeId = "";
    await t.step(`${name}: pitroom_run of a read run and of a write run`, async () => {
      const read = await call("pitroom_run", { ...codex, model: "fake/read" });
      readId = structured(read).runs[0].id;
      const readRecord = await engine.get(readId);
      assert.equal(readRecord.outcome, "ok", readRecord.message);
      assertWithin(read, runsBudget([readRecord]), readsStructured, `${name} read run`);
      const write = await call("pitroom_run", { ...codex, model: "fake/edit", mode: "write" });
      writeId = structured(write).runs[0].id;
      const writeRecord = await engine.get(writeId);
      assert.equal(writeRecord.outcome, "ok", writeRecord.message);
      assertWithin(write, runsBudget([writeRecord]), readsStructured, `${name} write run`);
    });
    await t.step(`${name}: pitroom_review`, async () => {
      const review = await call("pitroom_review", { run: writeId, worker: "claude:review" });
      // The next client's write run starts from the same tree.
      await call("pitroom_revert", { run: writeId });
      const [brief] = structured(review).runs;
      assert.equal(brief.verdict, "SPEC PASS · QUALITY APPROVED", JSON.stringify(brief));
      const record = await engine.get(brief.id);
      assertWithin(review, runsBudget([record]), readsStructured, `${name} review`);
    });
    await t.step(`${name}: pitroom_audit`, async () => {
      const audit = await call("pitroom_audit", { run: readId, worker: "claude:audit" });
      const [audited, auditRun] = structured(audit).runs;
      // The verdict is there when the call ends (the host copies it just after the audit ran).
      assert.match(audited.audit, /^PARTLY by claude \(audit\)/, JSON.stringify(audited));
      assert.deepEqual(audited.disputed, ["README.md:1 is more than a title"]);
      assert.equal(audited.answer, undefined, "the agent has the answer already");
      const budget = runsBudget([
        [await engine.get(readId), { answer: false }],
        [await engine.get(auditRun.id), { answer: false }],
      ]);
      assertWithin(audit, budget, readsStructured, `${name} audit`);
    });
  }
});
