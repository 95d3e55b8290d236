import assert from "node:assert/strict";
import { join } from "node:path";
import { withHistory } from "../../src/store/history/ready.ts";
import { indexRun } from "../../src/store/history/mod.ts";
import { statePaths } from "../../src/store/paths.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";
import { writeFakeRun } from "./_fixtures.ts";

const count = (sys: ReturnType<typeof testSys>) =>
  withHistory(sys, (db) => (db.prepare("SELECT COUNT(*) AS n FROM runs").get() as { n: number }).n);

Deno.test("a run whose indexing failed is indexed by the next history read", async () => {
  await using state = await tempDir("pitroom-pending-");
  const sys = testSys({ stateDir: state.path });
  const first = await writeFakeRun(state.path, { task: "first", endedAt: Date.now() - 1000 });
  await indexRun(sys, first);
  assert.equal(await count(sys), 1, "the first import took in the first run");

  const second = await writeFakeRun(state.path, { task: "second", endedAt: Date.now() });
  const paths = statePaths(state.path);
  // Its events file cannot be read (a folder where the file should be): indexing fails.
  const events = paths.run(second.id).eventsGz;
  const kept = await Deno.readFile(events);
  await Deno.remove(events);
  await Deno.mkdir(events);
  await indexRun(sys, second);
  await Deno.stat(join(paths.historyPending, second.id));
  assert.match(await Deno.readTextFile(join(paths.logs, "history.log")), /left pending/);

  // The next read indexes it once the folder is readable again, and the marker goes.
  await Deno.remove(events);
  await Deno.writeFile(events, kept);
  assert.equal(await count(sys), 2);
  await assert.rejects(Deno.stat(join(paths.historyPending, second.id)), Deno.errors.NotFound);
  const indexed = await withHistory(
    sys,
    (db) =>
      (db.prepare("SELECT COUNT(*) AS n FROM runs WHERE id = ?").get(second.id) as { n: number }).n,
  );
  assert.equal(indexed, 1);
});
