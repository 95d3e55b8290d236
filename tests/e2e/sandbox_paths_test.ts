/**
 * A worker CLI whose real folder is under `/tmp`, which the sandbox replaces with a private one:
 * the real codex, installed in a folder of `/tmp` and reached through a link in a PATH folder
 * outside it (`~/bin/codex -> /tmp/...`), runs in the sandbox ("required") and answers; bubblewrap
 * once said `execvp codex: No such file or directory`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunRecord } from "../../src/store/record.ts";
import { WORKER_BIN } from "../support/model_server/env_file.ts";
import { world } from "./_world.ts";

Deno.test("the real codex reached through a PATH link into /tmp runs in the sandbox", async () => {
  const install = await Deno.makeTempDir({ dir: "/tmp", prefix: "pitroom-cli-" });
  const bin = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "pitroom-bin-" });
  try {
    // The codex packages, linked file by file (same file system: instant), under /tmp.
    const packages = join(WORKER_BIN, "..", "@openai");
    await Deno.mkdir(join(install, "node_modules"));
    const cp = await new Deno.Command("cp", {
      args: ["-al", await Deno.realPath(packages), join(install, "node_modules", "@openai")],
    }).output();
    assert.equal(cp.code, 0, new TextDecoder().decode(cp.stderr));
    await Deno.symlink(
      join(install, "node_modules", "@openai", "codex", "bin", "codex.js"),
      join(bin, "codex"),
    );
    await using w = await world(
      { hello: { turns: [{ answer: "Hello from /tmp." }] } },
      { config: { sandbox: "required" } },
    );
    const path = [bin, ...w.env.PATH!.split(":").filter((p) => p !== WORKER_BIN)].join(":");
    const r = await w.run(["run", "-W", "codex", "-m", "fake/hello", "--json", "Say hello"], {
      env: { PATH: path },
    });
    const record = JSON.parse(r.stdout) as RunRecord;
    assert.equal(r.code, 0, `${r.stderr} ${record.message}`);
    assert.equal(record.attempts[0]?.sandbox, "bwrap");
    assert.equal(record.answer, "Hello from /tmp.");
  } finally {
    await Deno.remove(install, { recursive: true });
    await Deno.remove(bin, { recursive: true });
  }
});
