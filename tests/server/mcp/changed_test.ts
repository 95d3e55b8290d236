/**
 * A client subscribed to a finished run's resource (`pitroom://run/<id>`) is sent
 * `notifications/resources/updated` when the run is applied and when it is reverted after its
 * end (`run.changed` from the engine's feed), and reads the new state from the resource. The SDK's
 * client on an in-memory transport, the engine in this process with the fake worker.
 */
import assert from "node:assert/strict";
import { createMcpServer } from "../../../src/server/mcp/mod.ts";
import { engineWorld } from "../../support/engine_world.ts";
import { tempRepo, waitFor } from "../../support/temp.ts";
import { Client, InMemoryTransport, ResourceUpdatedNotificationSchema } from "./_sdk.ts";

Deno.test("a subscribed run resource is told when its finished run is applied, then reverted", async () => {
  await using w = await engineWorld(await tempRepo({ "a.txt": "one\n" }), () => [
    { writeFile: "b.txt", content: "worker\n" },
    { answer: "Added b.txt." },
  ]);
  const run = await w.engine.run({ task: "Add b.txt", mode: "isolate", worker: "opencode" });
  assert.equal(run.state, "done");
  const mcp = createMcpServer(w.engine, { dir: w.repo.path, version: "test", clock: w.sys.clock });
  const [client, server] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(server);
  const c = new Client({ name: "changed-test", version: "1" });
  await c.connect(client);
  try {
    const uri = `pitroom://run/${run.id}`;
    const updates: string[] = [];
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    await c.subscribeResource({ uri });
    const read = async () => {
      const content = (await c.readResource({ uri })).contents[0]!;
      return JSON.parse("text" in content ? String(content.text) : "{}");
    };
    assert.equal((await read()).isolation.applied, undefined);

    await w.engine.apply(run.id);
    await waitFor(() => updates.includes(uri), {
      timeoutMs: 10_000,
      what: "the update of the apply",
    });
    await waitFor(async () => (await read()).isolation.applied !== undefined, {
      timeoutMs: 10_000,
      what: "the resource saying applied",
    });
    updates.length = 0;
    await w.engine.revert(run.id);
    await waitFor(() => updates.includes(uri), {
      timeoutMs: 10_000,
      what: "the update of the revert",
    });
    await waitFor(async () => (await read()).changes.reverted === true, {
      timeoutMs: 10_000,
      what: "the resource saying reverted",
    });
  } finally {
    await c.close();
    await mcp.close();
  }
});
