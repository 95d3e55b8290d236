/**
 * `--since` (savings, history): a time back from now or `all`; anything else is one usage line
 * that lists those forms, `all` included.
 */
import assert from "node:assert/strict";
import { main } from "../../src/cli/main.ts";
import { periodWords, sinceOf } from "../../src/cli/period.ts";
import { UsageError } from "../../src/sys/errors.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("sinceOf() takes a duration back from now or all (any case)", () => {
  assert.equal(sinceOf("1h", 10_000_000), 10_000_000 - 3_600_000);
  assert.equal(sinceOf("all", 5), null);
  assert.equal(sinceOf("ALL", 5), null);
  assert.equal(periodWords("All"), "all time");
  assert.equal(periodWords("7d"), "last 7d");
  for (const bad of ["forever", "0d", "", "-7d", "7 days"]) {
    assert.throws(
      () => sinceOf(bad, 0),
      (e) => e instanceof UsageError && /or all$/.test(e.message),
    );
  }
});

Deno.test("savings and history with a bad --since: exit 2, one line listing the forms and all", async () => {
  await using dir = await tempDir();
  for (const argv of [["savings", "--since", "forever"], ["history", "stats", "--since", "x"]]) {
    const sys = testSys({ stateDir: dir.path });
    assert.equal(await main(argv, sys), 2, argv.join(" "));
    const [line, hint, ...rest] = sys.stderrText().split("\n");
    assert.match(line!, /^pitroom: Invalid --since ".+": expected .*7d.*, or all$/);
    assert.match(hint!, /^hint: .*--since all/);
    assert.deepEqual(rest, [""]);
  }
});
