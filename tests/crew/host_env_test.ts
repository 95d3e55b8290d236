/**
 * The host's own V8 flags (src/engine/host/supervisor.ts): a small young generation, which keeps
 * the host of 30 runs about 8 MB smaller; a starter's own `DENO_V8_FLAGS` come after them (a
 * later flag wins), and its runs' workers see the starter's environment, not the host's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { crewWorld, task } from "./_world.ts";

/** The value of `name` in the environment of the live process `pid` (read through `ps e`). */
async function envOf(pid: number, name: string): Promise<string | undefined> {
  const ps = await new Deno.Command("ps", { args: ["eww", "-o", "args=", "-p", String(pid)] })
    .output();
  const line = new TextDecoder().decode(ps.stdout);
  return new RegExp(`(?:^|\\s)${name}=(\\S*)`).exec(line)?.[1];
}

Deno.test({
  name: "the host starts with a small young generation, the starter's V8 flags after it",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using w = await crewWorld({ maxParallel: 4 });
    w.env.DENO_V8_FLAGS = "--stack-size=900";
    const release = join(w.dir, "release");
    const hang = [{ tool: "read", target: "x" }, { waitFile: release }, { answer: "done" }];
    const started = await w.run(["crew", "-g", "env", task("a", hang)]);
    assert.equal(started.code, 0, started.stderr);
    const host = Number((await Deno.readTextFile(join(w.stateDir, "host", "pid"))).trim());
    try {
      assert.equal(
        await envOf(host, "DENO_V8_FLAGS"),
        "--max-semi-space-size=2,--stack-size=900",
      );
      assert.equal(await envOf(host, "PITROOM_STATE_DIR"), w.stateDir);
    } finally {
      await Deno.writeTextFile(release, "");
      const waited = await w.run(["wait", "-g", "env", "--timeout", "60"]);
      assert.equal(waited.code, 0, waited.stderr);
    }
  },
});
