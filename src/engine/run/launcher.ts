/**
 * The launcher seam: how one attempt's worker is started, streamed, stopped and ended. The local
 * launcher describes the launch through the backend (with this machine's environment and guard),
 * does the CLI's first start, wraps it in this machine's sandbox and runs it through the process
 * shell (process.ts). A remote launcher (engine/remote/) does the same on another host and hands
 * back the same lines and end. The attempt (attempt.ts) parses the lines, keeps the record and
 * classifies the end without knowing which launcher ran it.
 */
import type { SandboxSetting } from "../../confine/sandbox/mod.ts";
import type { HeldSys } from "../../store/state.ts";
import type { Hidden } from "../../store/record.ts";
import type { WorkerEvent } from "../../events/mod.ts";
import type { Backend, LineTime, Mode, ProcessEnd, WorkerName } from "../../workers/types.ts";
import { workerEnv } from "../../confine/env.ts";
import { sandboxAttempt } from "../../confine/sandboxing.ts";
import { timingMark } from "../../sys/timing.ts";
import { ensureFirstStart } from "./first_start.ts";
import { runProcess, type ShellOptions } from "./process.ts";
import { startAlone, type StartGate } from "./start_alone.ts";

/** What a launcher needs to start one attempt's worker. */
export interface LaunchJob {
  backend: Backend;
  runId: string;
  mode: Mode;
  prompt: string;
  /** Where the worker works (the repo, or the isolated copy). */
  cwd: string;
  /** The attempt's private folder (homes, config, profiles). */
  privateDir: string;
  model?: string;
  effort?: string;
  web: boolean;
  sessionId?: string;
  /** An isolate run: its `--link` folders, and whether links leading out are allowed. */
  isolation?: { links: readonly string[]; allowLinks: boolean };
  /** The tree's secret-looking files (absolute) the sandbox hides from the worker. */
  secrets?: readonly string[];
  /** The run's sandbox setting (as frozen when it was created). */
  sandbox: SandboxSetting;
}

/** How a launched worker ended, and how it ran. */
export interface Launched {
  end: ProcessEnd;
  /** The sandbox the worker ran in (`none` without one). */
  sandbox: string;
  /** What the report should say about how the worker ran. */
  notes: string[];
  hidden?: Hidden;
  /** The folders the sandbox let the worker write (real paths, of this machine); null: none. */
  writable: string[] | null;
}

/**
 * What the attempt hands a launcher: the process shell's options (each stdout line to
 * `onStdoutLine`, which parses it), and for a launch with a talk (an ACP agent), which reads the
 * lines itself: each line to `onStreamLine` (kept, not parsed) and what the talk heard in it to
 * `onHeard`.
 */
export interface LaunchShell extends ShellOptions {
  onStreamLine(line: string): void;
  onHeard(events: WorkerEvent[]): void;
  /** Before the spawn: the folders the sandbox lets the worker write (null: all). Awaited. */
  beforeSpawn?(writable: readonly string[] | null): Promise<void>;
}

/** Starts a worker and follows it to its end; lines and the spawn come through `shell`. */
export interface Launcher {
  run(sys: HeldSys, job: LaunchJob, shell: LaunchShell): Promise<Launched>;
}

/** Today's behaviour: the worker runs here, in this machine's sandbox. */
export const localLauncher: Launcher = {
  async run(sys, job, shell) {
    // The CLI whose login and credentials the worker keeps (an ACP worker's may be none).
    const cli = job.backend.cli === undefined ? job.backend.name as WorkerName : job.backend.cli;
    const { baseEnv, pathPrefix } = await workerEnv(sys, {
      worker: cli,
      runId: job.runId,
      ...(job.backend.keepEnv === undefined ? {} : { keep: job.backend.keepEnv }),
    });
    const described = job.backend.launch({
      mode: job.mode,
      prompt: job.prompt,
      cwd: job.cwd,
      privateDir: job.privateDir,
      web: job.web,
      baseEnv,
      pathPrefix,
      ...(job.model === undefined ? {} : { model: job.model }),
      ...(job.effort === undefined ? {} : { effort: job.effort }),
      ...(job.sessionId === undefined ? {} : { sessionId: job.sessionId }),
    });
    await ensureFirstStart(sys, described);
    const { launch, use, notes, hidden, writable } = await sandboxAttempt(sys, described, {
      mode: job.mode,
      privateDir: job.privateDir,
      worker: cli,
      setting: job.sandbox,
      ...(job.secrets === undefined ? {} : { secrets: job.secrets }),
      ...(job.isolation === undefined ? {} : { isolation: job.isolation }),
    });
    timingMark(sys, "sandboxed");
    await shell.beforeSpawn?.(writable ?? null);
    let gate: StartGate | null = null;
    let end: ProcessEnd;
    try {
      gate = await startAlone(sys, described.startAlone);
      const talk = described.talk;
      end = await runProcess(sys, launch, {
        ...shell,
        onStdoutLine(line, at) {
          gate?.release();
          if (talk === undefined) shell.onStdoutLine(line, at);
          else shell.onStreamLine(line);
        },
        ...(talk === undefined ? {} : {
          talk: {
            open: () => talk.open(),
            cancel: () => talk.cancel(),
            hear(line: string, at: LineTime) {
              const heard = talk.hear(line, at);
              shell.onHeard(heard.events);
              return heard;
            },
          },
        }),
      });
    } finally {
      gate?.release();
    }
    return {
      end,
      sandbox: use.kind,
      notes,
      writable: writable ?? null,
      ...(hidden === undefined ? {} : { hidden }),
    };
  },
};
