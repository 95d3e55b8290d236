/**
 * `pitroom run`: create a run, then execute it here (foreground) or in a detached supervisor.
 * `--continue RUN` follows up in the same worker session: same backend, mode and tree.
 */
import { resolve } from "../sys/path.ts";
import { resolveChain } from "../engine/chain.ts";
import { createRun, type NewRun } from "../engine/create.ts";
import { checkEffort } from "../engine/effort.ts";
import { executeRun } from "../engine/lifecycle.ts";
import { resolveTier, type Settings, type TierName, TIERS } from "../engine/settings.ts";
import { startSupervisor } from "../engine/supervisor.ts";
import { inRepo } from "../engine/tree.ts";
import { isFinal, type RunRecord } from "../store/record.ts";
import { RefusedError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import { BACKENDS } from "../workers/registry.ts";
import { capsFrom } from "../engine/caps.ts";
import type { CommandRun, FlagValues } from "./command.ts";
import { printJson } from "./output.ts";
import { renderReport } from "./report.ts";
import { loadNamed } from "./runs.ts";
import { loadSettings } from "./settings.ts";

async function readTask(sys: Sys, args: string[], taskFile: string | undefined): Promise<string> {
  if (taskFile !== undefined) {
    if (args.length > 0) {
      throw new UsageError("Give the task as arguments or with --task-file, not both");
    }
    try {
      return await Deno.readTextFile(resolve(sys.cwd(), taskFile));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new UsageError(`Task file "${taskFile}" does not exist`);
      }
      throw error;
    }
  }
  if (args.length === 1 && args[0] === "-") return await new Response(Deno.stdin.readable).text();
  return args.join(" ");
}

async function checkDir(sys: Sys, typed: string | undefined): Promise<string> {
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

async function refuseOutsideRepo(sys: Sys, dir: string): Promise<void> {
  if (!(await inRepo(sys, dir))) {
    throw new RefusedError(
      "not_a_repo",
      `"${dir}" is not in a git repository: write runs need one to track changes`,
      {
        hint: "run `git init` there first, or use a read run",
      },
    );
  }
}

function workerChoice(sys: Sys, settings: Settings, flags: FlagValues): string | undefined {
  if (flags.tier === undefined) return flags.worker as string | undefined;
  if (flags.worker !== undefined) throw new UsageError("Choose one of -W and --tier");
  const tier = flags.tier as string;
  if (!(TIERS as readonly string[]).includes(tier)) {
    throw new UsageError(`Unknown tier "${tier}": expected one of ${TIERS.join(", ")}`);
  }
  const choice = resolveTier(settings, tier as TierName);
  if (choice.warning) sys.out.stderr(`pitroom: warning: ${choice.warning}\n`);
  return choice.chain;
}

/** The run a task describes, from `pitroom run`'s flags (`crew` shares it). */
export async function newRunFrom(
  sys: Sys,
  settings: Settings,
  flags: FlagValues,
  task: string,
): Promise<NewRun> {
  const dir = await checkDir(sys, flags.dir as string | undefined);
  const worker = workerChoice(sys, settings, flags);
  const chain = resolveChain({
    worker: settings.worker.value,
    fallback: settings.fallback.value,
    models: settings.models.value,
  }, {
    ...(worker === undefined ? {} : { worker }),
    ...(flags.model === undefined ? {} : { model: flags.model as string }),
    noFallback: flags["no-fallback"] === true,
  });
  const mode = flags.isolate ? "isolate" : flags.write ? "write" : "read";
  if (mode !== "read") await refuseOutsideRepo(sys, dir);
  const links = linksFrom(flags);
  if (links.length > 0 && mode !== "isolate") {
    throw new UsageError("--link is for isolate runs (-i): a write run works in your tree");
  }
  let effort: string | undefined;
  if (flags.effort !== undefined) {
    const first = chain[0]!;
    const backend = BACKENDS[first.worker];
    const models = await backend.models(sys.runner, sys.env.toObject());
    effort = checkEffort(models, first.model, flags.effort as string, { worker: first.worker });
  }
  return {
    task,
    mode,
    cwd: dir,
    chain,
    timeoutMs: (flags.timeout as number | undefined) ?? settings.timeout.value.ms,
    web: flags.web === true,
    ...(flags.group === undefined ? {} : { group: flags.group as string }),
    ...(effort === undefined ? {} : { effort }),
    ...(flags.verify === undefined ? {} : { verify: flags.verify as string }),
    ...(links.length > 0 ? { links } : {}),
  };
}

/** The `--link` folders, given repeated or comma-separated. */
function linksFrom(flags: FlagValues): string[] {
  const given = (flags.link as string[] | undefined) ?? [];
  return given.flatMap((item) => item.split(",")).map((item) => item.trim()).filter(Boolean);
}

/** For an isolate follow-up: the copy it reuses (refused when that copy is gone). */
function reuseOf(prev: RunRecord): NewRun["reuse"] {
  if (prev.mode !== "isolate") return undefined;
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

async function followUpFrom(
  sys: Sys,
  settings: Settings,
  flags: FlagValues,
  task: string,
): Promise<NewRun> {
  for (
    const name of [
      "write",
      "read",
      "isolate",
      "link",
      "worker",
      "model",
      "dir",
      "tier",
      "effort",
      "web",
    ]
  ) {
    if (flags[name] !== undefined && flags[name] !== false) {
      throw new UsageError(`--continue keeps the earlier run's settings: leave out --${name}`);
    }
  }
  const [prev] = await loadNamed(sys, [flags.continue as string]);
  if (prev === undefined) throw new UsageError("No run to continue");
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
    task,
    mode: prev.mode,
    cwd: prev.cwd,
    chain: [{ worker: attempt.worker, ...(attempt.model ? { model: attempt.model } : {}) }],
    timeoutMs: (flags.timeout as number | undefined) ?? settings.timeout.value.ms,
    web: prev.web,
    continues: {
      run: prev.id,
      sessionId: attempt.sessionId,
      ...(attempt.sessionTotals ? { sessionTotals: attempt.sessionTotals } : {}),
    },
    ...(prev.group === undefined ? {} : { group: prev.group }),
    ...(prev.effort === undefined ? {} : { effort: prev.effort }),
    ...(flags.verify === undefined ? {} : { verify: flags.verify as string }),
    ...(reuse === undefined ? {} : { reuse }),
  };
}

/** Runs a task. */
export const runCommand: CommandRun = async ({ sys, flags, args }) => {
  if ([flags.read, flags.write, flags.isolate].filter(Boolean).length > 1) {
    throw new UsageError("Choose one mode: -r (read), -w (write in place) or -i (isolated copy)");
  }
  const task = (await readTask(sys, args, flags["task-file"] as string | undefined)).trim();
  if (task.length === 0) {
    throw new UsageError("No task given", { hint: 'pitroom run "what the worker should do"' });
  }
  const { settings, warnings, loaded } = await loadSettings(sys);
  const caps = capsFrom(loaded.config.caps, {
    maxTokens: flags["max-tokens"] as number | undefined,
    maxCost: flags["max-cost"] as number | undefined,
    maxSteps: flags["max-steps"] as number | undefined,
  }, warnings);
  for (const w of warnings) sys.out.stderr(`pitroom: warning: ${w}\n`);
  const spec = flags.continue === undefined
    ? await newRunFrom(sys, settings, flags, task)
    : await followUpFrom(sys, settings, flags, task);
  if (Object.keys(caps).length > 0) spec.caps = caps;
  const record = await createRun(sys, spec);
  if (flags.bg) {
    await startSupervisor(sys, record.id);
    if (flags.json) printJson(sys, { id: record.id, state: "queued" });
    else sys.out.stdout(`${record.id}\n`);
    return 0;
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("interrupted"));
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const showProgress = sys.out.color && !flags.json;
  try {
    const final = await executeRun(sys, record.id, {
      maxParallel: settings.maxParallel.value,
      limits: settings.limits.value,
      stop: stop.signal,
      onEvent(ev) {
        if (!showProgress) return;
        if (ev.type === "worker.tool_call") {
          sys.out.stderr(
            `  · ${ev.kind} ${ev.target}${ev.status === "ok" ? "" : ` (${ev.status})`}\n`,
          );
        }
        if (ev.type === "run.queued") sys.out.stderr(`  queued (position ${ev.position})\n`);
        if (ev.type === "run.fallback") {
          sys.out.stderr(`  ${ev.from} failed (${ev.reason}): trying ${ev.to}\n`);
        }
      },
    });
    if (flags.json) printJson(sys, final);
    else sys.out.stdout(renderReport(final, sys.clock.now()));
    return final.exit ?? 1;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
};
