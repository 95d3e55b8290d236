/**
 * The host: one process per state dir that executes every background run side by side, so 30
 * runs in flight cost one runtime, not thirty. It holds `host/host.lock`, watches its inbox,
 * takes each run handed to it (with the environment of the command that started it) and runs
 * `executeRun` for it in-process; a stop request stops just that run. Each run still holds its
 * own supervisor lock, so a host killed mid-run leaves its runs to be found `lost` and its slots
 * free. When nothing is left it releases its lock, looks at the inbox once more (a run may have
 * arrived while it was leaving) and takes the lock back if so; otherwise it exits.
 */
import { type HeldSys, holdState } from "../../store/state.ts";
import { writeTextAtomic } from "../../sys/atomic.ts";
import { type HeldLock, tryLock, tryLockSoon } from "../../store/locks.ts";
import { logFailure } from "../../store/log.ts";
import type { Sys } from "../../sys/mod.ts";
import type { Backend } from "../../workers/types.ts";
import { byHandover, dropStop, type HostEntry, listInbox, takeEntry } from "./inbox.ts";
import { executeRun } from "../run/lifecycle.ts";
import { loadSettings } from "../core/load_settings.ts";
import { runHooks } from "../run/hooks.ts";
import { sweepLost } from "./liveness.ts";
import { loadConfig } from "../../store/config.ts";

/** Options of `runHost`. */
export interface HostOptions {
  /** Aborting stops every run and ends the host once they have ended. */
  signal?: AbortSignal;
  /** Looks up a backend (tests hand in a scripted one). Defaults to the registry. */
  backends?: (name: string) => Backend;
  /**
   * Told once about each run still going `afterMs` after the host took it, with the run's own
   * sys (its starter's environment): the CLI starts the live view there, off every run's path.
   */
  longRun?: LongRunHook;
}

/** What the host tells about runs that go on (`HostOptions.longRun`); a failure is logged. */
export interface LongRunHook {
  afterMs: number;
  notify(sys: Sys, run: string): Promise<void> | undefined;
}

/** A wake-up that is not lost when it comes before the wait. */
class Wakeup {
  #pending = false;
  #resolve: (() => void) | null = null;

  wake(): void {
    if (this.#resolve) {
      const resolve = this.#resolve;
      this.#resolve = null;
      resolve();
    } else this.#pending = true;
  }

  wait(): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => (this.#resolve = resolve));
  }
}

/** The HeldSys a hosted run sees: the host's, with the starter's environment and directory. */
function runSys(sys: HeldSys, entry: HostEntry): HeldSys {
  const env = { ...entry.env };
  return {
    ...sys,
    env: { get: (name) => env[name], toObject: () => ({ ...env }) },
    cwd: () => entry.cwd,
  };
}

/** The run's settings as frozen at its creation (older records: the starter's config now). */
async function settingsOf(sys: HeldSys, entry: HostEntry) {
  const frozen = (await sys.state.runs.load(entry.run)).settings;
  if (frozen !== undefined) return frozen;
  const { settings } = await loadSettings(sys, {}, entry.configPath);
  return { maxParallel: settings.maxParallel.value, limits: settings.limits.value };
}

/** The config's notify settings now (a record made before they were frozen). */
async function notifyConfig(configPath: string): Promise<{ on: boolean; command?: string }> {
  const { config } = await loadConfig(configPath);
  return {
    on: config.notify === true,
    ...(config.notifyCommand ? { command: config.notifyCommand } : {}),
  };
}

/**
 * Runs the host until it is idle (or told to stop); resolves with how many runs it executed.
 * Returns at once when another process is the host.
 */
export async function runHost(plain: Sys, options: HostOptions = {}): Promise<number> {
  const sys = holdState(plain);
  const paths = sys.state.paths;
  await Deno.mkdir(paths.host.inbox, { recursive: true, mode: 0o700 });
  let lock: HeldLock | null = await tryLockSoon(paths.host.lock, { clock: sys.clock });
  if (lock === null) return 0;
  const runs = new Map<string, AbortController>();
  const wakeup = new Wakeup();
  const watcher = Deno.watchFs(paths.host.inbox, { recursive: false });
  const watching = (async () => {
    for await (const _ of watcher) wakeup.wake();
  })();
  const stopAll = () => {
    for (const controller of runs.values()) controller.abort(new Error("stopped"));
    wakeup.wake();
  };
  options.signal?.addEventListener("abort", stopAll, { once: true });
  let hosted = 0;

  const start = async (entry: HostEntry, controller: AbortController) => {
    const own = runSys(sys, entry);
    const hook = options.longRun;
    const long = hook && sys.clock.after(hook.afterMs, () => {
      Promise.resolve().then(() => hook.notify(own, entry.run)).catch((error) =>
        logFailure(sys, "host.log", { what: `the long run ${entry.run}'s hook`, error })
      );
    });
    const settings = await settingsOf(own, entry);
    const record = await executeRun(own, entry.run, {
      maxParallel: settings.maxParallel,
      limits: settings.limits,
      stop: controller.signal,
      ...(options.backends ? { backends: options.backends } : {}),
    }).finally(() => long?.cancel());
    const notify = record.settings?.notify ?? await notifyConfig(entry.configPath);
    await (await runHooks()).notifyEnded(own, {
      notify: notify.on,
      ...(notify.command ? { notifyCommand: notify.command } : {}),
    }, record);
  };

  const claim = async () => {
    const inbox = await listInbox(paths);
    const stopping = new Set<string>();
    for (const id of inbox.stops) {
      const running = runs.get(id);
      if (running) running.abort(new Error("stopped"));
      if (inbox.runs.includes(id)) stopping.add(id);
      await dropStop(paths, id);
    }
    if (options.signal?.aborted) return;
    const entries: HostEntry[] = [];
    for (const id of inbox.runs) {
      const entry = await takeEntry(paths, id);
      if (entry !== null && !runs.has(id)) entries.push(entry);
    }
    // In the order they were handed over: the first to arrive reach the slot queue first.
    for (const entry of entries.sort(byHandover)) {
      const id = entry.run;
      const controller = new AbortController();
      if (stopping.has(id)) controller.abort(new Error("stopped"));
      runs.set(id, controller);
      hosted++;
      start(entry, controller).catch((error) =>
        logFailure(sys, "host.log", { what: `run ${id}`, error })
      ).finally(() => {
        runs.delete(id);
        wakeup.wake();
      });
    }
  };

  try {
    await writeTextAtomic(paths.host.pid, String(sys.pid));
    for (;;) {
      // On each wake: runs whose supervisors died elsewhere are marked lost (reads never do).
      await sweepLost(sys).catch((error) =>
        logFailure(sys, "host.log", { what: "sweeping lost runs", error })
      );
      await claim();
      if (runs.size > 0) {
        await wakeup.wait();
        continue;
      }
      lock.release();
      lock = null;
      if (options.signal?.aborted || (await listInbox(paths)).runs.length === 0) break;
      // A run arrived while the host was leaving: host it, unless a new host already does.
      lock = await tryLock(paths.host.lock);
      if (lock === null) break;
      await writeTextAtomic(paths.host.pid, String(sys.pid));
    }
  } finally {
    options.signal?.removeEventListener("abort", stopAll);
    lock?.release();
    watcher.close();
    await watching;
  }
  return hosted;
}
