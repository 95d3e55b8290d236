/**
 * The MCP server end to end with real worker CLIs against the scripted model (codex for the
 * crew: opencode processes are too heavy to run side by side here): a crew of
 * two isolate runs started by one `pitroom_run` call with `tasks`, collected by `pitroom_wait`
 * on the group, applied in order by `pitroom_apply` with the group, and a follow-up in the same
 * worker session with `continue`. Run it inside `unshare -n` like the other worker tests.
 */
import assert from "node:assert/strict";
import { stdioClient, structured, textOf, world } from "../server/mcp/_world.ts";

Deno.test("over MCP a crew of isolate runs is collected by group and applied in order; continue follows up", async () => {
  await using w = await world({
    one: {
      turns: [{ write: { path: "docs/one.md", content: "one\n" } }, {
        answer: "Wrote docs/one.md.",
      }],
      followup: [{ answer: "It holds the word one." }],
    },
    two: {
      turns: [{ write: { path: "docs/two.md", content: "two\n" } }, {
        answer: "Wrote docs/two.md.",
      }],
    },
  });
  await using c = await stdioClient(w);
  const started = await c.client.callTool({
    name: "pitroom_run",
    arguments: {
      tasks: ["Write docs/one.md [[scenario:one]]", "Write docs/two.md [[scenario:two]]"],
      mode: "isolate",
      worker: "codex",
      model: "fake/one",
      group: "docs",
      waitSeconds: 0,
    },
  });
  assert.notEqual(started.isError, true, textOf(started));
  assert.equal(structured(started).group, "docs");
  assert.equal(structured(started).runs.length, 2);

  const waited = await c.client.callTool({
    name: "pitroom_wait",
    arguments: { group: "docs", timeoutSeconds: 600 },
  });
  // In the order the tasks were given (the runs the call started).
  const order: string[] = structured(started).runs.map((r: { id: string }) => r.id);
  const runs = structured(waited).runs.sort((a: { id: string }, b: { id: string }) =>
    order.indexOf(a.id) - order.indexOf(b.id)
  );
  assert.deepEqual(structured(waited).still, []);
  assert.deepEqual(runs.map((r: { outcome: string }) => r.outcome), ["ok", "ok"], textOf(waited));
  await assert.rejects(w.read("docs/one.md"), Deno.errors.NotFound);

  const applied = await c.client.callTool({ name: "pitroom_apply", arguments: { group: "docs" } });
  assert.notEqual(applied.isError, true, textOf(applied));
  assert.deepEqual(
    structured(applied).applied.map((a: { applied: string[] }) => a.applied),
    [["docs/one.md"], ["docs/two.md"]],
  );
  assert.equal(await w.read("docs/one.md"), "one\n");
  assert.equal(await w.read("docs/two.md"), "two\n");

  const followed = await c.client.callTool({
    name: "pitroom_run",
    arguments: { task: "What does it hold?", continue: runs[0].id },
  });
  assert.notEqual(followed.isError, true, textOf(followed));
  assert.equal(structured(followed).runs[0].answer, "It holds the word one.");
});
