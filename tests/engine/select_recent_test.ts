/**
 * The `recent` newest runs: ids sort by their second only, so runs made in the same second are
 * ordered by their creation time (`/api/runs?recent=1` once named the older of two).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadCurrent } from "../../src/engine/select.ts";
import { createRunDir, writeRecord } from "../../src/store/runs.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("of two runs made in the same second, the later one is the newest, whatever its id", async () => {
  await using dir = await tempDir();
  const sys = testSys({ stateDir: join(dir.path, "state") });
  const paths = statePaths(sys.stateDir);
  const made = async (id: string, createdAt: number) => {
    await createRunDir(paths, id);
    await writeRecord(paths, {
      schemaVersion: 1,
      id,
      state: "done",
      mode: "read",
      task: id,
      cwd: dir.path,
      chain: [{ worker: "opencode" }],
      web: false,
      timeoutMs: 1000,
      createdAt,
      endedAt: createdAt + 1,
      attempts: [],
      progress: { steps: 0, tools: 0, tokens: { input: 0, output: 0, cached: 0, reasoning: 0 } },
      outcome: "ok",
    } as unknown as RunRecord);
  };
  await made("20261201-145900-aaaa", 500);
  await made("20261201-145901-ffff", 1000); // earlier in the second, larger id
  await made("20261201-145901-0000", 2000); // later in the second, smaller id
  assert.deepEqual((await loadCurrent(sys, 1, null)).map((r) => r.id), ["20261201-145901-0000"]);
  assert.deepEqual((await loadCurrent(sys, 2, null)).map((r) => r.id).sort(), [
    "20261201-145901-0000",
    "20261201-145901-ffff",
  ]);
  assert.equal((await loadCurrent(sys, 3, null)).length, 3);
});
