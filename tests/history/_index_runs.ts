/**
 * A separate process for the concurrency test: waits for a start file, then indexes the named
 * runs (read from their folders) one by one through the lifecycle's hook, and prints how many.
 * Usage: _index_runs.ts STATE_DIR START_FILE ID...
 */
import { holdState } from "../../src/store/state.ts";
import { indexRun } from "../../src/store/history/mod.ts";
import { statePaths } from "../../src/store/paths.ts";
import { loadRecord } from "../../src/store/runs.ts";
import { realSys } from "../../src/sys/real.ts";

const [stateDir, startFile, ...ids] = Deno.args;
const sys = holdState({ ...realSys(), stateDir: stateDir! });
const paths = statePaths(sys.stateDir);
const records = await Promise.all(ids.map((id) => loadRecord(paths, id)));
await Deno.writeTextFile(`${startFile}.ready.${Deno.pid}`, "");
const watcher = Deno.watchFs(stateDir!);
try {
  if (!(await Deno.stat(startFile!).then(() => true, () => false))) {
    for await (const ev of watcher) if (ev.paths.includes(startFile!)) break;
  }
} finally {
  watcher.close();
}
for (const record of records) await indexRun(sys, record);
console.log(records.length);
