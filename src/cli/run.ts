/**
 * `pitroom run`: create a run, then execute it here (foreground) or in a detached supervisor.
 */
import { resolve } from "node:path";
import { resolveChain } from "../engine/chain.ts";
import { createRun } from "../engine/create.ts";
import { executeRun } from "../engine/lifecycle.ts";
import { startSupervisor } from "../engine/supervisor.ts";
import { loadConfig } from "../store/config.ts";
import { RefusedError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import { printJson } from "./output.ts";
import { renderReport } from "./report.ts";
import { maxParallelOf } from "./settings.ts";

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
  if (args.length === 1 && args[0] === "-") {
    const text = await new Response(Deno.stdin.readable).text();
    return text;
  }
  return args.join(" ");
}

/** Runs a task. */
export const runCommand: CommandRun = async ({ sys, flags, args }) => {
  if (flags.read && flags.write) throw new UsageError("Choose one mode: -r (read) or -w (write)");
  const task = (await readTask(sys, args, flags["task-file"] as string | undefined)).trim();
  if (task.length === 0) {
    throw new UsageError("No task given", { hint: 'pitroom run "what the worker should do"' });
  }
  const dir = resolve(sys.cwd(), (flags.dir as string | undefined) ?? ".");
  try {
    if (!(await Deno.stat(dir)).isDirectory) throw new UsageError(`"${dir}" is not a directory`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Directory "${dir}" does not exist`);
    }
    throw error;
  }
  const { config, warnings } = await loadConfig(sys.configPath);
  for (const w of warnings) sys.out.stderr(`pitroom: warning: ${w}\n`);
  const chain = resolveChain(config, {
    ...(flags.worker === undefined ? {} : { worker: flags.worker as string }),
    ...(flags.model === undefined ? {} : { model: flags.model as string }),
    noFallback: flags["no-fallback"] === true,
  });
  const mode = flags.write ? "write" : "read";
  if (mode === "write") await refuseOutsideRepo(sys, dir);
  const record = await createRun(sys, {
    task,
    mode,
    cwd: dir,
    chain,
    timeoutMs: flags.timeout as number,
    web: flags.web === true,
    ...(flags.group === undefined ? {} : { group: flags.group as string }),
    ...(flags.effort === undefined ? {} : { effort: flags.effort as string }),
  });
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
      maxParallel: maxParallelOf(config),
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
    else {
      if (!showProgress) sys.out.stderr(`run ${final.id}\n`);
      sys.out.stdout(renderReport(final, sys.clock.now()));
    }
    return final.exit ?? 1;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
};

async function refuseOutsideRepo(sys: Sys, dir: string): Promise<void> {
  const out = await sys.runner.run(["git", "rev-parse", "--show-toplevel"], { cwd: dir });
  if (out.code !== 0) {
    throw new RefusedError(
      "not_a_repo",
      `"${dir}" is not in a git repository: write runs need one to track changes`,
      {
        hint: "run `git init` there first, or use a read run",
      },
    );
  }
}
