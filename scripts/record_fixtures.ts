/**
 * Re-records each backend's streams from the real worker CLIs into
 * `tests/workers/<backend>/testdata/`, so the parser tests read what the pinned CLIs print today:
 *
 *   deno task fixtures:record [opencode|codex|claude|gemini ...]
 *
 * For each backend (all four, or the ones named) it starts the scripted model server with that
 * backend's scenarios (tests/workers/_fixtures/scenarios.ts), runs the installed CLI through the
 * backend's own `launch()` and the engine's process shell in a fresh git repo, normalises what
 * changes from run to run (temp paths, port, ids, times, durations) and writes `NAME.jsonl`
 * (stdout) and `NAME.txt` (CLI version, command, scenario, exit, stderr), plus `NAME.stderr` where
 * asked. Only those files are written; hand-made recordings in testdata/ stay as they are.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runProcess } from "../src/engine/process.ts";
import { realSys } from "../src/sys/real.ts";
import { BACKENDS } from "../src/workers/registry.ts";
import { type Backend, type RunSpec, WORKER_NAMES, type WorkerName } from "../src/workers/types.ts";
import { startModelServer } from "../tests/support/model_server/fixture.ts";
import {
  type BackendFixtures,
  type Fixture,
  FIXTURES,
} from "../tests/workers/_fixtures/scenarios.ts";

const ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
const PROMPT = "Do the scripted task.";
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

/** Replaces run-specific paths, ports, ids, times and durations with stable placeholders. */
export function normalise(
  text: string,
  where: Volatile,
  placeholders: BackendFixtures["placeholders"],
): string {
  const ids = new Map<string, string>();
  const numbered = (id: string, make: (n: number) => string) => {
    if (!ids.has(id)) ids.set(id, make(ids.size + 1));
    return ids.get(id) ?? id;
  };
  return text
    .replaceAll(where.private, placeholders.private)
    .replaceAll(where.repo, placeholders.repo)
    .replaceAll(where.home, placeholders.home)
    .replaceAll(`127.0.0.1:${where.port}`, "127.0.0.1:PORT")
    .replace(
      /\b(ses|msg|prt|call|toolu|msg_01|req)_[A-Za-z0-9_]+/g,
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

async function makeRepo(files: Record<string, string>): Promise<string> {
  const repo = await Deno.realPath(await Deno.makeTempDir({ prefix: "pitroom-fixture-repo-" }));
  for (const [path, content] of Object.entries(files)) {
    await Deno.writeTextFile(join(repo, path), content);
  }
  await git(repo, "init", "-q");
  await git(repo, "add", "-A");
  await git(repo, "commit", "-qm", "init");
  return repo;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

interface Recorded {
  name: string;
  code: number | null;
  lines: number;
}

async function recordOne(
  worker: WorkerName,
  backend: Backend,
  set: BackendFixtures,
  fixture: Fixture,
  env: Record<string, string>,
  home: string,
  port: number,
  version: string,
): Promise<Recorded> {
  const repo = await makeRepo(set.files);
  const privateDir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "pitroom-fixture-private-" }),
  );
  try {
    const spec: RunSpec = {
      mode: fixture.mode,
      prompt: PROMPT,
      cwd: repo,
      privateDir,
      model: fixture.model ?? set.model(fixture.scenario),
      web: false,
      baseEnv: env,
    };
    const launch = backend.launch(spec);
    const stop = new AbortController();
    const stdout: string[] = [];
    const end = await runProcess(realSys(), launch, {
      timeoutMs: TIMEOUT_MS,
      stop: stop.signal,
      onStdoutLine(line) {
        stdout.push(line);
        if (fixture.stopAfterFirstLine) stop.abort();
      },
    });
    const where = { repo, home, private: privateDir, port };
    const norm = (text: string) => normalise(text, where, set.placeholders);
    const dir = testdata(worker);
    await Deno.writeTextFile(join(dir, `${fixture.name}.jsonl`), norm(stdout.join("\n")) + "\n");
    const stderr = norm(end.stderr).split("\n").filter((line) => line.trim() !== "");
    const note = [
      `${worker} ${version}, recorded by scripts/record_fixtures.ts against the scripted model server`,
      norm(`Command: ${launch.argv.map(quoteArg).join(" ")} <<< ${quoteArg(PROMPT)}`),
      `  (mode ${fixture.mode}, cwd a git repo with ${Object.keys(set.files).join(", ")}, ` +
      `stdin closed after the prompt, env from startModelServer)`,
      `Scenario "${fixture.scenario}": ${
        fixture.turns ? JSON.stringify({ turns: fixture.turns }) : "none (unknown model)"
      }`,
      ...(fixture.stopAfterFirstLine
        ? ["Stopped with SIGTERM to the process group after the first line."]
        : []),
      `Normalised: paths (${
        [set.placeholders.repo, set.placeholders.home, set.placeholders.private].join(", ")
      }), port, ids, times, durations.`,
      `Exit: code ${end.code} signal ${end.signal}`,
      "stderr:",
      ...norm(stderr.join("\n")).split("\n").filter((l) => l !== "").map((l) => `  ${l}`),
      "",
    ].join("\n");
    await Deno.writeTextFile(join(dir, `${fixture.name}.txt`), note);
    if (fixture.stderrFile) {
      await Deno.writeTextFile(join(dir, `${fixture.name}.stderr`), stderr.join("\n") + "\n");
    }
    return { name: fixture.name, code: end.code, lines: stdout.length };
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(privateDir, { recursive: true });
  }
}

/** Records every fixture of `worker`; returns what was written. */
export async function recordBackend(worker: WorkerName): Promise<Recorded[]> {
  const backend = BACKENDS[worker];
  if (backend === undefined) throw new Error(`No backend "${worker}" in the registry`);
  const set = FIXTURES[worker];
  const scenarios: Record<string, unknown> = {};
  for (const fixture of set.fixtures) {
    if (fixture.turns) scenarios[fixture.scenario] = { turns: fixture.turns };
  }
  await using server = await startModelServer({ scenarios });
  const installed = await backend.detect(realSys().runner, server.env);
  if (installed === null) {
    throw new Error(`${worker} is not installed: run deno task workers:install`);
  }
  const home = await Deno.realPath(server.home);
  const out: Recorded[] = [];
  for (const fixture of set.fixtures) {
    out.push(
      await recordOne(
        worker,
        backend,
        set,
        fixture,
        server.env,
        home,
        server.port,
        installed.version,
      ),
    );
  }
  return out;
}

if (import.meta.main) {
  const unknown = Deno.args.filter((arg) => !(WORKER_NAMES as readonly string[]).includes(arg));
  if (unknown.length > 0) {
    console.error(
      `Unknown backend ${unknown.map((u) => `"${u}"`).join(", ")}: use ${WORKER_NAMES.join(", ")}`,
    );
    Deno.exitCode = 2;
  } else {
    const workers = Deno.args.length === 0 ? [...WORKER_NAMES] : (Deno.args as WorkerName[]);
    const results = await Promise.all(workers.map(async (worker) => {
      const recorded = await recordBackend(worker);
      for (const r of recorded) {
        console.log(`${worker} ${r.name}: exit ${r.code}, ${r.lines} lines`);
      }
      return recorded;
    }));
    console.log(`Recorded ${results.flat().length} streams; now run: deno test -P tests/workers/`);
  }
}
