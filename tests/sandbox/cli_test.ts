/**
 * The CLI's part of the sandbox: `--allow-links` belongs to isolate runs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pitroom } from "../support/pitroom.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

Deno.test("run --allow-links without -i is a usage error (exit 2)", async () => {
  await using repo = await tempRepo({ "a.txt": "a\n" });
  await using state = await tempDir("pitroom-sbx-cli-");
  const r = await pitroom(["run", "-w", "--allow-links", "Do it"], {
    cwd: repo.path,
    env: {
      PITROOM_STATE_DIR: join(state.path, "state"),
      PITROOM_CONFIG: join(state.path, "config.json"),
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: state.path,
    },
  });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--allow-links is for isolate runs \(-i\)/);
});
