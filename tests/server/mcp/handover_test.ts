/**
 * A result that hands runs over states, in each run's brief, what was returned of it with the
 * result itself included, exactly: also where no size of the result prints itself (a figure's
 * token or its compression's decimal comes and goes between two sizes), where blanks at the end
 * of its text make up the difference. In-process: finished records, the MCP server over an
 * engine, SDK clients of both kinds on in-memory transports.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../../src/engine/mod.ts";
import { createMcpServer } from "../../../src/server/mcp/mod.ts";
import { receiptLine } from "../../../src/receipts/lines.ts";
import type { RunRecord } from "../../../src/store/record.ts";
import { finishedRun, writeRuns } from "../../cli/_setup.ts";
import { testSys } from "../../support/sys.ts";
import { tempRepo } from "../../support/temp.ts";
import { sizesOf } from "./_budget.ts";
import { Client, InMemoryTransport } from "./_sdk.ts";
import { structured, textOf } from "./_world.ts";

/** A finished run whose worker burned `input` tokens and answered `more` bytes more. */
function burned(id: string, input: number, more: number, cwd: string): RunRecord {
  const at = 1_764_500_000_000;
  const tokens = { input, output: 300, cached: 0, reasoning: 0 };
  return {
    ...finishedRun(
      id,
      [{ worker: "opencode", startedAt: at, endedAt: at + 9_000, outcome: "ok" }],
      {
        input,
        output: 300,
      },
    ),
    cwd,
    createdAt: at,
    endedAt: at + 9_000,
    answer: `The answer is defined in src/app.ts:1 as 41.${"!".repeat(more)}`,
    receipt: {
      tokens,
      returnedTokens: 1,
      compression: input + 300,
      workerCost: 0,
      workerCostSource: "free",
      primary: "sonnet",
      primaryCost: 0.06,
      saved: 0.06,
    },
  };
}

Deno.test("pitroom_wait states exactly what it hands over, itself included, where no size prints itself too", async () => {
  await using repo = await tempRepo({ "a.txt": "a\n" });
  const cwd = await Deno.realPath(repo.path);
  const state = `${repo.path}/.git/pitroom-state`;
  const sys = testSys({ stateDir: state, cwd });
  const engine = createEngine(sys);
  const mcp = createMcpServer(engine, { dir: cwd, clock: sys.clock, version: "test" });
  try {
    for (const [n, name] of ["claude-code", "pitroom-test"].entries()) {
      const [client, server] = InMemoryTransport.createLinkedPair();
      await mcp.server.connect(server);
      const c = new Client({ name, version: "1" });
      await c.connect(client);
      // Where the compression goes from 10.0x to 9.9x (a byte less) as the result's own size
      // adds a token, two sizes each print the other: the burned tokens are swept across it (a
      // byte more of answer moves the result's size against the token boundaries, 4 bytes).
      const wait = (id: string) => c.callTool({ name: "pitroom_wait", arguments: { runs: [id] } });
      const probe = `20251130-100000-a${n}ff`;
      await writeRuns(state, [burned(probe, 1_000, 0, cwd)]);
      await wait(probe);
      const tokens = (await engine.get(probe)).receipt!.returnedTokens;
      const from = Math.round(9.95 * tokens) - 300 - 10;
      let padded = 0;
      for (let k = 0; k < 160 && padded < 2; k++) {
        const id = `20251130-${String(k).padStart(6, "0")}-a${n}aa`;
        await writeRuns(state, [burned(id, from + (k >> 2), k % 4, cwd)]);
        const result = await wait(id);
        const receipt = (await engine.get(id)).receipt!;
        assert.deepEqual(receipt.returned, { bytes: sizesOf(result).whole, handovers: 1 }, id);
        assert.equal(structured(result).runs[0].receipt, receiptLine(receipt), `${name}: ${id}`);
        if (/ $/.test(textOf(result))) padded++;
      }
      assert.equal(padded, 2, `${name}: two results met sizes printing each other`);
      await c.close();
    }
  } finally {
    await mcp.close();
  }
});
