/**
 * From a request to runs: the worker chain (a tier, `worker`, `model`, the config's fallbacks),
 * the mode and its checks, effort, caps and timeout from the settings resolved once here, and
 * the `continue` rules (same backend, mode and tree; an isolate follow-up reuses its copy).
 */
import type { HeldSys } from "../../store/state.ts";
import { resolve } from "../../sys/path.ts";
import { isFinal, type PlanRef, type RunRecord } from "../../store/record.ts";
import { RefusedError, UsageError } from "../../sys/errors.ts";
import { findBackend, isBuiltIn } from "../../workers/find.ts";
import type { AcpWorker } from "../../workers/acp/config.ts";
import { capsFrom } from "./caps.ts";
import { resolveChain, targetLabel } from "../core/chain.ts";
import { createRun, type NewRun } from "./create.ts";
import { checkEffort } from "./effort.ts";
import type { LoadedSettings } from "../core/load_settings.ts";
import type { RunRequest } from "./request.ts";
import { resolveTier, type TierName, TIERS } from "../core/settings.ts";
import { inRepo } from "../tree/tree.ts";
import { attach, checkTaskSize } from "./attach.ts";
import { checkBudget } from "./budget.ts";
import { RANK_WINDOW_MS, rankChain, targetRecords } from "./rank.ts";
import { MODES } from "../../workers/modes.ts";

async function checkDir(sys: HeldSys, typed: string | undefined): Promise<string> {
  const dir = resolve(sys.cwd(), typed ?? ".");
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Directory "${dir}" does not exist`);
    }
    throw error;
  }
  if (!info.isDirectory) throw new UsageError(`"${dir}" is not a directory`);
  return dir;
}

/** A repository found already for a folder (engine/run/ahead.ts): null when it is in none. */
export interface KnownRepo {
  dir: string;
  tree: Promise<unknown | null>;
}

async function refuseOutsideRepo(sys: HeldSys, dir: string, known?: KnownRepo): Promise<void> {
  const inside = known?.dir === dir ? (await known.tree) !== null : await inRepo(sys, dir);
  if (!inside) {
    throw new RefusedError(
      "not_a_repo",
      `"${dir}" is not in a git repository: write runs need one to track changes`,
      {
        hint: "run `git init` there first, or use a read run",
      },
    );
  }
}

function workerChoice(
  loaded: LoadedSettings,
  request: RunRequest,
  warnings: string[],
): string | undefined {
  if (request.tier === undefined) return request.worker;
  if (request.worker !== undefined) throw new UsageError("Choose one of `worker` and `tier`");
  const tier = request.tier;
  if (!(TIERS as readonly string[]).includes(tier)) {
    throw new UsageError(`Unknown tier "${tier}": expected one of ${TIERS.join(", ")}`);
  }
  const choice = resolveTier(loaded.settings, tier as TierName);
  if (choice.warning) warnings.push(choice.warning);
  return choice.chain;
}

/** The `link` folders, given repeated or comma-separated. */
function linksOf(request: RunRequest): string[] {
  const given = request.link ?? [];
  return given.flatMap((item) => item.split(",")).map((item) => item.trim()).filter(Boolean);
}

async function newRunFrom(
  sys: HeldSys,
  loaded: LoadedSettings,
  request: RunRequest,
  warnings: string[],
  known?: KnownRepo,
): Promise<NewRun> {
  const settings = loaded.settings;
  const dir = await checkDir(sys, request.dir);
  const worker = workerChoice(loaded, request, warnings);
  const chain = resolveChain({
    worker: settings.worker.value,
    fallback: settings.fallback.value,
    models: settings.models.value,
    workers: Object.keys(settings.workers.value),
  }, {
    ...(worker === undefined ? {} : { worker }),
    ...(request.model === undefined ? {} : { model: request.model }),
    noFallback: request.noFallback === true,
  });
  const notes: string[] = [];
  if (worker === undefined && settings.rankWorkers.value && chain.length > 1) {
    const since = sys.clock.now() - RANK_WINDOW_MS;
    const ranked = rankChain(chain, await targetRecords(sys, since));
    if (ranked.changed) {
      chain.splice(0, chain.length, ...ranked.chain);
      notes.push(
        `Chain ranked by recent results (rankWorkers): ${chain.map(targetLabel).join(", ")}`,
      );
    }
  }
  const mode = request.mode ?? "read";
  const facts = MODES[mode];
  if (facts.edits) await refuseOutsideRepo(sys, dir, known);
  const links = linksOf(request);
  if (links.length > 0 && !facts.usesCopy) {
    throw new UsageError(
      "`link` is for isolate runs (`mode: isolate`): a write run works in your tree",
    );
  }
  if (request.host !== undefined) {
    if (mode !== "isolate") {
      throw new UsageError(
        `\`host\` runs isolate runs only (\`mode: isolate\`): a ${mode} run works in your tree here`,
      );
    }
    if (links.length > 0) {
      throw new UsageError("`link` cannot reach a host: its folders stay on this machine");
    }
    // A bad or unknown host is refused now, in one line.
    const { hostConfig } = await import("../core/hosts.ts");
    hostConfig(loaded.loaded.config.hosts, request.host);
  }
  if (request.allowLinks === true && !facts.usesCopy) {
    throw new UsageError("`allowLinks` is for isolate runs (`mode: isolate`)");
  }
  if (request.allowSecrets === true && !facts.secretsAllowed) {
    throw new UsageError(
      "`allowSecrets` is for write (`mode: write`) and isolate (`mode: isolate`) runs: a read run never sees secret files",
    );
  }
  let effort: string | undefined;
  if (request.effort !== undefined) {
    const first = chain[0]!;
    const backend = await findBackend(first.worker, settings.workers.value);
    if (backend === undefined || !isBuiltIn(first.worker)) {
      throw new UsageError(
        `Worker "${first.worker}" is an ACP agent: Pitroom sets no effort for it (set the agent's own in its command)`,
      );
    }
    const models = await backend.models(sys.runner, sys.env.toObject()).catch((error) => {
      // Its levels come from the CLI itself: one that is not there cannot say them.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new RefusedError(
        "worker_missing",
        `Worker "${first.worker}" is not installed: its effort levels cannot be checked`,
        { hint: "see which workers are installed with `pitroom doctor`" },
      );
    });
    effort = checkEffort(models, first.model, request.effort, { worker: first.worker });
  }
  return {
    task: "",
    mode,
    cwd: dir,
    chain,
    timeoutMs: request.timeoutMs ?? settings.timeout.value.ms,
    web: request.web === true,
    ...(request.group === undefined ? {} : { group: request.group }),
    ...(effort === undefined ? {} : { effort }),
    ...(request.verify === undefined ? {} : { verify: request.verify }),
    ...(links.length > 0 ? { links } : {}),
    ...(request.allowLinks === true ? { allowLinks: true } : {}),
    ...(request.allowSecrets === true ? { allowSecrets: true } : {}),
    ...(request.host === undefined ? {} : { host: request.host }),
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/** For an isolate follow-up: the copy it reuses (refused when that copy is gone). */
function reuseOf(prev: RunRecord): NewRun["reuse"] {
  if (!MODES[prev.mode].usesCopy) return undefined;
  const isolation = prev.isolation;
  if (isolation === undefined || prev.changes === undefined || prev.repoRoot === undefined) {
    throw new RefusedError("no_copy", `Run "${prev.id}" has no private copy to continue in`, {
      hint: "start a new isolate run instead",
    });
  }
  if (isolation.discarded !== undefined) {
    throw new RefusedError("copy_gone", `The private copy of run "${prev.id}" was discarded`, {
      hint: "start a new isolate run instead",
    });
  }
  return {
    copyRoot: isolation.copyRoot,
    links: isolation.links,
    before: prev.changes.before,
    repoRoot: prev.repoRoot,
  };
}

/** The request fields a follow-up keeps from the earlier run, by the flag that sets each. */
function keptField(request: RunRequest): string | undefined {
  if (request.mode !== undefined) return `mode: ${request.mode}`;
  const fields = [
    "link",
    "worker",
    "model",
    "dir",
    "tier",
    "effort",
    "web",
    "files",
    "host",
  ] as const;
  return fields.find((field) => request[field] !== undefined && request[field] !== false);
}

async function followUpFrom(
  sys: HeldSys,
  loaded: LoadedSettings,
  request: RunRequest,
  typed: string,
): Promise<NewRun> {
  const kept = keptField(request);
  if (kept !== undefined) {
    throw new UsageError(`\`continue\` keeps the earlier run's settings: leave out \`${kept}\``);
  }
  // The engine resolved what was typed (in the caller's scope, reconciled): a full id.
  const prev = await sys.state.runs.read(typed);
  if (prev === null) throw new UsageError("No run to continue");
  if (!isFinal(prev.state)) {
    throw new RefusedError("run_live", `Run "${prev.id}" is still ${prev.state}`, {
      hint: `wait for it with \`pitroom wait ${prev.id}\``,
    });
  }
  const attempt = prev.attempts.findLast((a) => a.sessionId !== undefined);
  if (attempt?.sessionId === undefined) {
    throw new RefusedError("no_session", `Run "${prev.id}" has no worker session to continue`, {
      hint: "start a new run instead",
    });
  }
  const reuse = reuseOf(prev);
  return {
    task: "",
    mode: prev.mode,
    cwd: prev.cwd,
    chain: [{ worker: attempt.worker, ...(attempt.model ? { model: attempt.model } : {}) }],
    timeoutMs: request.timeoutMs ?? loaded.settings.timeout.value.ms,
    web: prev.web,
    continues: {
      run: prev.id,
      sessionId: attempt.sessionId,
      ...(attempt.sessionTotals ? { sessionTotals: attempt.sessionTotals } : {}),
    },
    ...(prev.group === undefined ? {} : { group: prev.group }),
    ...(prev.effort === undefined ? {} : { effort: prev.effort }),
    ...(request.verify === undefined ? {} : { verify: request.verify }),
    ...(reuse === undefined ? {} : { reuse }),
    ...(prev.allowLinks === true ? { allowLinks: true } : {}),
    ...(prev.allowSecrets === true ? { allowSecrets: true } : {}),
    ...(prev.host === undefined ? {} : { host: prev.host, hostConfig: prev.settings?.host }),
    ...(prev.plan === undefined ? {} : { plan: prev.plan }),
  };
}

/** What a request makes: one spec per task, and the warnings met on the way. */
export interface BuiltRuns {
  specs: NewRun[];
  warnings: string[];
}

/** The runs a request describes (checked, with the settings frozen in); creates nothing. */
export async function buildRuns(
  sys: HeldSys,
  request: RunRequest,
  loaded: LoadedSettings,
  plan?: PlanRef,
  known?: KnownRepo,
): Promise<BuiltRuns> {
  // Every interface's task (the CLI's arguments, stdin, a task file, an MCP call) has one cap.
  checkTaskSize([...(request.tasks ?? []), ...(request.task === undefined ? [] : [request.task])]);
  const tasks = (request.tasks ?? (request.task === undefined ? [] : [request.task]))
    .map((t) => t.trim()).filter((t) => t.length > 0);
  if (tasks.length === 0) {
    throw new UsageError("No task given", { hint: 'pitroom run "what the worker should do"' });
  }
  if (request.tasks !== undefined && request.continue !== undefined) {
    throw new UsageError("`continue` follows up on one run: give one task");
  }
  const warnings = [...loaded.warnings];
  const caps = capsFrom(loaded.loaded.config.caps, request.caps ?? {}, warnings);
  // One spec for all: the directory, chain and effort are checked once.
  const spec = request.continue === undefined
    ? await newRunFrom(sys, loaded, request, warnings, known)
    : await followUpFrom(sys, loaded, request, request.continue);
  if (Object.keys(caps).length > 0) spec.caps = caps;
  if (request.fresh === true) spec.fresh = true;
  if (plan !== undefined) spec.plan = plan;
  const budget = await checkBudget(sys, spec.chain, {
    limit: loaded.settings.budgetDaily.value,
    prices: loaded.settings.workerPrices.value,
  });
  spec.chain = budget.chain;
  if (budget.warning !== undefined) {
    warnings.push(budget.warning);
    spec.notes = [...(spec.notes ?? []), budget.warning];
  }
  if (request.audit !== undefined) spec.auditWanted = request.audit;
  if (request.park ?? loaded.settings.park.value) spec.park = true;
  const attached = await attach(sys, spec.cwd, request.files ?? []);
  if (attached.files.length > 0) spec.files = attached.files;
  const { models, costs, workerPrices, primary, price, sandbox, notify, notifyCommand } =
    loaded.loaded.config;
  spec.settings = {
    maxParallel: loaded.settings.maxParallel.value,
    limits: loaded.settings.limits.value,
    cacheDays: loaded.settings.cacheDays.value,
    config: JSON.parse(JSON.stringify({
      models,
      costs,
      workerPrices,
      primary,
      price,
      ...(acpNamed(spec.chain, loaded.settings.workers.value)),
    })),
    sandbox: sandbox === undefined ? null : JSON.parse(JSON.stringify(sandbox)),
    notify: { on: notify === true, ...(notifyCommand ? { command: notifyCommand } : {}) },
  };
  const audit = { rate: loaded.settings.audit.value, fix: loaded.settings.auditFix.value };
  // Frozen only when set, so a run without audits keeps the record it always had.
  if (audit.rate > 0 || audit.fix) spec.settings.audit = audit;
  if (spec.host !== undefined) {
    // A follow-up keeps the host as its run had it; a new run takes it from the config now.
    const raw = spec.hostConfig !== undefined
      ? spec.hostConfig
      : (loaded.loaded.config.hosts as Record<string, unknown>)[spec.host];
    spec.settings.host = JSON.parse(JSON.stringify(raw));
    delete spec.hostConfig;
  }
  const stall = loaded.settings.stallAfter;
  if (stall.source !== "default") spec.settings.stallAfterMs = stall.value.ms;
  return { specs: tasks.map((task) => ({ ...spec, task: task + attached.text })), warnings };
}

/** The config's ACP workers a chain names, frozen with the run: `{workers}`, or nothing. */
function acpNamed(
  chain: readonly { worker: string }[],
  workers: Readonly<Record<string, AcpWorker>>,
): { workers?: Record<string, AcpWorker> } {
  const named = Object.fromEntries(
    Object.entries(workers).filter(([name]) => chain.some((t) => t.worker === name)),
  );
  return Object.keys(named).length === 0 ? {} : { workers: named };
}

/** Creates a run; a new id is drawn when one made in the same second was drawn already. */
export async function createUnique(sys: HeldSys, spec: NewRun): Promise<RunRecord> {
  for (let attempt = 1;; attempt++) {
    try {
      return await createRun(sys, spec);
    } catch (error) {
      if (!(error instanceof RefusedError && error.code === "run_exists") || attempt >= 8) {
        throw error;
      }
    }
  }
}
