/**
 * Every write of a finished run's record is told to the live readers: outside the rooms that
 * write a run's record while it is made, runs and is marked lost, a record is written only through
 * `saveChanged` (engine/runs/changed.ts), which adds the `run.changed` line the feed hands the
 * dashboard, MCP subscribers and `watch`. A new act on finished runs that wrote the record
 * itself would leave an open page showing the old state: it fails here.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join, relative } from "node:path";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** Where a record is written before its run ends (or as the run ends), and the one door. */
const WRITERS = [
  /^engine\/run\//,
  /^engine\/request\/create\.ts$/,
  /^engine\/tree\/workspace\.ts$/,
  /^engine\/host\/liveness\.ts$/,
  /^engine\/runs\/changed\.ts$/,
  /^store\//,
];

const WRITE = /\bruns\.write\(|\bwriteRecord\(|writeJsonAtomic\([^)]*\.record\b/;

async function* files(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) yield* files(path);
    else if (/\.tsx?$/.test(e.name)) yield path;
  }
}

/** The files that write a run record where they may not. */
function offenders(sources: Iterable<[string, string]>): string[] {
  const out: string[] = [];
  for (const [rel, text] of sources) {
    if (rel.startsWith("cli/install")) continue; // the install record, not a run's
    if (WRITERS.some((w) => w.test(rel))) continue;
    if (WRITE.test(text)) out.push(rel);
  }
  return out;
}

Deno.test("a finished run's record is written only through saveChanged (live readers hear of it)", async () => {
  const sources: [string, string][] = [];
  for await (const path of files(SRC)) {
    sources.push([relative(SRC, path), await Deno.readTextFile(path)]);
  }
  assert.deepEqual(offenders(sources), []);
});

Deno.test("the check catches a record written past saveChanged", () => {
  assert.deepEqual(
    offenders([
      ["engine/runs/apply.ts", "await sys.state.runs.write(record);"],
      ["engine/audit/start.ts", "await writeRecord(paths, record);"],
      ["engine/runs/changed.ts", "await sys.state.runs.write(record);"],
      ["engine/review/conclude.ts", "await saveChanged(sys, reviewed, 'review');"],
    ]),
    ["engine/runs/apply.ts", "engine/audit/start.ts"],
  );
});
