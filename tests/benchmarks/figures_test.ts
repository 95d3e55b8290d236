/**
 * Benchmarks that cannot lie: a statistic of no samples, or a NaN figure, ends the benchmark with
 * an error (exit non-zero) instead of printing `NaN` and exiting 0; and every benchmark script
 * takes its figures through `benchmarks/_figures.ts`, so a new one cannot skip the check.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  badFigures,
  checkFigures,
  childrenCpuFromStat,
  childrenCpuMs,
  median,
  NoFigure,
  quantile,
  samples,
} from "../../benchmarks/_figures.ts";

const BENCHMARKS = fileURLToPath(new URL("../../benchmarks/", import.meta.url));

Deno.test("the CPU of waited-for children comes from /proc/self/stat's cutime and cstime", async () => {
  // A command name with spaces and a parenthesis; utime 7, stime 3, cutime 41, cstime 12.
  const line = "4242 (deno (x) y) S 1 4242 4242 0 -1 4194560 900 50 0 0 7 3 41 12 20 0 5 0 " +
    "123 456 789";
  assert.equal(childrenCpuFromStat(line), 530);
  assert.equal(childrenCpuFromStat("garbage"), null);
  // A child that burns CPU is counted once it is waited for.
  const before = await childrenCpuMs();
  if (Deno.build.os !== "linux") return assert.equal(before, null);
  assert.ok(before !== null, "Linux has /proc/<pid>/stat");
  const out = await new Deno.Command("sh", {
    args: ["-c", "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done"],
  }).output();
  assert.ok(out.success);
  const after = (await childrenCpuMs())!;
  assert.ok(after - before >= 10, `the child's CPU was counted: ${before} -> ${after}`);
});

Deno.test("a statistic of no samples is an error, not NaN", () => {
  assert.throws(() => median([], "p50 of watch lines"), (e: unknown) => {
    assert.ok(e instanceof NoFigure);
    assert.match(e.message, /p50 of watch lines: no samples/);
    return true;
  });
  assert.throws(() => quantile([], 0.95), NoFigure);
  assert.throws(() => samples([1, Number.NaN], "gaps"), /gaps: a sample is NaN/);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(quantile([5, 1, 4, 2, 3], 0.5), 3);
  assert.equal(quantile([5, 1, 4, 2, 3], 0.95), 5);
});

Deno.test("a NaN or infinite figure anywhere in a result is named and refused", () => {
  const result = {
    date: null,
    search: { p50Ms: Number.NaN, queries: [{ p99Ms: 1 }, { p99Ms: Infinity }] },
    ok: 3,
  };
  assert.deepEqual(badFigures(result), [
    "result.search.p50Ms = NaN",
    "result.search.queries[1].p99Ms = Infinity",
  ]);
  assert.throws(() => checkFigures(result), /result\.search\.p50Ms = NaN/);
  const good = { a: 1, b: [2, { c: 0 }], d: "x", e: null };
  assert.equal(checkFigures(good), good);
});

/** The benchmark scripts: each folder's run.ts, and any other entry script beside it. */
async function scripts(): Promise<string[]> {
  const found: string[] = [];
  for await (const dir of Deno.readDir(BENCHMARKS)) {
    if (!dir.isDirectory) continue;
    for await (const f of Deno.readDir(join(BENCHMARKS, dir.name))) {
      const entry = f.name === "run.ts" || (f.name.endsWith(".ts") && !f.name.startsWith("_"));
      if (f.isFile && entry) found.push(join(dir.name, f.name));
    }
  }
  return found.sort();
}

Deno.test("every benchmark script checks its figures through benchmarks/_figures.ts", async () => {
  const list = await scripts();
  assert.ok(list.includes("crew/run.ts"), `found: ${list.join(", ")}`);
  const unchecked: string[] = [];
  for (const script of list) {
    const text = await Deno.readTextFile(join(BENCHMARKS, script));
    if (!/from "\.\.\/_figures\.ts"/.test(text)) unchecked.push(script);
  }
  assert.deepEqual(unchecked, [], "these benchmarks print figures nobody checks");
});
