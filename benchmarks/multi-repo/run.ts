/**
 * The multi-repo benchmark: nine bounded questions (a definition, a count and a list of files in
 * each of three large public repositories at pinned commits, repos.json) asked of each worker
 * through `pitroom eval`, and one table over all nine. The repositories are cloned at their
 * commits into a cache folder (a shallow fetch of the one commit); `--repo NAME=PATH` uses a
 * checkout you have instead. Truths are `git grep` over the checkout when the eval starts, so
 * they hold for the pinned tree. `--scripted` adds `[[scenario:NAME-ID]]` to every question,
 * which makes the project's scripted model server play the scenario of that name (how the test
 * runs it offline).
 *
 *   deno run -P=pitroom benchmarks/multi-repo/run.ts -W opencode -W codex [--cache DIR]
 *     [--repo NAME=PATH]... [--timeout 10m] [--out results/latest.json] [--pitroom CMD]
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { EvalResult } from "../../src/engine/mod.ts";
import type { EvalRow, QuestionKind } from "../../src/engine/eval/mod.ts";
import { median } from "../../src/engine/eval/mod.ts";
import { renderEval } from "../../src/cli/eval.ts";
import { checkFigures, NoFigure } from "../_figures.ts";

/** One repository of the benchmark. */
export interface BenchRepo {
  name: string;
  url: string;
  commit: string;
  questions: { id: string; kind: QuestionKind; question: string; truth: unknown }[];
}

/** Options of `runBenchmark`. */
export interface BenchOptions {
  workers: string[];
  /** The argv that starts pitroom. @default ["pitroom"] */
  pitroom?: string[];
  /** The environment pitroom runs with. @default this process's */
  env?: Record<string, string>;
  /** Where clones are kept. @default ~/.cache/pitroom-bench */
  cache?: string;
  /** Checkouts to use instead of cloning, by repository name. */
  local?: Record<string, string>;
  /** Add scenario markers for the scripted model server. */
  scripted?: boolean;
  /** Per question, as pitroom takes it (`10m`). */
  timeout?: string;
  /** The repositories. @default repos.json */
  repos?: BenchRepo[];
}

const HERE = fileURLToPath(new URL(".", import.meta.url));

async function sh(argv: string[], cwd?: string): Promise<void> {
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    ...(cwd ? { cwd } : {}),
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`${argv.join(" ")} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
}

async function headOf(dir: string): Promise<string | null> {
  const out = await new Deno.Command("git", {
    args: ["-C", dir, "rev-parse", "HEAD"],
    stderr: "null",
  })
    .output().catch(() => null);
  return out?.success ? new TextDecoder().decode(out.stdout).trim() : null;
}

/** A checkout of the repository at its commit: the local one given, or a clone in the cache. */
async function checkout(repo: BenchRepo, options: BenchOptions): Promise<string> {
  const local = options.local?.[repo.name];
  if (local !== undefined) return local;
  const cache = options.cache ?? join(Deno.env.get("HOME") ?? ".", ".cache", "pitroom-bench");
  const dir = join(cache, `${repo.name}-${repo.commit.slice(0, 12)}`);
  if ((await headOf(dir)) === repo.commit) return dir;
  await Deno.mkdir(dir, { recursive: true });
  await sh(["git", "init", "-q", dir]);
  await sh(["git", "-C", dir, "fetch", "-q", "--depth", "1", repo.url, repo.commit]);
  await sh(["git", "-C", dir, "checkout", "-q", "--detach", "FETCH_HEAD"]);
  return dir;
}

async function evalRepo(repo: BenchRepo, dir: string, options: BenchOptions): Promise<EvalResult> {
  const tmp = await Deno.makeTempDir({ prefix: "pitroom-bench-" });
  try {
    const file = join(tmp, `${repo.name}.json`);
    const questions = repo.questions.map((q) => ({
      ...q,
      question: options.scripted ? `[[scenario:${repo.name}-${q.id}]] ${q.question}` : q.question,
    }));
    await Deno.writeTextFile(file, JSON.stringify({ schemaVersion: 1, dir, questions }));
    const [cmd, ...rest] = options.pitroom ?? ["pitroom"];
    const args = [...rest, "eval", file, "--json", ...options.workers.flatMap((w) => ["-W", w])];
    if (options.timeout) args.push("-t", options.timeout);
    const out = await new Deno.Command(cmd!, {
      args,
      cwd: dir,
      ...(options.env ? { env: options.env, clearEnv: true } : {}),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(
        `pitroom eval for ${repo.name} exited ${out.code}: ${new TextDecoder().decode(out.stderr)}`,
      );
    }
    return JSON.parse(text) as EvalResult;
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

/** One result over every repository: questions and answers named `repo/id`, rows per worker. */
export function mergeResults(results: { repo: string; result: EvalResult }[]): EvalResult {
  const rows = new Map<string, EvalRow>();
  for (const { repo, result } of results) {
    for (const row of result.workers) {
      const answers = row.answers.map((a) => ({ ...a, id: `${repo}/${a.id}` }));
      const seen = rows.get(row.worker);
      if (seen === undefined) rows.set(row.worker, { ...row, answers });
      else seen.answers.push(...answers);
    }
  }
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const workers = [...rows.values()].map((row): EvalRow => {
    const sum = (list: typeof row.answers) => round(list.reduce((s, a) => s + a.score, 0));
    const kinds = ["definition", "count", "files"] as const;
    const ran = row.answers.filter((a) => a.outcome === "ok");
    return {
      ...row,
      group: "",
      score: sum(row.answers),
      max: row.answers.length,
      byKind: Object.fromEntries(kinds.map((k) => {
        const mine = row.answers.filter((a) => a.kind === k);
        return [k, { score: sum(mine), max: mine.length }];
      })) as EvalRow["byKind"],
      failures: row.answers.filter((a) => a.failure !== undefined).length,
      medianMs: median(ran.flatMap((a) => (a.ms === null ? [] : [a.ms]))),
      medianTokens: median(ran.map((a) => a.tokens)),
    };
  });
  return {
    file: join(HERE, "repos.json"),
    dir: results.map((r) => r.result.dir).join(", "),
    questions: results.flatMap(({ repo, result }) =>
      result.questions.map((q) => ({ ...q, id: `${repo}/${q.id}` }))
    ),
    workers,
  };
}

/** Runs the benchmark: every repository's questions for every worker, merged. */
export async function runBenchmark(options: BenchOptions): Promise<EvalResult> {
  const repos = options.repos ??
    (JSON.parse(await Deno.readTextFile(join(HERE, "repos.json"))) as { repos: BenchRepo[] })
      .repos;
  const results = [];
  for (const repo of repos) {
    const dir = await checkout(repo, options);
    results.push({ repo: repo.name, result: await evalRepo(repo, dir, options) });
  }
  return mergeResults(results);
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      worker: { type: "string", short: "W", multiple: true },
      cache: { type: "string" },
      repo: { type: "string", multiple: true },
      timeout: { type: "string" },
      out: { type: "string" },
      pitroom: { type: "string" },
      scripted: { type: "boolean" },
    },
  });
  const local = Object.fromEntries((values.repo ?? []).map((r) => {
    const at = r.indexOf("=");
    if (at < 1) throw new Error(`--repo takes NAME=PATH, not "${r}"`);
    return [r.slice(0, at), r.slice(at + 1)];
  }));
  const result = await runBenchmark({
    workers: values.worker ?? [],
    local,
    ...(values.cache ? { cache: values.cache } : {}),
    ...(values.timeout ? { timeout: values.timeout } : {}),
    ...(values.pitroom ? { pitroom: values.pitroom.split(" ").filter(Boolean) } : {}),
    ...(values.scripted ? { scripted: true } : {}),
  });
  console.log(renderEval(result));
  // No worker or no answer is nothing measured; a NaN score is a broken figure (_figures.ts).
  if (result.workers.length === 0 || result.workers.some((w) => w.answers.length === 0)) {
    throw new NoFigure("a worker answered no question (no samples)");
  }
  checkFigures(result);
  if (values.out) await Deno.writeTextFile(values.out, JSON.stringify(result, null, 2) + "\n");
}
