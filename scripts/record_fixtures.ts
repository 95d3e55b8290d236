/**
 * Re-records each backend's streams from the real worker CLIs into
 * `tests/workers/<backend>/testdata/`, so the parser tests read what the pinned CLIs print today:
 *
 *   deno task fixtures:record [opencode|codex|claude|gemini|qwen ...]
 *   deno task fixtures:record claude:resume_first,thinking codex:not_git
 *
 * For each backend (all four, or the ones named) it starts the scripted model server with that
 * backend's scenarios (tests/workers/_fixtures/scenarios.ts), runs the installed CLI through the
 * backend's own `launch()` and the engine's process shell in a fresh git repo, normalises what
 * changes from run to run (temp paths, port, ids, times, durations) and writes `NAME.jsonl`
 * (stdout) and `NAME.txt` (CLI version, command, scenario, exit, stderr), plus `NAME.stderr` where
 * asked. A fixture with a follow-up then resumes the recorded session and records that run too.
 * Only those files are written; the files a backend lists as kept by hand stay as they are.
 */
import { holdState } from "../src/store/state.ts";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runProcess } from "../src/engine/run/process.ts";
import { realSys } from "../src/sys/real.ts";
import { BACKENDS } from "../src/workers/registry.ts";
import { type Backend, type RunSpec, WORKER_NAMES, type WorkerName } from "../src/workers/types.ts";
import { startModelServer } from "../tests/support/model_server/fixture.ts";
import {
  type BackendFixtures,
  type Environment,
  type Fixture,
  FIXTURES,
} from "../tests/workers/_fixtures/scenarios.ts";

const ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
const PROMPT = "Do the scripted task.";
const FOLLOWUP_PROMPT = "And now the follow-up.";
const TIMEOUT_MS = 180_000;
const FIXED_ISO = "2026-01-01T00:00:00.000Z";

/** Where a backend's recordings go. */
function testdata(worker: WorkerName): string {
  return join(ROOT, "tests", "workers", worker, "testdata");
}

/** The places a run's volatile values come from. */
interface Volatile {
  repo: string;
  home: string;
  private: string;
  /** The model server's port (other loopback ports in scenarios stay). */
  port: number;
}

/**
 * Returns a function that replaces run-specific paths, ports, ids, times and durations with
 * stable placeholders; ids are numbered in order of first sight across every call, so a stream,
 * its stderr and a follow-up of the same session agree.
 */
export function normaliser(
  where: Volatile,
  placeholders: BackendFixtures["placeholders"],
): (text: string) => string {
  const ids = new Map<string, string>();
  const numbered = (id: string, make: (n: number) => string) => {
    if (!ids.has(id)) ids.set(id, make(ids.size + 1));
    return ids.get(id) ?? id;
  };
  return (text) =>
    text
      .replaceAll(where.private, placeholders.private)
      .replaceAll(where.repo, placeholders.repo)
      .replaceAll(where.home, placeholders.home)
      .replaceAll(`127.0.0.1:${where.port}`, "127.0.0.1:PORT")
      .replace(
        // Not after a dot: copilot's event types (`model.call_start`) are names, not ids.
        /(?<!\.)\b(ses|msg|prt|call|toolu|msg_01|req)_[A-Za-z0-9_]+/g,
        (id, kind: string) => numbered(id, (n) => `${kind}_${String(n).padStart(4, "0")}`),
      )
      .replace(
        /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g,
        (id) => numbered(id, placeholders.uuid),
      )
      .replace(/\d{4}-\d\d-\d\dT\d\d[:-]\d\d[:-]\d\d(?:[.-]\d+)?Z/g, FIXED_ISO)
      .replace(/"(timestamp|start|end|created|updated)":\d{13}/g, '"$1":1700000000000')
      .replace(/"(duration_ms|duration_api_ms|durationMs)":\d+/g, '"$1":100')
      .replace(/"snapshot":"[0-9a-f]{40}"/g, `"snapshot":"${"0".repeat(40)}"`)
      .replace(/"date":"[^"]*"/g, '"date":"Thu, 01 Jan 2026 00:00:00 GMT"')
      // `ls -l` times of the fresh repo.
      .replace(/\b[A-Z][a-z]{2} [ \d]\d \d\d:\d\d\b/g, "Jan  1 00:00")
      .replace(/timestamp=\S+/g, `timestamp=${FIXED_ISO}`)
      .replace(/run=[0-9a-f]{8}/g, "run=00000000")
      .replace(/err_[0-9a-f]{8}/g, "err_00000000");
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, path), content);
  }
}

/**
 * A temp folder holding the repo and the attempt's private dir side by side, so that what a
 * worker sees of the repo's parent (`ls -la`) is the same on every recording.
 */
async function makeWorkspace(files: Record<string, string>, options: { git: boolean }) {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "pitroom-fixture-" }));
  const repo = join(root, "repo");
  const privateDir = join(root, "private");
  await Deno.mkdir(repo);
  await Deno.mkdir(privateDir);
  await writeFiles(repo, files);
  if (options.git) {
    await git(repo, "init", "-q");
    await git(repo, "add", "-A");
    await git(repo, "commit", "-qm", "init");
  }
  return {
    repo,
    privateDir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** The worker env of a recording that needs another environment than the prepared one. */
async function environmentFor(
  base: Record<string, string>,
  change: Environment | undefined,
  privateDir: string,
): Promise<Record<string, string>> {
  if (change === undefined) return base;
  const env = { ...base };
  for (const name of change.unset ?? []) delete env[name];
  if (change.home !== undefined) {
    // Every variable naming the prepared home (HOME, GEMINI_CLI_HOME, ...) names the fresh one.
    const home = join(privateDir, "home");
    await Deno.mkdir(home);
    await writeFiles(home, change.home);
    for (const [name, value] of Object.entries(base)) {
      if (value === base.HOME) env[name] = home;
    }
  }
  for (const [name, files] of Object.entries(change.dirs ?? {})) {
    const dir = join(privateDir, name.toLowerCase());
    await Deno.mkdir(dir);
    await writeFiles(dir, files);
    env[name] = dir;
  }
  return env;
}

function jsonl(lines: string[]): string {
  return lines.map((line) => `${line}\n`).join("");
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** One backend's recording session: the CLI, its model server and where the files go. */
interface Session {
  worker: WorkerName;
  backend: Backend;
  set: BackendFixtures;
  env: Record<string, string>;
  home: string;
  port: number;
  version: string;
}

interface Recorded {
  name: string;
  code: number | null;
  lines: number;
}

/** What one CLI run printed. */
interface Run {
  argv: string[];
  stdout: string[];
  stderr: string[];
  code: number | null;
  signal: string | null;
}

/** `argv` without the listed arguments (a run of them is dropped together). */
function without(argv: string[], drop: readonly string[]): string[] {
  if (drop.length === 0) return argv;
  const at = argv.findIndex((_, i) => drop.every((arg, j) => argv[i + j] === arg));
  if (at < 0) throw new Error(`The launch has no ${drop.join(" ")} to leave out`);
  return [...argv.slice(0, at), ...argv.slice(at + drop.length)];
}

async function runOnce(
  session: Session,
  spec: RunSpec,
  options: { stopAfterFirstLine: boolean; withoutArgs: readonly string[] },
) {
  const described = session.backend.launch(spec);
  const launch = { ...described, argv: without(described.argv, options.withoutArgs) };
  const stop = new AbortController();
  const stdout: string[] = [];
  const end = await runProcess(holdState(realSys()), launch, {
    timeoutMs: TIMEOUT_MS,
    stop: stop.signal,
    onStdoutLine(line) {
      stdout.push(line);
      if (options.stopAfterFirstLine) stop.abort();
    },
  });
  const stderr = end.stderr.split("\n").filter((line) => line.trim() !== "");
  const run: Run = { argv: launch.argv, stdout, stderr, code: end.code, signal: end.signal };
  return run;
}

/** The session id the backend's own parser finds in a run's stdout. */
function sessionIdOf(backend: Backend, stdout: string[]): string | undefined {
  const state = backend.newState();
  for (const line of stdout) {
    for (const e of backend.parse(line, state, { time: 0, since: 0, start: 0 })) {
      if (e.type === "worker.session") return e.sessionId;
    }
  }
  return undefined;
}

interface NoteFacts {
  fixture: Fixture;
  run: Run;
  prompt: string;
  /** Lines said before the exit (the follow-up's origin, the environment). */
  extra: string[];
}

function note(session: Session, facts: NoteFacts): string {
  const { set, worker, version } = session;
  const { fixture, run } = facts;
  const scenario = fixture.turns
    ? JSON.stringify({
      turns: fixture.turns,
      ...(fixture.followup ? { followup: fixture.followup.turns } : {}),
    })
    : "none (unknown model)";
  return [
    `${worker} ${version}, recorded by scripts/record_fixtures.ts against the scripted model server`,
    `Command: ${run.argv.map(quoteArg).join(" ")} <<< ${quoteArg(facts.prompt)}`,
    `  (mode ${fixture.mode}, cwd ${fixture.noGit ? "a plain folder" : "a git repo"} with ` +
    `${Object.keys(set.files).join(", ")}, ` +
    `stdin closed after the prompt, env from startModelServer)`,
    `Scenario "${fixture.scenario}": ${scenario}`,
    ...facts.extra,
    ...(fixture.withoutArgs
      ? [`Left out of the backend's launch: ${fixture.withoutArgs.join(" ")}`]
      : []),
    ...(fixture.stopAfterFirstLine
      ? ["Stopped with SIGTERM to the process group after the first line."]
      : []),
    `Normalised: paths (${
      [set.placeholders.repo, set.placeholders.home, set.placeholders.private].join(", ")
    }), port, ids, times, durations.`,
    `Exit: code ${run.code} signal ${run.signal}`,
    "stderr:",
    ...run.stderr.map((line) => `  ${line}`),
    "",
  ].join("\n");
}

async function writeRecording(
  session: Session,
  name: string,
  files: { jsonl: string; note: string; stderr?: string },
): Promise<void> {
  const dir = testdata(session.worker);
  await Deno.writeTextFile(join(dir, `${name}.jsonl`), files.jsonl);
  await Deno.writeTextFile(join(dir, `${name}.txt`), files.note);
  if (files.stderr !== undefined) {
    await Deno.writeTextFile(join(dir, `${name}.stderr`), files.stderr);
  }
}

/** Records `fixture` (and its follow-up, when it has one); returns what was written. */
async function recordOne(session: Session, fixture: Fixture): Promise<Recorded[]> {
  await using workspace = await makeWorkspace(session.set.files, { git: !fixture.noGit });
  const { repo, privateDir } = workspace;
  const spec: RunSpec = {
    mode: fixture.mode,
    prompt: PROMPT,
    cwd: repo,
    privateDir,
    model: fixture.model ?? session.set.model(fixture.scenario),
    web: false,
    baseEnv: await environmentFor(session.env, fixture.environment, privateDir),
  };
  const once = {
    stopAfterFirstLine: fixture.stopAfterFirstLine ?? false,
    withoutArgs: fixture.withoutArgs ?? [],
  };
  const first = await runOnce(session, spec, once);
  const norm = normaliser(
    { repo, home: session.home, private: privateDir, port: session.port },
    session.set.placeholders,
  );
  const normRun = (run: Run): Run => ({
    ...run,
    stdout: run.stdout.map(norm),
    stderr: run.stderr.map(norm),
    argv: run.argv.map(norm),
  });
  const shown = normRun(first);
  const environment = fixture.environment ? [`Environment: ${fixture.environment.why}`] : [];
  await writeRecording(session, fixture.name, {
    jsonl: jsonl(shown.stdout),
    note: note(session, { fixture, run: shown, prompt: PROMPT, extra: environment }),
    ...(fixture.stderrFile ? { stderr: shown.stderr.join("\n") + "\n" } : {}),
  });
  const out = [{ name: fixture.name, code: first.code, lines: first.stdout.length }];
  if (fixture.followup === undefined) return out;

  const sessionId = sessionIdOf(session.backend, first.stdout);
  if (sessionId === undefined) {
    throw new Error(`${session.worker} ${fixture.name}: no session id to follow up on`);
  }
  const second = normRun(
    await runOnce(session, { ...spec, prompt: FOLLOWUP_PROMPT, sessionId }, {
      stopAfterFirstLine: false,
      withoutArgs: once.withoutArgs,
    }),
  );
  await writeRecording(session, fixture.followup.name, {
    jsonl: jsonl(second.stdout),
    note: note(session, {
      fixture,
      run: second,
      prompt: FOLLOWUP_PROMPT,
      extra: [
        ...environment,
        `Follow-up: resumes the session of ${fixture.name}.jsonl (recorded just before, same ` +
        `repo and homes); the scenario's followup turns play.`,
      ],
    }),
  });
  out.push({ name: fixture.followup.name, code: second.code, lines: second.stdout.length });
  return out;
}

/**
 * Records the fixtures of `worker` (all of them, or those named in `only`); returns what was
 * written.
 */
export async function recordBackend(
  worker: WorkerName,
  only: readonly string[] = [],
): Promise<Recorded[]> {
  const backend = BACKENDS[worker];
  if (backend === undefined) throw new Error(`No backend "${worker}" in the registry`);
  const set = FIXTURES[worker];
  const scenarios: Record<string, unknown> = {};
  for (const fixture of set.fixtures) {
    if (fixture.turns === undefined) continue;
    scenarios[fixture.scenario] = {
      turns: fixture.turns,
      ...(fixture.followup ? { followup: fixture.followup.turns } : {}),
    };
  }
  await using server = await startModelServer({ scenarios });
  const installed = await backend.detect(realSys().runner, server.env);
  if (installed === null) {
    throw new Error(`${worker} is not installed: run deno task workers:install`);
  }
  const session: Session = {
    worker,
    backend,
    set,
    env: server.env,
    home: await Deno.realPath(server.home),
    port: server.port,
    version: installed.version,
  };
  const chosen = only.length === 0
    ? set.fixtures
    : set.fixtures.filter((f) => only.includes(f.name));
  const missing = only.filter((name) => !set.fixtures.some((f) => f.name === name));
  if (missing.length > 0) throw new Error(`No ${worker} fixture named ${missing.join(", ")}`);
  const out: Recorded[] = [];
  for (const fixture of chosen) out.push(...await recordOne(session, fixture));
  return out;
}

if (import.meta.main) {
  // `claude` records every claude fixture; `claude:resume_first,thinking` only those.
  const wanted = new Map<string, string[]>();
  for (const arg of Deno.args) {
    const [worker = "", names = ""] = arg.split(":", 2);
    wanted.set(worker, [...(wanted.get(worker) ?? []), ...names.split(",").filter((n) => n)]);
  }
  const unknown = [...wanted.keys()].filter((arg) =>
    !(WORKER_NAMES as readonly string[]).includes(arg)
  );
  if (unknown.length > 0) {
    console.error(
      `Unknown backend ${unknown.map((u) => `"${u}"`).join(", ")}: use ${WORKER_NAMES.join(", ")}`,
    );
    Deno.exitCode = 2;
  } else {
    const workers = wanted.size === 0 ? [...WORKER_NAMES] : ([...wanted.keys()] as WorkerName[]);
    const results = await Promise.all(workers.map(async (worker) => {
      const started = performance.now();
      const recorded = await recordBackend(worker, wanted.get(worker) ?? []);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      for (const r of recorded) {
        console.log(`${worker} ${r.name}: exit ${r.code}, ${r.lines} lines`);
      }
      const kept = Object.keys(FIXTURES[worker].keptByHand);
      console.log(
        `${worker}: ${recorded.length} streams in ${seconds} s` +
          (kept.length > 0 ? `; kept by hand: ${kept.join(", ")}` : ""),
      );
      return recorded;
    }));
    console.log(`Recorded ${results.flat().length} streams; now run: deno test -P tests/workers/`);
  }
}
