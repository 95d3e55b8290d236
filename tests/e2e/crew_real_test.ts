/**
 * End to end: a crew of 8 real workers (codex and claude, whose processes are light) run by one
 * host against the scripted model server, each model call delayed; every run is done and each
 * answer lands on its own run.
 */
import assert from "node:assert/strict";
import { world } from "./_world.ts";

const CODEX = [0, 1, 2, 3];
const CLAUDE = [4, 5, 6, 7];

function scenario(n: number) {
  return {
    turns: [
      { read: "src/app.ts", delay_ms: 1500 },
      { answer: `Task ${n}: the answer is 41 (src/app.ts:1).`, delay_ms: 1000 },
    ],
  };
}

Deno.test("a crew of 8 real workers (codex and claude) all finish, each answer on its own run", async () => {
  await using w = await world(
    Object.fromEntries([...CODEX, ...CLAUDE].map((n) => [`crew-${n}`, scenario(n)])),
  );
  const task = (n: number) => `[[scenario:crew-${n}]] Task ${n}: where is the answer defined?`;
  const codex = await w.run([
    "crew",
    "-g",
    "real",
    "-W",
    "codex",
    "-m",
    "fake/crew-0",
    "-t",
    "120s",
    "--json",
    ...CODEX.map(task),
  ]);
  assert.equal(codex.code, 0, codex.stderr);
  const claude = await w.run([
    "crew",
    "-g",
    "real",
    "-W",
    "claude",
    "-m",
    "crew-4",
    "-t",
    "120s",
    "--json",
    ...CLAUDE.map(task),
  ]);
  assert.equal(claude.code, 0, claude.stderr);
  const ids = [...JSON.parse(codex.stdout).runs, ...JSON.parse(claude.stdout).runs] as string[];
  assert.equal(ids.length, 8);

  const watched = await w.run(["watch", "-g", "real", "--json", "--timeout", "150s"]);
  assert.equal(watched.code, 0, watched.stderr);
  const lines = watched.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.at(-1), { type: "all-done", runs: 8, ok: 8, failed: 0 });

  const waited = await w.run(["wait", "-g", "real", "--json", "--timeout", "30s"]);
  assert.equal(waited.code, 0, waited.stderr);
  const records = JSON.parse(waited.stdout) as Array<
    { id: string; state: string; task: string; answer?: string; attempts: { worker: string }[] }
  >;
  assert.equal(records.length, 8);
  for (const r of records) {
    const n = Number(/Task (\d+)/.exec(r.task)![1]);
    assert.equal(r.state, "done", `run ${r.id}`);
    assert.equal(r.attempts.at(-1)?.worker, CODEX.includes(n) ? "codex" : "claude");
    assert.match(r.answer ?? "", new RegExp(`^Task ${n}: the answer is 41`), `run ${r.id}`);
  }
});
