/**
 * The sandbox's start-up cost per run: the launch a backend describes, spawned bare, against the
 * same launch wrapped as the engine wraps an attempt (engine/sandboxing.ts: bubblewrap with the
 * plan of a read run, Pitroom's state dir and config hidden with the guard and the private folder
 * shown again, the home's credentials and the other CLIs' logins hidden), interleaved, medians;
 * plus `true` alone, which is the sandbox's own cost with nothing to start. With `--credentials`
 * every known credential path exists in the worker's home (the most mounts a run can get); with
 * `--network isolated` the worker gets a network of its own (pasta; it needs a routable
 * interface, see the README). Target per worker: sandboxed - bare <= 50 ms and sandboxed / bare
 * <= 1.05.
 *
 *   deno run -P=pitroom --quiet benchmarks/overhead/sandbox.ts [--workers LIST] [--runs N]
 *     [--credentials] [--network host|isolated] [--json] [--out FILE]
 *
 * Writes every sample to results/sandbox.json (or `--out`). Exits 1 when a target is missed (a
 * missing sandbox fails the first run: the setting is "required").
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { buildPrompt } from "../../src/engine/run/prompt.ts";
import { writeLaunchFiles } from "../../src/engine/run/process.ts";
import { confinementPaths } from "../../src/confine/sandboxing.ts";
import { HOME_CREDENTIALS } from "../../src/confine/secret_names.ts";
import {
  defaultSandboxSetting,
  type NetworkMode,
  sandboxLaunch,
} from "../../src/confine/sandbox/mod.ts";
import { statePaths } from "../../src/store/paths.ts";
import { configPaths } from "../../src/workers/logins.ts";
import { realRunner } from "../../src/sys/real.ts";
import { BACKENDS } from "../../src/workers/registry.ts";
import type { Launch, WorkerName } from "../../src/workers/types.ts";
import { startModelServer } from "../../tests/support/model_server/fixture.ts";
import { tempDir, tempRepo } from "../../tests/support/temp.ts";
import { checked, interleave, round1, series, timeProcess } from "./_measure.ts";
import { checkFigures, NoFigure } from "../_figures.ts";

const SCENARIO = { turns: [{ answer: "The answer is 42.", usage: { input: 1200, output: 8 } }] };
const MODELS: Record<WorkerName, string> = {
  opencode: "fake/trivial",
  codex: "fake/trivial",
  claude: "trivial",
  gemini: "trivial",
  qwen: "trivial",
  kilo: "fake/trivial",
  copilot: "trivial",
  crush: "fake/trivial",
};
/** The target: at most 50 ms and at most 5% over the bare run. */
export const SANDBOX_TARGET = { diffMs: 50, ratio: 1.05 } as const;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    workers: { type: "string", default: "true,opencode,codex,claude,gemini" },
    runs: { type: "string", default: "7" },
    json: { type: "boolean", default: false },
    credentials: { type: "boolean", default: false },
    network: { type: "string", default: "host" },
    out: { type: "string", default: "" },
  },
});
const rounds = Number(values.runs);
const names = values.workers.split(",").map((n) => n.trim()).filter(Boolean);

await using server = await startModelServer({ scenarios: { trivial: SCENARIO } });
await using repo = await tempRepo({ "src/app.ts": "export const answer = 42;\n" });
await using scratch = await tempDir("pitroom-bench-sandbox-");
const sys = {
  runner: realRunner,
  env: { get: (n: string) => server.env[n], toObject: () => ({ ...server.env }) },
};
const network = values.network as NetworkMode;
if (network !== "host" && network !== "isolated") throw new Error("--network host|isolated");
const setting = { ...defaultSandboxSetting(), mode: "required" as const, network };
// A state dir as the engine has one (the guard shown again inside it) and a config file.
const stateDir = join(scratch.path, "state");
const state = {
  stateDir,
  configPath: join(scratch.path, "config.json"),
  state: { paths: statePaths(stateDir) },
};
await Deno.mkdir(statePaths(state.stateDir).guard, { recursive: true });
await Deno.writeTextFile(join(state.stateDir, "mcp-token"), "x".repeat(64));
await Deno.writeTextFile(state.configPath, "{}");
if (values.credentials) {
  for (const path of HOME_CREDENTIALS) {
    await Deno.mkdir(join(server.home, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(server.home, path), "secret\n");
  }
}
let runs = 0;

/** A fresh launch of `name` (its own private dir, files written). */
async function launchOf(name: string): Promise<{ launch: Launch; privateDir: string }> {
  const privateDir = join(scratch.path, String(runs++));
  await Deno.mkdir(privateDir, { recursive: true });
  if (name === "true") {
    return {
      launch: { argv: ["true"], env: server.env, cwd: repo.path, files: [], stdin: null },
      privateDir,
    };
  }
  const backend = BACKENDS[name as WorkerName]!;
  const launch = backend.launch({
    mode: "read",
    prompt: buildPrompt("What is the answer?", "read"),
    cwd: repo.path,
    privateDir,
    model: MODELS[name as WorkerName],
    web: false,
    // The same environment on both sides (the scrub would drop the server's FAKE_API_KEY).
    baseEnv: { NO_COLOR: "1", ...server.env },
  });
  await writeLaunchFiles(launch);
  return { launch, privateDir };
}

async function time(launch: Launch, what: string, expect?: string): Promise<number> {
  const inv = { argv: launch.argv, env: launch.env, cwd: launch.cwd };
  const result = await timeProcess(launch.stdin === null ? inv : { ...inv, stdin: launch.stdin });
  return checked(what, result, expect);
}

const results = [];
for (const name of names) {
  if (name !== "true") {
    const installed = await BACKENDS[name as WorkerName]?.detect(realRunner, server.env);
    if (!installed) {
      console.error(`${name}: not installed, skipped`);
      continue;
    }
  }
  const expect = name === "true" ? undefined : "The answer is 42.";
  const samples = await interleave({
    bare: async () => time((await launchOf(name)).launch, `bare ${name}`, expect),
    sandboxed: async () => {
      const { launch, privateDir } = await launchOf(name);
      // The plan (paths resolved, folders made, config files read) counts as part of the
      // sandbox's cost, as the engine's seam does it (engine/sandboxing.ts).
      const start = performance.now();
      const worker = name === "true" ? null : name as WorkerName;
      const { hide, show } = confinementPaths(state, {
        worker,
        env: launch.env,
        setting,
        secrets: [],
      });
      const loopback = network === "isolated" && worker !== null
        ? await Promise.all(
          configPaths(worker, launch.env, launch.cwd).map((p) =>
            Deno.readTextFile(p).catch(() => "")
          ),
        )
        : [];
      const wrapped = await sandboxLaunch(sys, launch, {
        mode: "read",
        privateDir,
        setting,
        hide,
        show,
        loopback,
      });
      const planMs = performance.now() - start;
      return planMs + await time(wrapped.launch, `sandboxed ${name}`, expect);
    },
  }, { rounds, warmup: 1, onRound: (n) => console.error(`  ${name}: round ${n}/${rounds}`) });
  const bare = series(samples.bare);
  const sandboxed = series(samples.sandboxed);
  const diffMs = round1(sandboxed.medianMs - bare.medianMs);
  const ratio = Math.round((sandboxed.medianMs / bare.medianMs) * 1000) / 1000;
  // `true` has no run to compare with: only its absolute cost counts.
  const met = diffMs <= SANDBOX_TARGET.diffMs && (name === "true" || ratio <= SANDBOX_TARGET.ratio);
  results.push({ name, bare, sandboxed, diffMs, ratio, met });
}

const load = Deno.loadavg().map((n) => n.toFixed(2)).join(" ");
const doc = {
  schemaVersion: 1,
  date: new Date().toISOString(),
  load,
  rounds,
  network,
  credentials: values.credentials,
  results,
};
if (results.length === 0) throw new NoFigure("no launch was measured");
checkFigures(doc);
await Deno.writeTextFile(
  values.out === "" ? new URL("./results/sandbox.json", import.meta.url) : values.out,
  JSON.stringify(doc, null, 2) + "\n",
);
if (values.json) {
  console.log(JSON.stringify(doc));
} else {
  console.log(
    `${new Date().toISOString()} · load ${load} · rounds ${rounds} · network ${network}${
      values.credentials ? " · every credential path present" : ""
    }`,
  );
  console.log("| launch | bare | sandboxed | diff | ratio | target |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.bare.medianMs} ms | ${r.sandboxed.medianMs} ms | ${
        r.diffMs >= 0 ? "+" : ""
      }${r.diffMs} ms | ${r.ratio.toFixed(3)}x | ${r.met ? "met" : "MISSED"} |`,
    );
  }
}
Deno.exitCode = results.every((r) => r.met) ? 0 : 1;
