/**
 * The tree's secret-looking files in a write run of the real codex (its shell told to `cat .env`):
 * blanked by default, and readable with each of the three equivalents, `--allow-secrets`, the
 * MCP `allowSecrets` field and the config's `sandbox.allowSecrets`. A read run refuses the flag.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunRecord } from "../../src/store/record.ts";
import { stdioClient, structured } from "../server/mcp/_world.ts";
import { world } from "./_world.ts";

const SECRET = "env-file-e2e-secret";

/** What codex's shell printed for the run (its raw stream holds the command's output). */
async function rawStream(stateDir: string, id: string): Promise<string> {
  // A run's result comes back once its record is final; its stream is compressed just after, so
  // it is read plain when not compressed yet (and compressed when it was meanwhile).
  const dir = join(stateDir, "runs", id);
  const plain = await Deno.readTextFile(join(dir, "stream.jsonl")).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  });
  if (plain !== null) return plain;
  const gz = await Deno.readFile(join(dir, "stream.jsonl.gz"));
  return await new Response(
    new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip")),
  ).text();
}

Deno.test("a write run's .env is blank to the worker unless --allow-secrets, MCP allowSecrets or sandbox.allowSecrets", async () => {
  await using w = await world(
    { peek: { turns: [{ shell: "cat .env; echo END-OF-ENV" }, { answer: "Peeked." }] } },
    {
      files: { "a.txt": "a\n", ".gitignore": ".env\n" },
      config: { sandbox: "required" },
    },
  );
  await Deno.writeTextFile(join(w.repo, ".env"), `TOKEN=${SECRET}\n`);
  const cli = async (...flags: string[]) => {
    const r = await w.run(["run", ...flags, "-W", "codex", "-m", "fake/peek", "--json", "Peek"]);
    const record = JSON.parse(r.stdout) as RunRecord;
    assert.equal(r.code, 0, `${r.stderr} ${record.message}`);
    return record;
  };

  const masked = await cli("-w");
  assert.deepEqual(masked.hidden?.files, { count: 1, examples: [".env"] });
  const maskedRaw = await rawStream(w.stateDir, masked.id);
  assert.match(maskedRaw, /END-OF-ENV/, "the worker's shell ran");
  assert.ok(!maskedRaw.includes(SECRET), "the .env reached the worker");

  const allowed = await cli("-w", "--allow-secrets");
  assert.equal(allowed.allowSecrets, true);
  assert.equal(allowed.hidden?.files.count ?? 0, 0);
  assert.ok((await rawStream(w.stateDir, allowed.id)).includes(SECRET));

  await using c = await stdioClient(w);
  const result = await c.client.callTool({
    name: "pitroom_run",
    arguments: {
      task: "Peek",
      mode: "write",
      worker: "codex",
      model: "fake/peek",
      allowSecrets: true,
    },
  });
  const viaMcp = structured(
    await c.client.callTool({
      name: "pitroom_show",
      arguments: { run: structured(result).runs[0].id, full: true },
    }),
  ).report as RunRecord;
  assert.equal(viaMcp.outcome, "ok", viaMcp.message);
  assert.equal(viaMcp.allowSecrets, true);
  assert.ok((await rawStream(w.stateDir, viaMcp.id)).includes(SECRET));

  await Deno.writeTextFile(
    w.env.PITROOM_CONFIG!,
    JSON.stringify({ sandbox: { mode: "required", allowSecrets: true } }),
  );
  const byConfig = await cli("-w");
  assert.equal(byConfig.hidden?.files.count ?? 0, 0);
  assert.ok((await rawStream(w.stateDir, byConfig.id)).includes(SECRET));

  const read = await w.run(["run", "-r", "--allow-secrets", "-W", "codex", "Peek"]);
  assert.equal(read.code, 2, read.stderr);
  assert.match(read.stderr, /--allow-secrets is for write \(-w\) and isolate \(-i\) runs/);
  // The user's file is untouched.
  assert.equal(await Deno.readTextFile(join(w.repo, ".env")), `TOKEN=${SECRET}\n`);
});
