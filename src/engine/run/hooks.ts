/**
 * What the rooms above a run (answer, review, audit; the host's notifications) do at its steps,
 * as hooks: the engine's door registers a loader of them (src/engine/features.ts), loaded when
 * a run first needs them, so nothing in run/ or host/ imports them. Without a registration a run is a plain run: no cache, no checks, nothing
 * follows it.
 */
import type { HeldSys } from "../../store/state.ts";
import type { RunRecord } from "../../store/record.ts";
import type { Final } from "../core/final.ts";
import type { Workspace } from "../tree/workspace.ts";
import type { Launcher } from "./launcher.ts";
import { RefusedError } from "../../sys/errors.ts";

/** The hooks of a run's steps. */
export interface RunHooks {
  /** Before the worker: an earlier answer that stands for this run (the answer cache), or null. */
  cachedAnswer(sys: HeldSys, record: RunRecord, workspace: Workspace): Promise<Final | null>;
  /** After the chain, in the tree the worker worked in: the answer's checks (notes on `record`). */
  checkAnswer(sys: HeldSys, record: RunRecord, workspace: Workspace, final: Final): Promise<void>;
  /** The final record, before it is written: a review's or an audit's verdict read from its answer. */
  concludeAnswer(record: RunRecord): void;
  /** After the final record is written: a review's verdict copied onto the reviewed run. */
  recordReview(sys: HeldSys, record: RunRecord): Promise<void>;
  /** After the final record is written: a held-up answer remembered for the next question. */
  rememberAnswer(sys: HeldSys, record: RunRecord): Promise<void>;
  /**
   * Once the run is final and its slot is free: what follows it (a sampled audit, a correction
   * round), executed by `inline` when given, else by the host.
   */
  afterRun(
    sys: HeldSys,
    done: RunRecord,
    options: { inline?: (id: string) => Promise<unknown> },
  ): Promise<void>;
  /** A run found lost (its supervisor died): an audit of it ends on the audited run, as failed. */
  afterLost(sys: HeldSys, lost: RunRecord): Promise<void>;
  /** Where a run with a host (`-H`) runs its workers (engine/remote/). */
  launcherFor(sys: HeldSys, record: RunRecord, workspace: Workspace | null): Promise<Launcher>;
  /** A background run ended in the host: the desktop notification the config asks for. */
  notifyEnded(
    sys: HeldSys,
    settings: { notify: boolean; notifyCommand?: string },
    record: RunRecord,
  ): Promise<void>;
}

const PLAIN: RunHooks = {
  cachedAnswer: () => Promise.resolve(null),
  checkAnswer: () => Promise.resolve(),
  concludeAnswer: () => {},
  recordReview: () => Promise.resolve(),
  rememberAnswer: () => Promise.resolve(),
  afterRun: () => Promise.resolve(),
  afterLost: () => Promise.resolve(),
  notifyEnded: () => Promise.resolve(),
  launcherFor: (_sys, record) =>
    Promise.reject(new RefusedError("no_hosts", `Run on host "${record.host}": no hosts here`)),
};

let registered: RunHooks | (() => Promise<RunHooks>) = PLAIN;
let loading: Promise<RunHooks> | undefined;

/**
 * Registers the features' hooks (the door does, once), or how to load them: the door hands a
 * loader, so a command that executes no run (status, ls) never loads the features.
 */
export function registerRunHooks(hooks: RunHooks | (() => Promise<RunHooks>)): void {
  registered = hooks;
  loading = undefined;
}

/** The hooks every run's steps call (loaded the first time they are asked for). */
export async function runHooks(): Promise<RunHooks> {
  if (typeof registered !== "function") return registered;
  return await (loading ??= registered());
}
