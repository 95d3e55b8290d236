/**
 * `pitroom run`: the flags become a `RunRequest`; the engine runs it here (foreground) or hands
 * it to the host (`--bg`). `--continue RUN` follows up in the same worker session.
 */
import { createEngine, type RunRequest } from "../engine/mod.ts";
import { UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun, FlagValuesOf } from "./command.ts";
import type { RUN_FLAGS } from "./run_command.ts";
import { checkLinkFlags, readTaskFile, readTaskStdin } from "./flag_files.ts";
import { jsonText, warn } from "./output.ts";
import { bytesOf, printHandedOver, whole } from "./handover.ts";
import { safe, safeLine } from "./safe.ts";
import { deniedCalls, renderReport } from "./report.ts";
import { liveViewForBackground, LiveViewLater, liveViewLine } from "./live_view.ts";
import { timingMark } from "../sys/timing.ts";

async function readTask(sys: Sys, args: string[], taskFile: string | undefined): Promise<string> {
  if (taskFile !== undefined) {
    if (args.length > 0) {
      throw new UsageError("Give the task as arguments or with --task-file, not both");
    }
    return await readTaskFile(sys, taskFile);
  }
  if (args.length === 1 && args[0] === "-") return await readTaskStdin(Deno.stdin.readable);
  return args.join(" ");
}

/** The values of run's flags (crew's are these but a few). */
type RunValues = FlagValuesOf<typeof RUN_FLAGS>;

/** The mode the flags choose (at most one of -r, -w, -i). */
export function modeOf(flags: RunValues, copies = "an isolated copy"): RunRequest["mode"] {
  if ([flags.read, flags.write, flags.isolate].filter(Boolean).length > 1) {
    throw new UsageError(`Choose one mode: -r (read), -w (write in place) or -i (${copies})`);
  }
  return flags.isolate ? "isolate" : flags.write ? "write" : flags.read ? "read" : undefined;
}

/** The request the run flags describe, without its task (`crew` shares it). */
export function requestFrom(flags: RunValues, mode: RunRequest["mode"]): RunRequest {
  const caps = {
    ...(flags["max-tokens"] === undefined ? {} : { maxTokens: flags["max-tokens"] }),
    ...(flags["max-cost"] === undefined ? {} : { maxCost: flags["max-cost"] }),
    ...(flags["max-steps"] === undefined ? {} : { maxSteps: flags["max-steps"] }),
  };
  const request: RunRequest = {};
  if (mode !== undefined) request.mode = mode;
  const strings = [
    ["worker", "worker"],
    ["model", "model"],
    ["tier", "tier"],
    ["effort", "effort"],
    ["dir", "dir"],
    ["verify", "verify"],
    ["group", "group"],
    ["continue", "continue"],
    ["host", "host"],
  ] as const;
  for (const [flag, field] of strings) {
    const value = flags[flag];
    if (value !== undefined) request[field] = value;
  }
  if (flags.link !== undefined) request.link = flags.link;
  if (flags["allow-links"] === true) request.allowLinks = true;
  if (flags["allow-secrets"] === true) request.allowSecrets = true;
  if (flags.file !== undefined) request.files = flags.file;
  if (flags.web === true) request.web = true;
  if (flags["no-fallback"] === true) request.noFallback = true;
  if (flags.park === true) request.park = true;
  if (flags.fresh === true) request.fresh = true;
  if (flags.audit === true && flags["no-audit"] === true) {
    throw new UsageError("Choose one of --audit and --no-audit");
  }
  if (flags.audit === true) request.audit = true;
  if (flags["no-audit"] === true) request.audit = false;
  if (flags.timeout !== undefined) request.timeoutMs = flags.timeout;
  if (flags.plan !== undefined) request.plan = flags.plan;
  if (flags.step !== undefined) request.step = flags.step;
  if (Object.keys(caps).length > 0) request.caps = caps;
  return request;
}

function checkCaps(flags: RunValues): void {
  for (const name of ["max-tokens", "max-cost", "max-steps"] as const) {
    const value = flags[name];
    if (value !== undefined && !(value > 0)) throw new UsageError(`--${name} must be more than 0`);
  }
}

/** Runs a task. */
export const runCommand: CommandRun<typeof RUN_FLAGS> = async ({ sys, flags, args }) => {
  const mode = modeOf(flags);
  const task = (await readTask(sys, args, flags["task-file"])).trim();
  if (task.length === 0 && flags.plan === undefined) {
    throw new UsageError("No task given", { hint: 'pitroom run "what the worker should do"' });
  }
  checkCaps(flags);
  await checkLinkFlags(sys, flags.link, flags.dir);
  const request: RunRequest = {
    ...requestFrom(flags, mode),
    ...(task === "" ? {} : { task }),
  };
  const engine = createEngine(sys);
  if (flags.bg) {
    const started = await engine.start(request);
    warn(sys, started.warnings);
    const dashboard = await liveViewForBackground(sys);
    const out = flags.json
      ? jsonText({
        id: started.id,
        state: "queued",
        ...(dashboard === undefined ? {} : { dashboard }),
      })
      : `${started.id}\n`;
    sys.out.stdout(out);
    if (!flags.json && dashboard !== undefined) {
      sys.out.stderr(`pitroom: ${liveViewLine(dashboard, started.id)}`);
    }
    // What the caller read of the run so far: its receipt counts it once the run ends.
    await engine.handedOver([{ id: started.id, bytes: bytesOf(out) }], { via: "cli", what: "run" });
    return 0;
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("interrupted"));
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const showProgress = sys.out.color && !flags.json;
  const seen: { type: string }[] = [];
  // The address is said once: early on a terminal, else with the report.
  const live = new LiveViewLater(sys, { early: !flags.json && sys.out.errIsTTY });
  try {
    const final = await engine.run(request, {
      signal: stop.signal,
      // Indexed in the history by its next reader, with the hand-over recorded below: this
      // process ends without opening SQLite.
      indexLater: true,
      onWarning: (w) => warn(sys, [w]),
      onSpawned: () => live.begin(),
      onEvent(ev) {
        if ("run" in ev) live.id = ev.run;
        if (ev.type === "run.queued" || ev.type === "run.parked") live.begin();
        if (ev.type === "worker.tool_call" || ev.type === "worker.denied") seen.push(ev);
        if (!showProgress) return;
        if (ev.type === "worker.tool_call") {
          sys.out.stderr(
            `  · ${safeLine(`${ev.kind} ${ev.target}`, 100)}${
              ev.status === "ok" ? "" : ` (${ev.status})`
            }\n`,
          );
        }
        if (ev.type === "run.queued") sys.out.stderr(`  queued (position ${ev.position})\n`);
        if (ev.type === "run.fallback") {
          sys.out.stderr(`  ${ev.from} failed (${ev.reason}): trying ${ev.to}\n`);
        }
      },
    });
    const dashboard = await live.end();
    const now = sys.clock.now();
    if (flags.json) {
      await printHandedOver(
        sys,
        engine,
        "run",
        [final],
        ([shown]) => whole(jsonText(dashboard === undefined ? shown : { ...shown, dashboard })),
      );
    } else if (final.outcome === "refused") {
      // A refusal is an error line, not a receipt card: the run never started working.
      sys.out.stderr(`pitroom: ${safe(final.message ?? "the run was refused")}\n`);
    } else {
      const denied = deniedCalls(seen);
      await printHandedOver(sys, engine, "run", [final], ([shown]) =>
        whole(
          renderReport(shown!, now, { denied }) +
            (dashboard === undefined ? "" : liveViewLine(dashboard, final.id)),
        ));
    }
    timingMark(sys, "reported");
    return final.exit ?? 1;
  } finally {
    await live.end();
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
};
