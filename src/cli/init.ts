/**
 * `pitroom init`: proposes a starter config from the installed workers, free ones first (the first
 * of opencode, gemini, kilo, then codex, claude, copilot, crush, qwen as `worker`, the others as
 * `fallback` in that order, tiers
 * cheap/standard/capable for the ones installed, review and audit on another backend) and prints
 * it; writes it only with `--yes`, and replaces an existing config only with `--force`, keeping a
 * backup first.
 */
import { dirname } from "../sys/path.ts";
import { type Backend, type Config, createEngine, type WorkerName } from "../engine/mod.ts";
import { DEFAULT_MAX_PARALLEL, freeFirst, parseTarget } from "../engine/present.ts";
import { writeJsonAtomic } from "../sys/atomic.ts";
import { RefusedError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import type { INIT_FLAGS } from "./init_command.ts";
import { printJson } from "./output.ts";
import { exists } from "../sys/fs.ts";

/** Each tier's workers, best first: the first installed one is proposed. */
const TIER_WORKERS: Record<string, WorkerName[]> = {
  cheap: ["opencode", "gemini", "kilo", "qwen"],
  standard: ["codex", "claude", "gemini", "copilot", "qwen"],
  capable: ["claude", "codex"],
};

/** What `init` decides from the installed workers (pure). */
export function proposeConfig(
  installed: readonly WorkerName[],
  options: { model?: string; fallback?: string[] } = {},
): Config {
  // Free first: a run starts on a free worker, and a rate-limited free model moves to another
  // free one before money.
  const [first, ...rest] = freeFirst(installed);
  if (first === undefined) {
    throw new RefusedError(
      "no_worker",
      "No worker CLI is installed: there is nothing to configure",
      {
        hint: "npm i -g opencode-ai",
      },
    );
  }
  const config: Config = { worker: first };
  const fallback = options.fallback ?? rest;
  if (fallback.length > 0) config.fallback = [...fallback];
  if (options.model !== undefined) config.models = { [first]: options.model };
  const tiers: Record<string, string> = {};
  for (const [tier, workers] of Object.entries(TIER_WORKERS)) {
    const worker = workers.find((w) => installed.includes(w));
    if (worker) tiers[tier] = worker;
  }
  // A review and an audit are worth most from another backend than the one that did the work.
  const other = (not: string | undefined) =>
    ["claude", "codex", "gemini", "opencode", "copilot", "kilo", "crush", "qwen"].find((w) =>
      installed.includes(w as WorkerName) && w !== not
    );
  const reviewer = other(tiers.standard ?? first);
  if (reviewer) tiers.review = reviewer;
  const auditor = other(first);
  if (auditor) tiers.audit = auditor;
  if (Object.keys(tiers).length > 0) config.tiers = tiers;
  config.maxParallel = DEFAULT_MAX_PARALLEL;
  return config;
}

/** The `init --json` document. */
export interface InitReport {
  path: string;
  /** A config existed before. */
  existed: boolean;
  written: boolean;
  /** Where the old config was kept, when it was replaced. */
  backup: string | null;
  config: Config;
}

function backupName(path: string, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  return `${path}.bak-${stamp}`;
}

/** Options of `initConfig`. */
export interface InitOptions {
  model?: string;
  fallback?: string[];
  yes?: boolean;
  force?: boolean;
  /** The backends to ask. @default the registry */
  backends?: Readonly<Record<WorkerName, Backend | undefined>>;
}

/**
 * Proposes the config and, with `yes`, writes it (keeping a backup of one it replaces). The
 * config's own workers (`workers`: ACP agents) are kept as they are, and may be named in
 * `--fallback`.
 */
export async function initConfig(sys: Sys, options: InitOptions): Promise<InitReport> {
  const engine = createEngine(
    sys,
    options.backends === undefined
      ? {}
      : { backends: (name) => options.backends![name as WorkerName]! },
  );
  const own = (await engine.settings()).settings.workers.value;
  const fallback = options.fallback?.map((t) => {
    parseTarget(t, Object.keys(own));
    return t.trim();
  });
  const statuses = await engine.installed();
  const installed = statuses.filter((s) => s.installed).map((s) => s.worker as WorkerName);
  const config = proposeConfig(installed, {
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(fallback === undefined ? {} : { fallback }),
  });
  if (Object.keys(own).length > 0) config.workers = own;
  const path = sys.configPath;
  const existed = await exists(path);
  const report: InitReport = { path, existed, written: false, backup: null, config };
  if (!options.yes) return report;
  if (existed && !options.force) {
    throw new RefusedError("config_exists", `A config exists already at "${path}"`, {
      hint: "pitroom init --yes --force (keeps a backup)",
    });
  }
  await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  if (existed) {
    report.backup = backupName(path, sys.clock.now());
    await Deno.copyFile(path, report.backup);
  }
  await writeJsonAtomic(path, config);
  report.written = true;
  return report;
}

/** Proposes (and with --yes writes) a starter config. */
export const initCommand: CommandRun<typeof INIT_FLAGS> = async ({ sys, flags }) => {
  const fallbackFlag = flags.fallback;
  const report = await initConfig(sys, {
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(fallbackFlag === undefined
      ? {}
      : { fallback: fallbackFlag.split(",").filter((t) => t.trim() !== "") }),
    yes: flags.yes === true,
    force: flags.force === true,
  });
  if (flags.json) {
    printJson(sys, report);
    return 0;
  }
  sys.out.stdout(JSON.stringify(report.config, null, 2) + "\n");
  if (report.written) {
    sys.out.stderr(`Wrote ${report.path}\n`);
    if (report.backup) sys.out.stderr(`The old config is kept at ${report.backup}\n`);
  } else if (report.existed) {
    sys.out.stderr(
      `A config exists at ${report.path}: \`pitroom init --yes --force\` replaces it (a backup is kept)\n`,
    );
  } else {
    sys.out.stderr(`Would write ${report.path}: run \`pitroom init --yes\` to write it\n`);
  }
  return 0;
};
