/**
 * The planted-bug review benchmark: for each case of a task file, a fresh checkout of the pinned
 * repository, one small bug planted in a real file and committed as a bare "tidy", then
 * `pitroom review --range HEAD~1..HEAD --json` on that commit, scored by `_score.ts` (finds,
 * exact finds, and false alarms on the clean cases).
 *
 *     deno run -P=pitroom benchmarks/review-bugs/run.ts [--tasks DIR] [--repo PATH]
 *       [-- REVIEW FLAGS...]
 *
 * `--repo PATH` uses a local clone instead of the task's URL (the pinned commit must be in it);
 * flags after `--` go to `pitroom review` (`-W claude`, `--tier capable`, ...).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Case, KINDS, plant } from "./_plant.ts";
import { type Finding, type Score, score, type Totals, totals } from "./_score.ts";
import { NoFigure } from "../_figures.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A task file: a pinned repository and its cases. */
export interface Task {
  repo: string;
  commit: string;
  cases: Case[];
}

/** One case's result. */
export interface CaseResult extends Score {
  task: string;
  case: string;
  kind: Case["kind"];
  clean: boolean;
  /** The review run, and its exit code. */
  run?: string;
  exit: number;
  findings: Finding[];
}

/** Options of `runBenchmark`. */
export interface BenchOptions {
  /** Task files by name. */
  tasks: Record<string, Task>;
  /** Clone this instead of each task's `repo`. */
  repo?: string;
  /** Where checkouts are made (a temp dir by default). */
  workDir?: string;
  /** The environment pitroom runs with (state dir, config, PATH). @default this process's */
  env?: Record<string, string>;
  /** Extra `pitroom review` flags for a case. */
  reviewArgs?: (c: Case) => string[];
}

function checkTask(name: string, value: unknown): Task {
  const t = value as Partial<Task>;
  if (typeof t.repo !== "string" || typeof t.commit !== "string" || !Array.isArray(t.cases)) {
    throw new Error(`task "${name}": needs repo, commit and cases`);
  }
  for (const c of t.cases) {
    if (!(KINDS as readonly string[]).includes(c.kind)) {
      throw new Error(`task "${name}": case "${c.name}" has an unknown kind "${c.kind}"`);
    }
  }
  return t as Task;
}

/** Reads every `*.json` task file of a folder. */
export async function readTasks(dir: string): Promise<Record<string, Task>> {
  const tasks: Record<string, Task> = {};
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    const name = entry.name.replace(/\.json$/, "");
    tasks[name] = checkTask(name, JSON.parse(await Deno.readTextFile(join(dir, entry.name))));
  }
  return tasks;
}

async function run(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function git(cwd: string, env: Record<string, string>, ...args: string[]): Promise<string> {
  const r = await run(["git", ...args], cwd, {
    ...env,
    GIT_AUTHOR_NAME: "bench",
    GIT_AUTHOR_EMAIL: "bench@example.invalid",
    GIT_COMMITTER_NAME: "bench",
    GIT_COMMITTER_EMAIL: "bench@example.invalid",
  });
  if (r.code !== 0) throw new Error(`git ${args.join(" ")} failed: ${r.stderr.trim()}`);
  return r.stdout;
}

/** One case: checkout, plant, commit "tidy", review, score. */
async function runCase(
  name: string,
  task: Task,
  c: Case,
  options: BenchOptions & { workDir: string; env: Record<string, string> },
): Promise<CaseResult> {
  const dir = join(options.workDir, `${name}-${c.name}`);
  const env = options.env;
  await git(options.workDir, env, "clone", "--quiet", options.repo ?? task.repo, dir);
  await git(dir, env, "checkout", "--quiet", "--detach", task.commit);
  const path = join(dir, c.file);
  const planted = plant(await Deno.readTextFile(path), c);
  await Deno.writeTextFile(path, planted.text);
  await git(dir, env, "commit", "--quiet", "-am", "tidy");
  const argv = [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-prompt",
    `--config=${join(ROOT, "deno.json")}`,
    "-P=pitroom",
    join(ROOT, "main.ts"),
    "review",
    "--range",
    "HEAD~1..HEAD",
    "--json",
    ...(options.reviewArgs?.(c) ?? []),
  ];
  const r = await run(argv, dir, env);
  let record: { id?: string; review?: { verdict?: { complete: boolean; findings: Finding[] } } } =
    {};
  try {
    record = JSON.parse(r.stdout);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  const verdict = record.review?.verdict ?? { complete: false, findings: [] };
  const clean = c.kind === "clean";
  const target = clean ? null : {
    file: c.file,
    line: planted.line,
    ...(c.identifier === undefined ? {} : { identifier: c.identifier }),
  };
  return {
    task: name,
    case: c.name,
    kind: c.kind,
    clean,
    ...(record.id === undefined ? {} : { run: record.id }),
    exit: r.code,
    findings: verdict.findings,
    ...score(verdict, target),
  };
}

/** Runs every case of every task, one after another; returns each result and the totals. */
export async function runBenchmark(
  options: BenchOptions,
): Promise<{ results: CaseResult[]; totals: Totals }> {
  const own = options.workDir === undefined
    ? await Deno.makeTempDir({ prefix: "review-bugs-" })
    : null;
  const workDir = options.workDir ?? own!;
  const env = options.env ?? Deno.env.toObject();
  try {
    const results: CaseResult[] = [];
    for (const [name, task] of Object.entries(options.tasks)) {
      for (const c of task.cases) {
        results.push(await runCase(name, task, c, { ...options, workDir, env }));
      }
    }
    return { results, totals: totals(results) };
  } finally {
    if (own !== null) await Deno.remove(own, { recursive: true });
  }
}

/** The results as a Markdown table and a totals line. */
export function renderResults(out: { results: CaseResult[]; totals: Totals }): string {
  const rows = ["| case | kind | exit | find | exact | false alarm |", "|---|---|---|---|---|---|"];
  const mark = (b: boolean) => (b ? "yes" : "-");
  for (const r of out.results) {
    rows.push(
      `| ${r.task}/${r.case} | ${r.kind} | ${r.exit} | ${mark(r.find)} | ${mark(r.exact)} | ${
        mark(r.falseAlarm)
      } |`,
    );
  }
  const t = out.totals;
  rows.push(
    "",
    `finds ${t.finds}/${t.bugs}, exact ${t.exact}/${t.bugs}, false alarms ${t.falseAlarms}/${t.clean}, failed reviews ${t.failed}`,
  );
  return rows.join("\n") + "\n";
}

if (import.meta.main) {
  const args = [...Deno.args];
  const rest = args.indexOf("--") >= 0 ? args.splice(args.indexOf("--")).slice(1) : [];
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const tasksDir = flag("--tasks") ?? fileURLToPath(new URL("./tasks", import.meta.url));
  const repo = flag("--repo");
  const out = await runBenchmark({
    tasks: await readTasks(tasksDir),
    ...(repo === undefined ? {} : { repo }),
    reviewArgs: () => rest,
  });
  console.log(renderResults(out));
  // A benchmark that reviewed nothing, or whose every review failed, has no figure to give.
  if (out.totals.bugs === 0) throw new NoFigure("no planted bug was reviewed (no cases matched)");
  if (out.totals.failed === out.results.length) {
    throw new NoFigure(`every review failed (${out.totals.failed}): no figure`);
  }
}
