/**
 * `wait` hands runs over: its stdout, byte for byte, is what their receipts count as returned
 * (the text report, `--brief` and `--json` alike), split among the runs it reports; the report
 * prints the figure with itself included, and `show` (a look, not a hand-over) adds nothing.
 * In-process through `main`, over finished records.
 */
import assert from "node:assert/strict";
import { main } from "../../src/cli/main.ts";
import { createEngine } from "../../src/engine/mod.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { testSys } from "../support/sys.ts";
import { tempRepo } from "../support/temp.ts";
import { finishedRun, writeRuns } from "./_setup.ts";

const bytesOf = (text: string) => new TextEncoder().encode(text).length;

function priced(id: string, answer: string, cwd: string): RunRecord {
  const at = 1_764_500_000_000;
  return {
    ...finishedRun(
      id,
      [{ worker: "opencode", startedAt: at, endedAt: at + 9_000, outcome: "ok" }],
      {
        input: 20_000,
        output: 300,
      },
    ),
    cwd,
    createdAt: at,
    startedAt: at,
    endedAt: at + 9_000,
    answer,
    receipt: {
      tokens: { input: 20_000, output: 300, cached: 0, reasoning: 0 },
      returnedTokens: 1,
      compression: 20_300,
      workerCost: 0,
      workerCostSource: "free",
      primary: "sonnet",
      primaryCost: 0.06,
      saved: 0.06,
    },
  };
}

Deno.test("wait's output is what the receipts count as returned: text, --brief and --json", async () => {
  await using repo = await tempRepo({ "a.txt": "a\n" });
  const cwd = await Deno.realPath(repo.path);
  const state = `${repo.path}/.git/pitroom-state`;
  const short = priced("20251130-105320-aaaa", "Short.", cwd);
  const long = priced("20251130-105321-bbbb", "A longer answer. ".repeat(40).trim(), cwd);
  await writeRuns(state, [short, long]);
  const engine = createEngine(testSys({ stateDir: state, cwd }));
  const returned = async (id: string) => (await engine.get(id)).receipt!.returned;
  let total = 0;
  for (const [i, flags] of [[], ["--brief"], ["--json"]].entries()) {
    const sys = testSys({ stateDir: state, cwd });
    assert.equal(await main(["wait", short.id, long.id, ...flags], sys), 0, sys.stderrText());
    const out = sys.stdoutText();
    total += bytesOf(out);
    const a = (await returned(short.id))!;
    const b = (await returned(long.id))!;
    assert.equal(a.bytes + b.bytes, total, `${flags}: every byte of the output, split`);
    assert.equal(a.handovers, i + 1);
    assert.ok(b.bytes > a.bytes, "the longer report takes the larger share");
    if (flags[0] === "--json") {
      // The JSON states what was returned, itself included, exactly.
      const printed = JSON.parse(out) as RunRecord[];
      assert.deepEqual(printed.map((r) => r.receipt!.returned), [a, b]);
    } else if (flags.length === 0) {
      assert.match(out, new RegExp(`~${Math.ceil(a.bytes / 4)} returned to you`));
    }
  }
  const sys = testSys({ stateDir: state, cwd });
  await main(["show", short.id], sys);
  assert.equal((await returned(short.id))!.handovers, 3, "show is a look, not a hand-over");
});
