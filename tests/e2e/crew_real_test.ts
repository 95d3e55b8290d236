/**
 * End to end: a crew of 8 real workers (codex and claude, whose processes are light) run by one
 * host against the scripted model server, each model call delayed; every run is done and each
 * answer lands on its own run. Then an isolate crew of real codex workers edits private copies and
 * `apply -g` lands the patches in order, stopping at the one that no longer applies.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
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
  assert.deepEqual(lines.at(-1), { event: "all-done", runs: 8, ok: 8, failed: 0 });

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

Deno.test("an isolate crew of real workers edits private copies; apply -g lands them in order", async () => {
  const edit = (path: string, old: string, now: string) => ({
    turns: [
      { edit: { path, old, new: now }, delay_ms: 500 },
      { answer: `Changed ${path}.` },
    ],
  });
  await using w = await world({
    "iso-0": edit("src/app.ts", "41", "42"),
    "iso-1": edit("src/b.ts", "1", "2"),
    "iso-2": edit("src/app.ts", "41", "43"),
  });
  await Deno.writeTextFile(join(w.repo, "src/b.ts"), "export const b = 1;\n");
  const task = (n: number) => `[[scenario:iso-${n}]] Change number ${n}`;
  const started = await w.run([
    "crew",
    "-i",
    "-g",
    "iso",
    "-W",
    "codex",
    "-m",
    "fake/iso-0",
    "-t",
    "120s",
    "--json",
    ...[0, 1, 2].map(task),
  ]);
  assert.equal(started.code, 0, started.stderr);
  const ids = JSON.parse(started.stdout).runs as string[];
  const waited = await w.run(["wait", "-g", "iso", "--brief", "--timeout", "150s"]);
  assert.equal(waited.code, 0, waited.stdout + waited.stderr);
  // Each worker changed its copy (the report says what a run that did not did instead).
  const done = JSON.parse(
    (await w.run(["wait", ...ids, "--json", "--timeout", "30s"])).stdout,
  ) as Array<
    { id: string; changes?: { files: unknown[] } }
  >;
  for (const r of done) {
    if (r.changes?.files.length === 1) continue;
    // What the run did instead (codex's own stream says why a patch failed).
    const events = await w.run(["show", r.id, "--events"]);
    const stream = await gunzipText(join(w.stateDir, "runs", r.id, "stream.jsonl.gz"))
      .catch((error) => `(no stream: ${error})`);
    assert.fail(
      `run ${r.id} changed ${
        r.changes?.files.length ?? "no"
      } files; its events:\n${events.stdout}` +
        `\nits stream:\n${stream.slice(-6000)}`,
    );
  }
  // Nothing reached the user's tree before apply.
  assert.equal(await w.read("src/app.ts"), "export const answer = 41;\n");
  const applied = await w.run(["apply", "-g", "iso", "--json"]);
  assert.equal(applied.code, 1, applied.stderr + applied.stdout);
  const out = JSON.parse(applied.stdout);
  assert.deepEqual(out.applied.map((a: { id: string }) => a.id), ids.slice(0, 2));
  assert.equal(out.failed.run, ids[2]);
  assert.equal(await w.read("src/app.ts"), "export const answer = 42;\n");
  assert.equal(await w.read("src/b.ts"), "export const b = 2;\n");
});

/** A gzip file's text. */
async function gunzipText(path: string): Promise<string> {
  const file = await Deno.open(path);
  const text = file.readable.pipeThrough(new DecompressionStream("gzip"))
    .pipeThrough(new TextDecoderStream());
  let out = "";
  for await (const chunk of text) out += chunk;
  return out;
}
