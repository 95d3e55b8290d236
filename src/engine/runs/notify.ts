/**
 * Desktop notifications for background runs (`"notify": true`, off by default): a failure always,
 * a success only when it took long enough that the user has moved on (QUICK_MS), and a crew once,
 * when its last run ends. Sent with `notifyCommand` (a shell command that gets PITROOM_NOTIFY_*
 * variables), else `notify-send` on Linux or `osascript` on macOS. A notification that cannot be
 * sent is logged, never a failure of the run.
 */
import type { HeldSys } from "../../store/state.ts";
import { withLock } from "../../store/locks.ts";
import { logFailure } from "../../store/log.ts";
import type { RunRecord } from "../../store/record.ts";
import { join } from "../../sys/path.ts";
import { oneLine } from "../../sys/text.ts";
import { loadGroup } from "./select.ts";
import { isFinal } from "../../store/record.ts";

/** A success faster than this is not worth a notification. */
export const QUICK_MS = 30_000;

/** What the user is told. */
export interface Notice {
  title: string;
  body: string;
  run?: string;
  group?: string;
  /** `ok` when every run it covers succeeded, else `failed`. */
  state: "ok" | "failed";
  runs: number;
  failed: number;
}

/** How notifications are sent (from the config). */
export interface NotifySettings {
  notify: boolean;
  notifyCommand?: string;
}

function took(r: RunRecord): number {
  return (r.endedAt ?? r.createdAt) - (r.startedAt ?? r.createdAt);
}

/** The notice for one finished run without a group, or null when none is due (pure). */
export function runNotice(r: RunRecord): Notice | null {
  const ok = r.state === "done";
  if (ok && took(r) < QUICK_MS) return null;
  const worker = r.attempts.at(-1)?.worker ?? r.chain[0]?.worker ?? "worker";
  return {
    title: `pitroom: ${worker} ${ok ? "finished" : "failed"} (${r.id})`,
    body: oneLine(ok ? r.answer ?? r.task : r.message ?? r.task, 200),
    run: r.id,
    state: ok ? "ok" : "failed",
    runs: 1,
    failed: ok ? 0 : 1,
  };
}

/** The notice for a crew whose runs are all final, or null when none is due (pure). */
export function groupNotice(group: string, runs: readonly RunRecord[]): Notice | null {
  if (runs.length === 0 || !runs.every((r) => isFinal(r.state))) return null;
  const failed = runs.filter((r) => r.state !== "done").length;
  const start = Math.min(...runs.map((r) => r.startedAt ?? r.createdAt));
  const end = Math.max(...runs.map((r) => r.endedAt ?? r.createdAt));
  if (failed === 0 && end - start < QUICK_MS) return null;
  return {
    title: `pitroom: crew ${group} ${failed === 0 ? "finished" : "ended with failures"}`,
    body: `${runs.length - failed} of ${runs.length} runs done` +
      (failed > 0 ? `, ${failed} failed` : ""),
    group,
    state: failed === 0 ? "ok" : "failed",
    runs: runs.length,
    failed,
  };
}

/** The argv that shows `notice` on this system, or null when there is no way. */
export async function notifierArgv(
  sys: HeldSys,
  settings: NotifySettings,
  notice: Notice,
): Promise<{ argv: string[]; env: Record<string, string> } | null> {
  const env: Record<string, string> = {
    PITROOM_NOTIFY_TITLE: notice.title,
    PITROOM_NOTIFY_BODY: notice.body,
    PITROOM_NOTIFY_STATE: notice.state,
    PITROOM_NOTIFY_RUNS: String(notice.runs),
    PITROOM_NOTIFY_FAILED: String(notice.failed),
    ...(notice.run ? { PITROOM_NOTIFY_RUN: notice.run } : {}),
    ...(notice.group ? { PITROOM_NOTIFY_GROUP: notice.group } : {}),
  };
  if (settings.notifyCommand) return { argv: ["sh", "-c", settings.notifyCommand], env };
  const has = async (name: string) =>
    (await sys.runner.run(["sh", "-c", `command -v ${name}`]).catch(() => ({ code: 1 }))).code ===
      0;
  if (Deno.build.os === "darwin" && await has("osascript")) {
    const q = (s: string) => `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
    return {
      argv: [
        "osascript",
        "-e",
        `display notification ${q(notice.body)} with title ${q(notice.title)}`,
      ],
      env,
    };
  }
  if (await has("notify-send")) {
    return { argv: ["notify-send", "--app-name=pitroom", notice.title, notice.body], env };
  }
  return null;
}

async function send(sys: HeldSys, settings: NotifySettings, notice: Notice): Promise<void> {
  const how = await notifierArgv(sys, settings, notice);
  if (how === null) return;
  // The user's environment (DISPLAY, the session bus, HOME) plus the notice's variables.
  const done = await sys.runner.run(how.argv, { env: { ...sys.env.toObject(), ...how.env } });
  if (done.code !== 0) {
    throw new Error(`${how.argv[0]} exited with ${done.code}: ${oneLine(done.stderr, 200)}`);
  }
}

/**
 * Called by the host when a background run has ended: sends what is due. A crew's notice goes
 * out once: the last run to end sends it, under a lock, and marks the group as told.
 */
export async function notifyEnded(
  sys: HeldSys,
  settings: NotifySettings,
  record: RunRecord,
): Promise<void> {
  if (!settings.notify) return;
  try {
    if (record.group === undefined) {
      const notice = runNotice(record);
      if (notice) await send(sys, settings, notice);
      return;
    }
    const group = record.group;
    const dir = sys.state.paths.notified;
    await Deno.mkdir(dir, { recursive: true });
    await withLock(join(dir, "notify.lock"), async () => {
      const runs = await loadGroup(sys, group, null);
      const notice = groupNotice(group, runs);
      if (notice === null) return;
      // Told once per set of runs: a group that later gets more runs is told again at their end.
      const key = runs.map((r) => r.id).sort().join(",");
      const marker = join(dir, encodeURIComponent(group));
      const told = await Deno.readTextFile(marker).catch(() => "");
      if (told === key) return;
      await Deno.writeTextFile(marker, key);
      await send(sys, settings, notice);
    });
  } catch (error) {
    await logFailure(sys, "runs.log", { what: `notifying the end of run ${record.id}`, error });
  }
}
