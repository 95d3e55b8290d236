/**
 * End to end, the issue's case: the user edits a file while a background write run's real
 * OpenCode worker waits on its model, and then the worker edits the same file with its edit tool.
 * The run's patch holds only the worker's line; `revert` takes only that out and keeps the
 * user's; a branch switch meanwhile is named and `revert` needs `--force`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { git, waitFor } from "../support/temp.ts";
import { type World, world } from "./_world.ts";

const GREET =
  Array.from({ length: 12 }, (_, i) => `export const line${i + 1} = ${i + 1};`).join("\n") +
  "\n";
const edit = (text: string, from: string, to: string) => text.replace(from, to);

/** The worker reads greet.ts, then waits 5 s on its model (the user edits meanwhile), then edits. */
const SCENARIO = {
  turns: [
    { read: "src/greet.ts" },
    { delay_ms: 5_000, read: "src/greet.ts" },
    { edit: { path: "src/greet.ts", old: "line8 = 8", new: "line8 = 80" } },
    { answer: "Set line 8 to 80." },
  ],
};

/** Starts the run in the background; returns its id once the worker's first read is recorded. */
async function startShared(w: World): Promise<string> {
  const r = await w.run([
    "run",
    "-w",
    "--bg",
    "-W",
    "opencode",
    "-m",
    "fake/shared",
    "Set line 8 to 80",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const id = r.stdout.trim().split(/\s+/)[0]!;
  const events = join(w.stateDir, "runs", id, "events.jsonl");
  await waitFor(async () => {
    const text = await Deno.readTextFile(events).catch(() => "");
    return text.split("\n").some((l) => l.includes('"worker.tool_call"') && l.includes("greet"));
  }, { timeoutMs: 120_000, what: "the worker's first read" });
  return id;
}

async function finished(w: World, id: string) {
  const waited = await w.run(["wait", id, "--timeout", "120"]);
  assert.equal(waited.code, 0, waited.stdout + waited.stderr);
  const record = await w.record(id);
  assert.equal(record.state, "done", record.message);
  return record;
}

/** The user's edit while the worker waits, then its edit of the same file. */
async function userEditFirst(w: World) {
  const id = await startShared(w);
  const mine = edit(GREET, "line2 = 2", "line2 = 2; // mine");
  await Deno.writeTextFile(join(w.repo, "src/greet.ts"), mine);
  const record = await finished(w, id);
  const both = edit(mine, "line8 = 8", "line8 = 80");
  assert.equal(await w.read("src/greet.ts"), both);
  const greet = record.changes!.files.find((f) => f.path === "src/greet.ts");
  assert.equal(greet?.shared, "split", JSON.stringify(record.changes));
  const patch = await w.run(["show", id, "--patch"]);
  assert.match(patch.stdout, /^-export const line8 = 8;$/m);
  assert.match(patch.stdout, /^\+export const line8 = 80;$/m);
  assert.doesNotMatch(patch.stdout, /mine/);
  // The report marks the file and lists the user's edits in it apart, as kept by revert.
  const shown = await w.run(["show", id]);
  assert.match(
    shown.stdout,
    /M src\/greet\.ts +\+1 -1 +\(you changed it too: these are the worker's lines only\)/,
  );
  assert.match(
    shown.stdout,
    /your own edits while the run worked, in files the worker changed too; revert keeps them:\n +M src\/greet\.ts/,
  );
  const reverted = await w.run(["revert", id]);
  assert.equal(reverted.code, 0, reverted.stdout + reverted.stderr);
  assert.match(reverted.stdout, /kept your own edits in 1 of them/);
  assert.doesNotMatch(reverted.stdout, /left alone/);
  assert.equal(await w.read("src/greet.ts"), mine);
}

/** A branch switch while the worker waits. */
async function branchSwitch(w: World) {
  await git(w.repo, "checkout", "-q", "-b", "feat");
  const onFeat = edit(GREET, "line3 = 3", "line3 = 33");
  await Deno.writeTextFile(join(w.repo, "src/greet.ts"), onFeat);
  await git(w.repo, "commit", "-q", "-am", "feat");
  await git(w.repo, "checkout", "-q", "-");
  const id = await startShared(w);
  await git(w.repo, "checkout", "-q", "feat");
  await finished(w, id);
  const shown = await w.run(["show", id]);
  assert.match(shown.stdout, /HEAD moved/);
  const refused = await w.run(["revert", id]);
  assert.equal(refused.code, 3, refused.stdout + refused.stderr);
  assert.match(refused.stderr, /--force/);
  assert.equal(await w.read("src/greet.ts"), edit(onFeat, "line8 = 8", "line8 = 80"));
  const forced = await w.run(["revert", id, "--force"]);
  assert.equal(forced.code, 0, forced.stdout + forced.stderr);
  assert.equal(await w.read("src/greet.ts"), onFeat);
  assert.equal((await git(w.repo, "rev-parse", "--abbrev-ref", "HEAD")).trim(), "feat");
}

// The two cases side by side, each in its own world: most of each is the worker waiting on its
// model (the 5 s the user has to act), so together they take about as long as one.
Deno.test("the user's edit while the OpenCode worker waits, then its edit of the same file: only its line is its own; a branch switch meanwhile: named, revert needs --force, then keeps the branch", async () => {
  await using a = await world({ shared: SCENARIO }, { files: { "src/greet.ts": GREET } });
  await using b = await world({ shared: SCENARIO }, { files: { "src/greet.ts": GREET } });
  await Promise.all([userEditFirst(a), branchSwitch(b)]);
});
