/**
 * `pitroom mcp` in the 2026-07-28 protocol and its Tasks extension, spoken to on the wire
 * (_modern.ts) over stdio and HTTP, and by the v2 SDK's own client: `server/discover` answered
 * before the SDK is loaded and equal to the SDK's answer; a task-augmented `pitroom_run` answers
 * with a task at once, `tasks/get` carries the progress line and then the plain call's result;
 * `tasks/cancel` stops the run; another server process (stdio after HTTP) answers for a task it
 * never saw; ids are signed; a client without the extension gets today's plain call; the
 * ext-tasks package's client session hands a task off and a new session resumes it. The real
 * codex worker runs against the scripted model in the state dir's host.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { waitFor } from "../../support/temp.ts";
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
} from "@modelcontextprotocol/ext-tasks/client";
import { modernHttp, modernStdio, post, type Response, TASKS } from "./_modern.ts";
import { engineOf, httpServer, world } from "./_world.ts";

const ANSWER = "It is 41, in src/app.ts:1.";
/** A read run of a few seconds (the model is slow to answer its first call). */
const SLOW = { turns: [{ read: "src/app.ts", delay_ms: 2500 }, { answer: ANSWER }] };
const HANG = { turns: [{ hang: true }] };

const RUN = (model: string) => ({
  name: "pitroom_run",
  arguments: { task: "What is the answer?", worker: "codex", model: `fake/${model}` },
});

function ok(r: Response): Response["result"] {
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.result;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

Deno.test("stdio: server/discover is answered before the SDK loads, as the SDK answers it; tools/list is the legacy one", async () => {
  await using w = await world({});
  await using c = await modernStdio(w);
  const early = ok(await c.request("server/discover"));
  assert.deepEqual(early.supportedVersions, ["2026-07-28"]);
  assert.deepEqual(early.capabilities.extensions, { [TASKS]: {} });
  assert.equal(early._meta["io.modelcontextprotocol/serverInfo"].name, "pitroom");
  const { tools } = ok(await c.request("tools/list"));
  // The SDK is loaded now: the same question gets the SDK's own answer.
  assert.deepEqual(ok(await c.request("server/discover")), early);
  assert.equal(tools.length, 10);
  assert.ok(tools.every((t: { execution?: unknown }) => t.execution === undefined));
  const wrong = await c.request("tools/list", {
    _meta: { [`io.modelcontextprotocol/protocolVersion`]: "1999-01-01" },
  });
  assert.equal(wrong.error?.code, -32022, JSON.stringify(wrong));
  assert.ok((wrong.error?.data as { supported: string[] }).supported.includes("2026-07-28"));
});

Deno.test("a task-augmented pitroom_run answers with a task at once; tasks/get shows the progress line, then the plain call's result", async () => {
  await using w = await world({ slow: SLOW });
  await using c = await modernStdio(w);
  const created = ok(await c.request("tools/call", RUN("slow"), { tasks: true }));
  assert.equal(created.resultType, "task");
  assert.equal(created.status, "working");
  assert.match(created.taskId, /^pt1\./);
  assert.equal(created.ttlMs, null);
  assert.ok(created.pollIntervalMs > 0);
  const messages: string[] = [];
  let last: Response["result"];
  await waitFor(async () => {
    last = ok(await c.request("tasks/get", { taskId: created.taskId }, { tasks: true }));
    if (last.statusMessage) messages.push(last.statusMessage);
    return TERMINAL.has(last.status);
  }, { timeoutMs: 120_000, what: "the task to end", everyMs: 200 });
  assert.equal(last.status, "completed", JSON.stringify(last));
  assert.equal(last.resultType, "complete");
  // While it went, the status was the progress line of a plain call.
  assert.ok(
    messages.some((m) => /^(queued|running) · read · /.test(m)),
    messages.join("\n"),
  );
  assert.ok(last.result.content[0].text.includes(ANSWER), JSON.stringify(last.result));
  assert.equal(last.result.structuredContent.runs[0].state, "done");
  assert.deepEqual(last.result.structuredContent.still, []);
  // Without the extension, tasks/get is refused (-32021), and a forged id is no task (-32602).
  const bare = await c.request("tasks/get", { taskId: created.taskId });
  assert.equal(bare.error?.code, -32021);
  const forged = created.taskId.replace(/\.[^.]+$/, ".AAAA");
  assert.equal(
    (await c.request("tasks/get", { taskId: forged }, { tasks: true })).error?.code,
    -32602,
  );
  assert.equal(
    (await c.request("tasks/get", { taskId: "x" }, { tasks: true })).error?.code,
    -32602,
  );
});

Deno.test("tasks/cancel stops the run; another server process, on another transport, answers for the task", async () => {
  await using w = await world({ hang: HANG, slow: SLOW });
  await using http = await httpServer(w);
  const web = modernHttp(http);
  const hung = ok(await web.request("tools/call", RUN("hang"), { tasks: true }));
  assert.equal(hung.resultType, "task");
  const ack = ok(await web.request("tasks/cancel", { taskId: hung.taskId }, { tasks: true }));
  assert.equal(ack.resultType, "complete");
  const engine = engineOf(w);
  await waitFor(async () => {
    const runs = await engine.list({ recent: 5 });
    return runs.some((r) =>
      r.state !== "running" && r.state !== "queued" && r.outcome === "stopped"
    );
  }, { timeoutMs: 60_000, what: "the run to be stopped" });

  const slow = ok(await web.request("tools/call", RUN("slow"), { tasks: true }));
  assert.equal(slow.resultType, "task");
  await http[Symbol.asyncDispose]();
  // A new process, a new transport: the task ids are all it knows.
  await using later = await modernStdio(w);
  const cancelled = ok(await later.request("tasks/get", { taskId: hung.taskId }, { tasks: true }));
  assert.equal(cancelled.status, "cancelled");
  let done: Response["result"];
  await waitFor(async () => {
    done = ok(await later.request("tasks/get", { taskId: slow.taskId }, { tasks: true }));
    return TERMINAL.has(done.status);
  }, { timeoutMs: 120_000, what: "the task to end", everyMs: 200 });
  assert.equal(done.status, "completed");
  assert.ok(done.result.content[0].text.includes(ANSWER));
});

Deno.test("a modern client without the Tasks extension, and the v2 SDK's client, get today's plain calls", async () => {
  await using w = await world({ slow: SLOW });
  await using c = await modernStdio(w);
  const plain = ok(
    await c.request("tools/call", {
      ...RUN("slow"),
      arguments: { ...RUN("slow").arguments, waitSeconds: 600 },
    }),
  );
  assert.equal(plain.resultType, "complete");
  assert.ok(plain.content[0].text.includes(ANSWER), JSON.stringify(plain));

  await using http = await httpServer(w);
  const client = new Client({ name: "pitroom-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
    }),
  );
  try {
    assert.equal(client.getProtocolEra(), "modern");
    assert.deepEqual(client.getServerCapabilities()?.extensions, { [TASKS]: {} });
    const { tools } = await client.listTools();
    assert.equal(tools.length, 10);
    const info = await client.callTool({ name: "pitroom_info", arguments: { topic: "runs" } });
    assert.notEqual(info.isError, true, JSON.stringify(info));
  } finally {
    await client.close();
  }
});

Deno.test("the ext-tasks client session runs pitroom_run as a task, hands it off, and a new session resumes it to the result", async () => {
  await using w = await world({ slow: SLOW });
  await using http = await httpServer(w);
  const framing = {
    protocolVersion: "2026-07-28",
    clientInfo: { name: "pitroom-test", version: "1.0.0" },
    clientCapabilities: {},
  };
  let raw = 0;
  const open = async () => {
    const client = new Client(framing.clientInfo, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
      }),
    );
    const session = createTaskSessionFromClient(client, {
      endpointId: "pitroom-modern-test",
      // The host's own request path: it frames the request (a JSON-RPC id) and POSTs it.
      rawDispatch: (request) =>
        post(
          http,
          { jsonrpc: "2.0", id: `raw-${raw++}`, ...(request as object) } as never,
        ) as never,
      v2RequestFraming: framing,
    });
    return { client, session };
  };
  const first = await open();
  const execution = await first.session.callTool("pitroom_run", RUN("slow").arguments);
  assert.equal(execution.kind, "task");
  let reference: unknown;
  if (execution.kind === "task") {
    await execution.handoff((r) => {
      reference = r;
    });
  }
  // The client goes away (the session is not closed: ext-tasks 0.2.2's close cancels the
  // executions it made, handed off or not).
  await first.client.close();
  assert.ok(reference, "a task reference to resume");

  const second = await open();
  try {
    const resumed = await second.session.resumeTask(reference as never);
    const { outcome } = await resumed.settle();
    const result = resultFromTaskOutcome(outcome) as { content: { text: string }[] };
    assert.ok(result.content[0]!.text.includes(ANSWER), JSON.stringify(result));
  } finally {
    await second.session.close();
    await second.client.close();
  }
});
