/**
 * `wait` hands runs over: its stdout, byte for byte, is what their receipts count as returned
 * (the text report, `--brief` and `--json` alike), split among the runs it reports; the report
 * prints the figure with itself included, and `show` (a look, not a hand-over) adds nothing.
 * In-process through `main`, over finished records.
 */
import assert from "node:assert/strict";
import { main } from "../../src/cli/main.ts";
import { createEngine } from "../../src/engine/mod.ts";
import { sharesOf, withReturned } from "../../src/engine/present.ts";
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

/**
 * Runs of `priced`'s shape, one per id, whose worker burned a number of tokens that makes no size
 * of their `wait --json` print itself: its tokens and the compression's decimal come and go
 * between two sizes (2,032 bytes printing as 2,034 and back, as the e2e run --bg + wait did once
 * its pids had four digits), so only blanks make the output the size it states. Found by
 * rendering the output as `wait --json` does: the reports, each stating its share of the size.
 */
function printingEachOther(ids: string[], cwd: string): RunRecord[] {
  for (let input = 12_000; input < 13_000; input++) {
    // A byte more of answer moves the sizes against the token boundaries (4 bytes a token).
    for (let more = 0; more < 4; more++) {
      const runs = ids.map((id) => {
        const run = priced(id, "An answer of some length. ".repeat(20) + "!".repeat(more), cwd);
        const tokens = { ...run.receipt!.tokens, input };
        return { ...run, receipt: { ...run.receipt!, tokens } };
      });
      const sizeStating = (size: number) => {
        const shares = sharesOf(size, new Map(ids.map((id) => [id, 1])));
        const shown = runs.map((r) => withReturned(r, { bytes: shares.get(r.id)!, handovers: 1 }));
        return bytesOf(JSON.stringify(shown, null, 2) + "\n");
      };
      const first = sizeStating(bytesOf(JSON.stringify(runs, null, 2) + "\n"));
      const near = Array.from({ length: 41 }, (_, i) => first + i - 20);
      if (near.every((size) => sizeStating(size) !== size)) return runs;
    }
  }
  throw new Error("no token count makes the sizes print each other");
}

Deno.test("wait --json states exactly what it hands over where no size prints itself: one run and several", async () => {
  await using repo = await tempRepo({ "a.txt": "a\n" });
  const cwd = await Deno.realPath(repo.path);
  const state = `${repo.path}/.git/pitroom-state`;
  const engine = createEngine(testSys({ stateDir: state, cwd }));
  for (const ids of [["20251130-105320-aaaa"], ["20251130-105321-bbbb", "20251130-105322-cccc"]]) {
    const runs = printingEachOther(ids, cwd);
    await writeRuns(state, runs);
    const sys = testSys({ stateDir: state, cwd });
    assert.equal(await main(["wait", ...ids, "--json"], sys), 0, sys.stderrText());
    const out = sys.stdoutText();
    const printed = (JSON.parse(out) as RunRecord[]).map((r) => r.receipt!);
    const recorded = await Promise.all(ids.map(async (id) => (await engine.get(id)).receipt!));
    // What each report states is what its run's receipt recorded, and that is the output.
    assert.deepEqual(
      printed.map((r) => [r.returned, r.returnedTokens, r.compression]),
      recorded.map((r) => [r.returned, r.returnedTokens, r.compression]),
      `${ids.length} run(s)`,
    );
    assert.equal(recorded.reduce((sum, r) => sum + r.returned!.bytes, 0), bytesOf(out));
    assert.match(out, /\] +\n$/, "blanks at its end make up what no size could");
  }
});
