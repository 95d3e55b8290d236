/**
 * The history benchmark: 100,000 generated finished runs in a temp state dir, then
 *
 * - import: `pitroom history import`'s work (every folder read and indexed), against reading the
 *   same folders without writing anything (the baseline);
 * - search: full-text queries through `searchRuns` (what `pitroom history TEXT` runs), p50 and p99,
 *   each against the same question asked with LIKE over the same rows (the baseline);
 * - stats: `computeStats` over 30 days and over all time in-process, and `pitroom history stats`
 *   end to end against `pitroom --version` (start-up) in the same rounds;
 * - the size of history.db against the run folders it indexes.
 *
 *   deno run -P=pitroom benchmarks/history/run.ts [--runs N] [--rounds N] [--json] [--out FILE]
 *
 * Exits 1 when the search p50 misses its target (20 ms).
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { DatabaseSync } from "node:sqlite";
import { withHistory } from "../../src/store/history/ready.ts";
import { type SearchFilter, searchRuns } from "../../src/engine/history/search.ts";
import { computeStats } from "../../src/engine/history/stats.ts";
import { ftsQuery } from "../../src/engine/history/query.ts";
import { statePaths } from "../../src/store/paths.ts";
import { listRunIds, readRecord } from "../../src/store/runs.ts";
import { readRunFolder } from "../../src/store/history/files.ts";
import { testSys } from "../../tests/support/sys.ts";
import { pitroomArgv } from "../../tests/support/pitroom.ts";
import { generateRuns, vocabulary } from "./_generate.ts";
import { checkFigures, quantile } from "../_figures.ts";

const SEARCH_P50_TARGET_MS = 20;
const DAY = 86_400_000;
const DEFAULT_OUT = fileURLToPath(new URL("./results/latest.json", import.meta.url));

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "100000" },
    rounds: { type: "string", default: "40" },
    out: { type: "string" },
    state: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const RUNS = Number(args.runs);
const ROUNDS = Number(args.rounds);
const log = (text: string) => console.error(text);

/** The middle sample by nearest rank (as the results kept so far were computed). */
const median = (values: number[], what: string) => quantile(values, 0.5, what);
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

function sizeOf(path: string): number {
  let total = 0;
  for (const entry of Deno.readDirSync(path)) {
    const child = `${path}/${entry.name}`;
    total += entry.isDirectory ? sizeOf(child) : Deno.lstatSync(child).size;
  }
  return total;
}

/** The LIKE baseline: the same words, each in any of the three columns, newest first. */
function likeSearch(db: DatabaseSync, filter: SearchFilter, limit = 20): number {
  const words = [...(filter.text ?? "").matchAll(/"([^"]*)"|(\S+)/g)].map((m) =>
    (m[1] ?? m[2]!).replace(/\*$/, "")
  );
  const where = words.map(() => "(task LIKE ?1 OR answer LIKE ?1 OR steps_text LIKE ?1)");
  const params: string[] = [];
  const clauses = words.map((w, i) => {
    params.push(`%${w}%`);
    return where[i]!.replaceAll("?1", `?${i + 1}`);
  });
  if (filter.state === "problem") clauses.push("state <> 'done'");
  if (filter.model !== undefined) {
    params.push(filter.model);
    clauses.push(`model = ?${params.length}`);
  }
  const sql = `SELECT r.id FROM runs r JOIN run_docs d ON d.n = r.n
    ${clauses.length ? `WHERE ${clauses.join(" AND ")}` : ""} ORDER BY r.n DESC LIMIT ${limit}`;
  return db.prepare(sql).all(...params).length;
}

async function timeCommand(argv: string[], env: Record<string, string>): Promise<number> {
  const start = performance.now();
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ms = performance.now() - start;
  if (out.code !== 0) throw new Error(`${argv.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return ms;
}

// --state DIR keeps the generated folders between invocations (generation is slow); the history
// is always imported into a new database.
const state = args.state ?? await Deno.makeTempDir({ prefix: "pitroom-bench-history-" });
try {
  const sys = testSys({ stateDir: state });
  const paths = statePaths(state);
  let now = Date.now();

  let t = performance.now();
  const existing = (await listRunIds(paths)).length;
  if (existing === 0) {
    log(`generating ${RUNS} runs in ${state} ...`);
    generateRuns(state, RUNS, now);
  } else if (existing !== RUNS) {
    throw new Error(`${state} holds ${existing} runs, not ${RUNS}`);
  }
  for (const suffix of ["", "-wal", "-shm"]) {
    await Deno.remove(paths.history + suffix).catch(() => undefined);
  }
  const generateMs = performance.now() - t;
  // Periods are measured from the newest run (folders kept with --state may be days old).
  const newest = (await listRunIds(paths)).at(-1);
  const newestEnd = newest === undefined ? undefined : (await readRecord(paths, newest))?.endedAt;
  now = (newestEnd ?? now) + 60_000;
  const folderBytes = sizeOf(paths.runs);

  log("baseline: reading every folder as the import does, without indexing ...");
  const { gunzipSync } = await import("node:zlib");
  t = performance.now();
  for (const id of await listRunIds(paths)) await readRunFolder(paths, id, (b) => gunzipSync(b));
  const readMs = performance.now() - t;

  log("import ...");
  t = performance.now();
  const imported = await withHistory(sys, (_db, prep) => prep.imported);
  const importMs = performance.now() - t;
  if (imported?.indexed !== RUNS) throw new Error(`imported ${imported?.indexed} of ${RUNS} runs`);

  const words = vocabulary();
  const queries: { name: string; filter: SearchFilter }[] = [
    { name: "most common word", filter: { text: words[0]! } },
    { name: "common word (rank 10)", filter: { text: words[10]! } },
    { name: "mid word (rank 200)", filter: { text: words[200]! } },
    { name: "rare word (rank 4000)", filter: { text: words[4000]! } },
    { name: "two words", filter: { text: `${words[5]} ${words[50]}` } },
    { name: "phrase", filter: { text: `"${words[1]} ${words[2]}"` } },
    { name: "prefix", filter: { text: `${words[20]!.slice(0, 4)}*` } },
    { name: "word + --state problem", filter: { text: words[30]!, state: "problem" } },
    { name: "word + --since 7d", filter: { text: words[100]!, since: now - 7 * DAY } },
    { name: "no text, --model", filter: { model: "gpt-5.5" } },
  ];
  const fts: Record<string, number[]> = {};
  const like: Record<string, number[]> = {};
  const hits: Record<string, number> = {};
  const matches: Record<string, number> = {};
  let stats30: number[] = [];
  let statsAll: number[] = [];
  let dbBytes = 0;
  await withHistory(sys, (db) => {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    dbBytes = Deno.statSync(paths.history).size;
    for (const q of queries) {
      const match = q.filter.text === undefined ? null : ftsQuery(q.filter.text);
      matches[q.name] = match === null
        ? (db.prepare("SELECT COUNT(*) AS n FROM runs WHERE model = ?").get("gpt-5.5") as {
          n: number;
        }).n
        : (db.prepare("SELECT COUNT(*) AS n FROM runs_fts WHERE runs_fts MATCH ?").get(match) as {
          n: number;
        }).n;
    }
    log(`search: ${queries.length} queries x ${ROUNDS} rounds, FTS and LIKE interleaved ...`);
    for (let r = 0; r <= ROUNDS; r++) {
      for (const q of queries) {
        let s = performance.now();
        const found = searchRuns(db, q.filter, { limit: 20 });
        const ftsMs = performance.now() - s;
        s = performance.now();
        likeSearch(db, q.filter);
        const likeMs = performance.now() - s;
        if (r === 0) {
          hits[q.name] = found.length;
          continue;
        }
        (fts[q.name] ??= []).push(ftsMs);
        (like[q.name] ??= []).push(likeMs);
      }
    }
    log("stats in-process ...");
    const timeIt = (fn: () => unknown) => {
      const s = performance.now();
      fn();
      return performance.now() - s;
    };
    stats30 = Array.from({ length: 5 }, () => timeIt(() => computeStats(db, now - 30 * DAY, now)));
    statsAll = Array.from({ length: 5 }, () => timeIt(() => computeStats(db, null, now)));
  });

  log("stats end to end (deno run), against pitroom --version ...");
  const env = { PITROOM_STATE_DIR: state, HOME: state, PATH: Deno.env.get("PATH") ?? "" };
  const cliStats: number[] = [];
  const cliVersion: number[] = [];
  for (let r = 0; r <= 5; r++) {
    const v = await timeCommand([...pitroomArgv(), "--version"], env);
    const s = await timeCommand([...pitroomArgv(), "history", "stats", "--json"], env);
    if (r === 0) continue;
    cliVersion.push(v);
    cliStats.push(s);
  }

  const allFts = Object.values(fts).flat();
  const result = {
    schemaVersion: 1,
    date: new Date().toISOString(),
    command: `deno run -P=pitroom benchmarks/history/run.ts --runs ${RUNS} --rounds ${ROUNDS}`,
    machine: { nproc: navigator.hardwareConcurrency, loadavg: Deno.loadavg(), os: Deno.build.os },
    deno: Deno.version.deno,
    runs: RUNS,
    generateS: round(generateMs / 1000, 1),
    import: {
      s: round(importMs / 1000, 1),
      runsPerS: Math.round(RUNS / (importMs / 1000)),
      readOnlyS: round(readMs / 1000, 1),
      ratioToReadOnly: round(importMs / readMs),
    },
    search: {
      targetP50Ms: SEARCH_P50_TARGET_MS,
      p50Ms: round(median(allFts, "search")),
      p99Ms: round(quantile(allFts, 0.99, "search")),
      queries: queries.map((q) => ({
        name: q.name,
        matches: matches[q.name],
        shown: hits[q.name],
        p50Ms: round(median(fts[q.name] ?? [], q.name)),
        p99Ms: round(quantile(fts[q.name] ?? [], 0.99, q.name)),
        likeP50Ms: round(median(like[q.name] ?? [], `${q.name} LIKE`)),
        speedup: round(median(like[q.name] ?? [], q.name) / median(fts[q.name] ?? [], q.name), 1),
      })),
    },
    stats: {
      inProcess30dMs: round(median(stats30, "stats 30d")),
      inProcessAllMs: round(median(statsAll, "stats all")),
      cliMs: Math.round(median(cliStats, "history stats")),
      versionMs: Math.round(median(cliVersion, "--version")),
    },
    size: {
      dbMB: round(dbBytes / 1e6, 1),
      foldersMB: round(folderBytes / 1e6, 1),
      dbBytesPerRun: Math.round(dbBytes / RUNS),
    },
  };
  checkFigures(result);
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(args.out ?? DEFAULT_OUT, JSON.stringify(result, null, 2) + "\n");
  if (args.json) console.log(JSON.stringify(result, null, 2));
  else {
    const lines = [
      `history benchmark, ${RUNS.toLocaleString("en-US")} runs (load ${
        result.machine.loadavg.map((l) => l.toFixed(1)).join(" ")
      })`,
      `import   ${result.import.s} s = ${result.import.runsPerS} runs/s (reading the folders alone: ${result.import.readOnlyS} s; x${result.import.ratioToReadOnly})`,
      `search   p50 ${result.search.p50Ms} ms, p99 ${result.search.p99Ms} ms (target p50 <= ${SEARCH_P50_TARGET_MS} ms)`,
      ...result.search.queries.map((q) =>
        `  ${q.name.padEnd(24)} ${String(q.matches).padStart(6)} match  p50 ${
          String(q.p50Ms).padStart(6)
        } ms  p99 ${String(q.p99Ms).padStart(6)} ms  LIKE p50 ${
          String(q.likeP50Ms).padStart(7)
        } ms  (${q.speedup}x)`
      ),
      `stats    in-process ${result.stats.inProcess30dMs} ms (30d), ${result.stats.inProcessAllMs} ms (all); pitroom history stats ${result.stats.cliMs} ms vs pitroom --version ${result.stats.versionMs} ms`,
      `size     history.db ${result.size.dbMB} MB (${result.size.dbBytesPerRun} B/run); run folders ${result.size.foldersMB} MB`,
    ];
    console.log(lines.join("\n"));
  }
  Deno.exitCode = result.search.p50Ms <= SEARCH_P50_TARGET_MS ? 0 : 1;
} finally {
  if (args.state === undefined) await Deno.remove(state, { recursive: true });
}
