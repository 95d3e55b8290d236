/**
 * `pitroom mcp` on stdio, driven by the MCP SDK's own client: the real program (main.ts with the
 * compile permissions) started as a child, runs of the real codex CLI against the scripted
 * model in the state dir's host.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MCP_TOOL_NAMES } from "../../../src/server/mcp/tool_names.ts";
import { waitFor } from "../../support/temp.ts";
import { CallToolResultSchema, ResourceUpdatedNotificationSchema } from "./_sdk.ts";
import { engineOf, stdioClient, structured, textOf, world } from "./_world.ts";
import { sizesOf } from "./_budget.ts";

const READ = { turns: [{ read: "src/app.ts" }, { answer: "It is 41, in src/app.ts:1." }] };
const EDIT = {
  turns: [{ edit: { path: "src/app.ts", old: "41", new: "42" } }, { answer: "Set it to 42." }],
};
const HANG = { turns: [{ hang: true }] };

Deno.test("pitroom mcp lists every tool with its schemas and annotations, the resource templates and the prompts", async () => {
  await using w = await world({});
  await using c = await stdioClient(w);
  const { tools } = await c.client.listTools();
  // Every agent pays for this list in its context: the report schema is named once per tool,
  // its main fields typed and the rest let through (the whole schema made it 100 KB).
  const size = JSON.stringify(tools).length;
  assert.ok(size < 50_000, `tools/list is ${size} bytes`);
  const names = tools.map((t) => t.name);
  assert.deepEqual(
    names,
    [...MCP_TOOL_NAMES],
  );
  for (const tool of tools) {
    assert.equal(tool.outputSchema?.type, "object", tool.name);
    assert.equal(typeof tool.annotations?.readOnlyHint, "boolean", tool.name);
    assert.ok((tool.description ?? "").length > 20, tool.name);
  }
  const run = tools.find((t) => t.name === "pitroom_run")!;
  const props = Object.keys(run.inputSchema.properties ?? {});
  for (
    const name of ["task", "tasks", "mode", "worker", "model", "verify", "continue", "waitSeconds"]
  ) {
    assert.ok(props.includes(name), `pitroom_run takes ${name}`);
  }
  assert.ok(!props.includes("background"), "every MCP run is a background run");
  assert.ok(Object.keys(run.outputSchema?.properties ?? {}).includes("runs"));
  assert.equal(tools.find((t) => t.name === "pitroom_info")!.annotations?.readOnlyHint, true);
  assert.equal(tools.find((t) => t.name === "pitroom_revert")!.annotations?.destructiveHint, true);

  const { resourceTemplates } = await c.client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
    "pitroom://run/{id}",
    "pitroom://run/{id}/patch",
  ]);
  const { prompts } = await c.client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), ["research", "implement", "review", "crew"]);
  const prompt = await c.client.getPrompt({ name: "research", arguments: { job: "Where is X?" } });
  const first = prompt.messages[0]!.content;
  assert.equal(first.type, "text");
  assert.match(first.type === "text" ? first.text : "", /pitroom_run[\s\S]*Where is X\?$/);
  assert.match(c.client.getInstructions() ?? "", /dashboard/);
});

Deno.test("pitroom_run answers with the run's brief and a text; show, info and the resources see the run", async () => {
  await using w = await world({ read: READ });
  await using c = await stdioClient(w);
  const result = await c.client.callTool({
    name: "pitroom_run",
    arguments: { task: "Where is the answer defined?", worker: "codex", model: "fake/read" },
  });
  assert.notEqual(result.isError, true, textOf(result));
  const out = structured(result);
  assert.deepEqual(out.still, []);
  const [run] = out.runs;
  assert.equal(run.state, "done");
  assert.equal(run.outcome, "ok");
  assert.equal(run.answer, "It is 41, in src/app.ts:1.");
  assert.equal(run.refs, "1/1 verified");
  assert.match(run.receipt, /tokens burned · ~\d+ returned/);
  // Nothing of how Pitroom ran it: that is the whole report, one call away.
  for (const internal of ["supervisorPid", "workerPid", "cacheKey", "settings", "attempts"]) {
    assert.ok(!JSON.stringify(result).includes(internal), internal);
  }
  assert.match(textOf(result), new RegExp(`^run ${run.id} · done ok · read · codex`));
  assert.match(textOf(result), /It is 41, in src\/app\.ts:1\./);
  assert.match(textOf(result), /\nreceipt: [\d,]+ tokens burned/);
  // The run's receipt counts exactly what the client got.
  const handed = (await engineOf(w).get(run.id)).receipt?.returned;
  assert.deepEqual(handed, { bytes: sizesOf(result).whole, handovers: 1 });
  assert.ok(run.receipt.includes(`~${Math.ceil(handed!.bytes / 4)} returned`), run.receipt);

  const shown = await c.client.callTool({
    name: "pitroom_show",
    arguments: { run: "last", events: true },
  });
  assert.equal(structured(shown).run.id, run.id);
  assert.equal(structured(shown).report, undefined, "the whole report only with full");
  const full = structured(
    await c.client.callTool({ name: "pitroom_show", arguments: { run: run.id, full: true } }),
  );
  assert.equal(full.report.cwd, w.repo);
  assert.equal(full.report.attempts[0].worker, "codex");
  const types = structured(shown).events.map((e: { type: string }) => e.type);
  assert.equal(types[0], "run.started");
  assert.equal(types.at(-1), "run.finished");

  const info = await c.client.callTool({ name: "pitroom_info", arguments: { topic: "runs" } });
  assert.deepEqual(structured(info).runs.map((r: { id: string }) => r.id), [run.id]);
  for (const topic of ["history", "stats", "savings", "models", "cooldown", "config", "doctor"]) {
    // The models of one worker: every installed CLI's own listing is seconds of CPU.
    const only = topic === "models" ? { worker: "codex" } : {};
    const r = await c.client.callTool({ name: "pitroom_info", arguments: { topic, ...only } });
    assert.notEqual(r.isError, true, `${topic}: ${textOf(r)}`);
    assert.equal(structured(r).topic, topic);
  }
  const history = await c.client.callTool({
    name: "pitroom_info",
    arguments: { topic: "history", query: "answer" },
  });
  assert.deepEqual(structured(history).data.map((h: { id: string }) => h.id), [run.id]);

  const { resources } = await c.client.listResources();
  assert.ok(resources.some((r) => r.uri === `pitroom://run/${run.id}`));
  const read = await c.client.readResource({ uri: `pitroom://run/${run.id}` });
  const content = read.contents[0]!;
  assert.equal(JSON.parse("text" in content ? String(content.text) : "").answer, run.answer);
});

Deno.test("a user mistake is a tool result with isError and the CLI's message and hint, not a protocol error", async () => {
  await using w = await world({ read: READ });
  await using c = await stdioClient(w);
  const unknown = await c.client.callTool({ name: "pitroom_show", arguments: { run: "nope" } });
  assert.equal(unknown.isError, true);
  assert.match(textOf(unknown), /"nope"/);
  const nothing = await c.client.callTool({ name: "pitroom_wait", arguments: {} });
  assert.equal(nothing.isError, true);
  assert.equal(
    textOf(nothing),
    'Nothing to wait for: no runs are running\nhint: name a run: pitroom_wait {"runs": ["RUN"]}',
  );
  const stop = await c.client.callTool({ name: "pitroom_stop", arguments: {} });
  assert.equal(stop.isError, true);
  assert.match(textOf(stop), /^Name runs, a group, or cooldowns/);
  const bad = await c.client.callTool({
    name: "pitroom_run",
    arguments: { task: "x", mode: "sideways" },
  });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /mode/);
  const run = structured(
    await c.client.callTool({
      name: "pitroom_run",
      arguments: { task: "Where?", worker: "codex", model: "fake/read" },
    }),
  ).runs[0];
  const noPatch = await c.client.callTool({
    name: "pitroom_show",
    arguments: { run: run.id, patch: true },
  });
  assert.equal(noPatch.isError, true);
  assert.equal(textOf(noPatch), `Run "${run.id}" changed no files`);
});

Deno.test("an isolate run's patch is a resource and pitroom_apply lands it; a write run is reverted exactly", async () => {
  await using w = await world({ edit: EDIT });
  await using c = await stdioClient(w);
  const isolated = structured(
    await c.client.callTool({
      name: "pitroom_run",
      arguments: { task: "Make it 42", mode: "isolate", worker: "codex", model: "fake/edit" },
    }),
  ).runs[0];
  assert.equal(isolated.outcome, "ok", isolated.problem);
  assert.deepEqual(isolated.changed, ["M src/app.ts +1 -1"]);
  assert.deepEqual(isolated.next, ["pitroom_apply", "pitroom_discard"]);
  assert.equal(await w.read("src/app.ts"), "export const answer = 41;\n");
  const patch = await c.client.readResource({ uri: `pitroom://run/${isolated.id}/patch` });
  const diff = patch.contents[0]!;
  assert.match("text" in diff ? String(diff.text) : "", /^\+export const answer = 42;$/m);
  const { resources } = await c.client.listResources();
  assert.ok(resources.some((r) => r.uri === `pitroom://run/${isolated.id}/patch`));

  const applied = await c.client.callTool({
    name: "pitroom_apply",
    arguments: { run: isolated.id },
  });
  assert.notEqual(applied.isError, true, textOf(applied));
  assert.deepEqual(structured(applied).applied[0].applied, ["src/app.ts"]);
  assert.equal(await w.read("src/app.ts"), "export const answer = 42;\n");
  const discarded = await c.client.callTool({
    name: "pitroom_discard",
    arguments: { run: isolated.id },
  });
  assert.notEqual(discarded.isError, true, textOf(discarded));

  await Deno.writeTextFile(join(w.repo, "src/app.ts"), "export const answer = 41;\n");
  const written = structured(
    await c.client.callTool({
      name: "pitroom_run",
      arguments: { task: "Make it 42", mode: "write", worker: "codex", model: "fake/edit" },
    }),
  ).runs[0];
  assert.equal(written.outcome, "ok", written.problem);
  assert.deepEqual(written.next, ["pitroom_revert"]);
  assert.equal(await w.read("src/app.ts"), "export const answer = 42;\n");
  const reverted = await c.client.callTool({
    name: "pitroom_revert",
    arguments: { run: written.id },
  });
  assert.deepEqual(structured(reverted).reverted, ["src/app.ts"]);
  assert.equal(await w.read("src/app.ts"), "export const answer = 41;\n");
});

Deno.test("a run still going when the wait ends comes back with its id; progress, subscribe and stop", async () => {
  await using w = await world({ hang: HANG });
  await using c = await stdioClient(w);
  const started = await c.client.callTool({
    name: "pitroom_run",
    arguments: { task: "Take your time", worker: "codex", model: "fake/hang", waitSeconds: 0 },
  });
  assert.notEqual(started.isError, true, textOf(started));
  const out = structured(started);
  const id: string = out.runs[0].id;
  assert.deepEqual(out.still, [id]);
  assert.ok(["queued", "running"].includes(out.runs[0].state));
  assert.deepEqual(out.runs[0].next, ["pitroom_wait"]);
  assert.ok(textOf(started).includes("\nnext: pitroom_wait"), textOf(started));

  const updates: string[] = [];
  c.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  await c.client.subscribeResource({ uri: `pitroom://run/${id}` });

  const progress: string[] = [];
  const waited = await c.client.callTool(
    { name: "pitroom_wait", arguments: { runs: [id], timeoutSeconds: 1 } },
    CallToolResultSchema,
    { onprogress: (p) => progress.push(p.message ?? "") },
  );
  assert.notEqual(waited.isError, true, textOf(waited));
  assert.deepEqual(structured(waited).still, [id]);
  assert.ok(progress.length >= 1, "a progress notification came");
  assert.match(progress[0]!, /^(queued|running) · read/);

  const stopped = await c.client.callTool({ name: "pitroom_stop", arguments: { runs: [id] } });
  assert.equal(structured(stopped).stopped[0].outcome, "stopped");
  await waitFor(() => updates.includes(`pitroom://run/${id}`), {
    timeoutMs: 10_000,
    what: "the resource update after the stop",
  });
  const ended = await c.client.callTool({ name: "pitroom_wait", arguments: { runs: [id] } });
  assert.deepEqual(structured(ended).still, []);
  assert.equal(structured(ended).runs[0].outcome, "stopped");
});

Deno.test("cancelling pitroom_run stops its run; cancelling pitroom_wait only stops waiting", async () => {
  await using w = await world({ hang: HANG });
  const engine = engineOf(w);
  await using c = await stdioClient(w);
  const cancel = new AbortController();
  const call = c.client.callTool(
    {
      name: "pitroom_run",
      arguments: { task: "Take your time", worker: "codex", model: "fake/hang" },
    },
    CallToolResultSchema,
    { signal: cancel.signal },
  );
  let id: string | undefined;
  await waitFor(async () => {
    id = (await engine.list({ recent: 1 })).at(-1)?.id;
    return id !== undefined && (await engine.get(id)).state === "running";
  }, { timeoutMs: 60_000, what: "the run to start" });
  cancel.abort("changed my mind");
  await assert.rejects(call);
  await waitFor(async () => (await engine.get(id!)).state !== "running", {
    timeoutMs: 30_000,
    what: "the cancelled call's run to stop",
  });
  assert.equal((await engine.get(id!)).outcome, "stopped");

  const other = structured(
    await c.client.callTool({
      name: "pitroom_run",
      arguments: { task: "Again", worker: "codex", model: "fake/hang", waitSeconds: 0 },
    }),
  ).runs[0].id as string;
  const giveUp = new AbortController();
  const waiting = c.client.callTool(
    { name: "pitroom_wait", arguments: { runs: [other] } },
    CallToolResultSchema,
    { signal: giveUp.signal, onprogress: () => giveUp.abort("enough") },
  );
  await assert.rejects(waiting);
  // The server is still there, and the run goes on.
  const still = await c.client.callTool({
    name: "pitroom_wait",
    arguments: { runs: [other], timeoutSeconds: 0 },
  });
  assert.deepEqual(structured(still).still, [other]);
  // Queued or running, whichever it has got to: not stopped.
  assert.ok(["queued", "running"].includes((await engine.get(other)).state));
  await engine.stop({ runs: [other] });
});

Deno.test("a client that goes away mid-wait leaves the run going; the server process ends", async () => {
  await using w = await world({ hang: HANG });
  const engine = engineOf(w);
  const c = await stdioClient(w);
  const call = c.client.callTool({
    name: "pitroom_run",
    arguments: { task: "Take your time", worker: "codex", model: "fake/hang" },
  });
  call.catch(() => undefined);
  let id: string | undefined;
  await waitFor(async () => {
    id = (await engine.list({ recent: 1 })).at(-1)?.id;
    return id !== undefined && (await engine.get(id)).state === "running";
  }, { timeoutMs: 60_000, what: "the run to start" });
  // The client closes its end (as a client that quits does): the server ends with it.
  await c.client.close();
  await assert.rejects(call);
  const record = await engine.get(id!);
  assert.equal(record.state, "running");
  assert.equal(record.outcome, undefined);
  await engine.stop({ runs: [id!] });
});

Deno.test("pitroom mcp -d DIR: runs work in DIR unless a call names another directory", async () => {
  await using w = await world({ read: READ });
  await using c = await stdioClient(w, { args: ["-d", "src"] });
  const inSrc = structured(
    await c.client.callTool({
      name: "pitroom_run",
      arguments: { task: "Where?", worker: "codex", model: "fake/read", waitSeconds: 0 },
    }),
  ).runs[0];
  const engine = engineOf(w);
  assert.equal((await engine.get(inSrc.id)).cwd, join(w.repo, "src"));
  const named = structured(
    await c.client.callTool({
      name: "pitroom_run",
      arguments: {
        task: "Where?",
        worker: "codex",
        model: "fake/read",
        dir: "..",
        waitSeconds: 0,
      },
    }),
  ).runs[0];
  assert.equal((await engine.get(named.id)).cwd, w.repo);
  await c.client.callTool({ name: "pitroom_wait", arguments: { runs: [inSrc.id, named.id] } });
});

Deno.test("pitroom_review and pitroom_audit reach the engine: their refusals come back as tool errors", async () => {
  await using w = await world({ read: READ });
  await using c = await stdioClient(w);
  const ran = await c.client.callTool({
    name: "pitroom_run",
    arguments: { task: "Where is the answer defined?", worker: "codex", model: "fake/read" },
  });
  const [run] = structured(ran).runs;
  const review = await c.client.callTool({ name: "pitroom_review", arguments: { run: run.id } });
  assert.equal(review.isError, true, textOf(review));
  assert.match(textOf(review), /read run/i);
  const audit = await c.client.callTool({
    name: "pitroom_audit",
    arguments: { run: run.id, worker: "codex" },
  });
  assert.equal(audit.isError, true, textOf(audit));
  assert.match(textOf(audit), /codex/);
});
