/**
 * The setup checks of `pitroom doctor [--probe]`: is each worker installed (path, and a warning
 * when its version is outside the versions its backend was tested with), is the config sound
 * (its warnings; workers it names that are not installed; a fallback), are rg and git there, is
 * the state dir writable. `--probe` makes one tiny real read run per configured worker through
 * the engine, in a throwaway repo and state dir.
 */
import { type HeldSys, holdState } from "../../store/state.ts";
import { join } from "../../sys/path.ts";
import { parseChain } from "../core/chain.ts";
import { createRun } from "../request/create.ts";
import { detectWorkers, type WorkerStatus } from "./installed.ts";
import { detectAcpWorkers } from "./acp.ts";
import { backendOf } from "../../workers/lookup.ts";
import { executeRun } from "../run/lifecycle.ts";
import { sandboxCheck } from "../../confine/sandboxing.ts";
import type { Settings } from "../core/settings.ts";
import { formatDuration } from "../../sys/duration.ts";
import type { Target } from "../../store/record.ts";
import { BACKENDS } from "../../workers/registry.ts";
import type { Backend, WorkerName } from "../../workers/types.ts";
import { testedRangeText } from "../../workers/tested.ts";
import { loadSettings } from "../core/load_settings.ts";
import { isNoSpace, isUnwritable, removeIfThere } from "../../sys/fs.ts";
import type { CheckSection } from "./sections.ts";

/** How a check came out. */
export type CheckStatus = "ok" | "warn" | "error" | "skip";

/**
 * One check of `doctor --json` (the document is an array of these). `check` is one of
 * `worker`, `version`, `config`, `chain`, `fallback`, `rg`, `git`, `sandbox`, `state_dir`, `probe`.
 */
export interface Check {
  check: string;
  /** Where `doctor` shows it: setup, workers, chain, integrations, use. */
  section?: CheckSection;
  status: CheckStatus;
  message: string;
  worker?: string;
  model?: string;
  hint?: string;
  path?: string;
  version?: string;
  /** The version the tests pin (a version check). */
  pinned?: string;
  /** The versions the worker's backend was tested with, inclusive (a version check). */
  tested?: { min: string; max: string };
  /** A probe's outcome class (`ok`, `rate_limited`, ...). */
  outcome?: string;
  timeMs?: number;
}

export { CHECK_SECTIONS, type CheckSection } from "./sections.ts";

const SECTION_OF: Record<string, CheckSection> = {
  config: "setup",
  rg: "setup",
  git: "setup",
  sandbox: "setup",
  state_dir: "setup",
  worker: "workers",
  version: "workers",
  probe: "workers",
  chain: "chain",
  fallback: "chain",
  tier: "chain",
};

/** The task a probe gives each worker. */
export const PROBE_TASK = "Reply with the single word OK";

/** Options of `runDoctor`. */
export interface DoctorOptions {
  probe?: boolean;
  /** The backends to ask. @default the registry */
  backends?: Readonly<Record<WorkerName, Backend | undefined>>;
  /** How long one probe may take. @default 120000 */
  probeTimeoutMs?: number;
}

async function tool(sys: HeldSys, argv: string[]): Promise<string | null> {
  try {
    const out = await sys.runner.run(argv, { stdin: { kind: "null" } });
    return out.code === 0 ? (out.stdout.split("\n")[0] ?? "").trim() : null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** The installed version against the tested ones: one warning line when outside (pure). */
function versionCheck(s: WorkerStatus, version: string): Check {
  const range = testedRangeText(s.tested);
  const base = {
    check: "version",
    worker: s.worker,
    version,
    pinned: s.tested.pinned,
    tested: { min: s.tested.min, max: s.tested.max },
  };
  const hint = `${s.installHint}@${s.tested.pinned}`;
  switch (s.fit) {
    case "untested":
      return {
        ...base,
        status: "warn",
        message: `an ACP agent Pitroom has not been tested with${
          version === "" ? "" : ` (${version})`
        }: any agent of ACP version 1 should work, but its reports may be read in part`,
      };
    case "inside":
    case null:
      return {
        ...base,
        status: "ok",
        message: s.tested.min === s.tested.max
          ? `${version} is the version Pitroom is tested with`
          : `${version} is within the versions Pitroom is tested with (${range})`,
      };
    case "older":
    case "newer":
      return {
        ...base,
        status: "warn",
        message:
          `${version} is ${s.fit} than the versions Pitroom is tested with (${range}): ${s.tested.relies} may ${
            s.fit === "newer" ? "have changed" : "differ"
          }, so runs may fail or be misread`,
        hint,
      };
    case "unparseable":
      return {
        ...base,
        status: "warn",
        message: `--version printed ${
          version === "" ? "no version number" : `"${version}", not a version number`
        }: it cannot be checked against the versions Pitroom is tested with (${range})`,
        hint,
      };
  }
}

function workerChecks(statuses: readonly WorkerStatus[]): Check[] {
  const checks: Check[] = [];
  for (const s of statuses) {
    if (s.installed === null) {
      checks.push({
        check: "worker",
        worker: s.worker,
        status: "warn",
        message: "not installed",
        hint: s.installHint,
      });
      continue;
    }
    checks.push({
      check: "worker",
      worker: s.worker,
      status: "ok",
      message: s.acp === undefined
        ? `installed at ${s.path ?? s.installed.binary}`
        : `ACP agent \`${s.acp.join(" ")}\`, found at ${s.path ?? s.installed.binary}`,
      path: s.path ?? s.installed.binary,
      version: s.installed.version,
    });
    checks.push(versionCheck(s, s.installed.version));
  }
  return checks;
}

/** The targets the config names, with the setting that names each. */
function namedTargets(settings: Settings): { where: string; target: Target }[] {
  const out: { where: string; target: Target }[] = [];
  const known = Object.keys(settings.workers.value);
  for (const target of parseChain(settings.worker.value, known)) {
    out.push({ where: "worker", target });
  }
  for (const fb of settings.fallback.value) {
    for (const target of parseChain(fb, known)) out.push({ where: "fallback", target });
  }
  for (const [tier, setting] of Object.entries(settings.tiers)) {
    if (setting.value === null) continue;
    for (const target of parseChain(setting.value, known)) {
      out.push({ where: `tiers.${tier}`, target });
    }
  }
  return out;
}

function configChecks(
  settings: Settings,
  warnings: readonly string[],
  exists: boolean,
  statuses: readonly WorkerStatus[],
): Check[] {
  const checks: Check[] = warnings.map((w) => ({ check: "config", status: "warn", message: w }));
  if (warnings.length === 0) {
    checks.push({
      check: "config",
      status: "ok",
      message: exists
        ? `${settings.configPath.value} is sound`
        : `no config file at ${settings.configPath.value}: defaults apply`,
      path: settings.configPath.value,
      ...(exists ? {} : { hint: "pitroom init" }),
    });
  }
  const installed = new Set(statuses.filter((s) => s.installed).map((s) => s.worker));
  const reported = new Set<string>();
  for (const { where, target } of namedTargets(settings)) {
    if (installed.has(target.worker) || reported.has(`${where}:${target.worker}`)) continue;
    reported.add(`${where}:${target.worker}`);
    const status = statuses.find((s) => s.worker === target.worker);
    checks.push({
      check: "chain",
      worker: target.worker,
      status: where === "worker" ? "error" : "warn",
      message: `"${where}" names ${target.worker}, which is not installed`,
      ...(status ? { hint: status.installHint } : {}),
    });
  }
  const chainLength =
    parseChain(settings.worker.value, Object.keys(settings.workers.value)).length +
    settings.fallback.value.length;
  checks.push(
    chainLength > 1
      ? {
        check: "fallback",
        status: "ok",
        message: `fallback after ${settings.worker.value}: ${
          settings.fallback.value.join(", ") || "(in the worker chain)"
        }`,
      }
      : {
        check: "fallback",
        status: "warn",
        message: "no fallback configured: a rate-limited free model will fail the run",
        hint: "pitroom init --fallback codex,claude",
      },
  );
  for (const [tier, setting] of Object.entries(settings.tiers)) {
    checks.push({
      check: "tier",
      status: "ok",
      message: setting.value === null
        ? `${tier}: not set, runs the default worker (${settings.worker.value})`
        : `${tier}: ${setting.value}`,
    });
  }
  return checks;
}

/** Notes on each installed worker where the config puts it to use (worker, fallback, tiers). */
function markInUse(checks: Check[], settings: Settings): void {
  const uses = new Map<string, string[]>();
  for (const { where, target } of namedTargets(settings)) {
    const list = uses.get(target.worker) ?? [];
    if (!list.includes(where)) list.push(where);
    uses.set(target.worker, list);
  }
  for (const c of checks) {
    if (c.check !== "worker" || c.worker === undefined || c.status !== "ok") continue;
    const where = uses.get(c.worker);
    c.message += where ? ` · in use: ${where.join(", ")}` : " · not in use by the config";
  }
}

async function environmentChecks(
  sys: HeldSys,
  statuses: readonly WorkerStatus[],
): Promise<Check[]> {
  const checks: Check[] = [];
  const rg = await tool(sys, ["rg", "--version"]);
  const opencode = statuses.some((s) => s.worker === "opencode" && s.installed);
  checks.push(
    rg !== null ? { check: "rg", status: "ok", message: rg } : {
      check: "rg",
      status: opencode ? "warn" : "skip",
      message: "rg (ripgrep) is not on PATH: opencode's grep and glob tools need it",
      hint: "apt install ripgrep",
    },
  );
  const git = await tool(sys, ["git", "--version"]);
  checks.push(
    git !== null ? { check: "git", status: "ok", message: git } : {
      check: "git",
      status: "error",
      message: "git is not on PATH: Pitroom needs it to record and undo changes",
      hint: "apt install git",
    },
  );
  checks.push({ check: "sandbox", ...await sandboxCheck(sys) });
  checks.push(await stateDirCheck(sys));
  return checks;
}

async function stateDirCheck(sys: HeldSys): Promise<Check> {
  const probe = join(sys.stateDir, `.doctor-${sys.pid}-${sys.randomHex(4)}`);
  try {
    await Deno.mkdir(sys.stateDir, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(probe, "ok\n", { mode: 0o600 });
    await Deno.remove(probe);
    return {
      check: "state_dir",
      status: "ok",
      message: `${sys.stateDir} is writable`,
      path: sys.stateDir,
    };
  } catch (error) {
    if (isNoSpace(error)) {
      await removeIfThere(probe).catch(() => undefined); // a partial probe, if any
      return {
        check: "state_dir",
        status: "error",
        message: `${sys.stateDir} has no space left: ${(error as Error).message}`,
        path: sys.stateDir,
        hint: "free some space on its disk",
      };
    }
    if (
      !(error instanceof Deno.errors.PermissionDenied) &&
      !(error instanceof Deno.errors.NotFound) && !(error instanceof Deno.errors.AlreadyExists) &&
      !(error instanceof Deno.errors.NotADirectory) && !isUnwritable(error)
    ) throw error;
    return {
      check: "state_dir",
      status: "error",
      message: `${sys.stateDir} is not writable: ${(error as Error).message}`,
      path: sys.stateDir,
      hint: "set PITROOM_STATE_DIR to a writable directory",
    };
  }
}

async function probeOne(
  sys: HeldSys,
  target: Target,
  options: DoctorOptions,
): Promise<Check> {
  const root = await Deno.makeTempDir({ prefix: "pitroom-probe-" });
  try {
    const repo = join(root, "repo");
    await Deno.mkdir(repo);
    await Deno.writeTextFile(join(repo, "README.md"), "A probe of Pitroom.\n");
    for (
      const argv of [
        ["git", "init", "-q"],
        ["git", "add", "README.md"],
        [
          "git",
          "-c",
          "user.name=pitroom",
          "-c",
          "user.email=pitroom@localhost",
          "commit",
          "-qm",
          "probe",
        ],
      ]
    ) {
      const out = await sys.runner.run(argv, { cwd: repo, stdin: { kind: "null" } });
      if (out.code !== 0) throw new Error(`${argv.join(" ")}: ${out.stderr.trim()}`);
    }
    const probeSys = holdState({ ...sys, stateDir: join(root, "state"), cwd: () => repo });
    const record = await createRun(probeSys, {
      task: PROBE_TASK,
      mode: "read",
      cwd: repo,
      chain: [target],
      timeoutMs: options.probeTimeoutMs ?? 120_000,
    });
    const backends = options.backends;
    const final = await executeRun(probeSys, record.id, {
      maxParallel: 1,
      ...(backends === undefined ? {} : {
        // ACP workers come from the config file (the probe's record freezes no settings).
        backends: (name: string) => backends[name as WorkerName] ?? backendOf(name, {})!,
      }),
    });
    const outcome = final.outcome ?? "failed";
    const timeMs = (final.endedAt ?? 0) - (final.startedAt ?? final.createdAt);
    const answer = (final.answer ?? "").trim();
    return {
      check: "probe",
      worker: target.worker,
      ...(target.model ? { model: target.model } : {}),
      status: outcome === "ok" ? "ok" : "error",
      outcome,
      timeMs,
      message: outcome === "ok"
        ? `answered "${answer.slice(0, 40)}" in ${formatDuration(timeMs)}`
        : `${outcome}: ${final.message ?? "no message"}`,
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** The distinct installed targets of the worker chain and fallback, in order. */
function probeTargets(settings: Settings, statuses: readonly WorkerStatus[]): Target[] {
  const installed = new Set(statuses.filter((s) => s.installed).map((s) => s.worker));
  const seen = new Set<string>();
  const out: Target[] = [];
  const named = namedTargets(settings).filter((n) =>
    n.where === "worker" || n.where === "fallback"
  );
  for (const { target } of named) {
    const model = target.model ?? settings.models.value[target.worker];
    const key = `${target.worker}:${model ?? ""}`;
    if (!installed.has(target.worker) || seen.has(key)) continue;
    seen.add(key);
    out.push(model ? { worker: target.worker, model } : { worker: target.worker });
  }
  return out;
}

/** Runs every check (and the probes with `probe`); never throws for a failed check. */
export async function runDoctor(sys: HeldSys, options: DoctorOptions = {}): Promise<Check[]> {
  const { loaded, settings, warnings } = await loadSettings(sys);
  const statuses = [
    ...await detectWorkers(sys.runner, sys.env.toObject(), {
      backends: options.backends ?? BACKENDS,
    }),
    ...await detectAcpWorkers(sys.runner, sys.env.toObject(), settings.workers.value),
  ];
  const checks = [
    ...workerChecks(statuses),
    ...configChecks(settings, warnings, loaded.exists, statuses),
    ...(await environmentChecks(sys, statuses)),
  ];
  markInUse(checks, settings);
  if (loaded.config.hosts !== undefined) {
    // Each configured host: reachable, git and the worker CLIs there, the sandbox (remote/).
    const { checkHosts } = await import("./hosts_doctor.ts");
    checks.push(...await checkHosts(sys, loaded.config.hosts));
  }
  if (options.probe) {
    const targets = probeTargets(settings, statuses);
    if (targets.length === 0) {
      checks.push({ check: "probe", status: "skip", message: "no configured worker is installed" });
    }
    checks.push(...await Promise.all(targets.map((t) => probeOne(sys, t, options))));
  }
  for (const c of checks) c.section ??= SECTION_OF[c.check] ?? "setup";
  return checks;
}
