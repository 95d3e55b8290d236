/**
 * Runs on other machines: the config's hosts (hosts.ts) and the launcher a run with a host uses
 * (an SSH host: ssh_launcher.ts; a container: container.ts, its engine's commands engines.ts).
 * Only isolate runs go to a host: the engine makes the private copy here as for any isolate run
 * and takes its snapshot and patch here after the worker, so the record, the events, the receipt,
 * the fallback, the caps and the answer's checks are the same whichever launcher ran the worker.
 */
import type { HeldSys } from "../../store/state.ts";
import type { RunRecord } from "../../store/record.ts";
import { RefusedError } from "../../sys/errors.ts";
import { join } from "../../sys/path.ts";
import { repoKey } from "../../vcs/repo.ts";
import type { Workspace } from "../tree/workspace.ts";
import type { Launcher } from "../run/launcher.ts";
import { hostConfig } from "../core/hosts.ts";
import { sshLauncher } from "./ssh_launcher.ts";
import { containerLauncher } from "./container.ts";
import { engineCall, engineOf } from "./engines.ts";
import { podName } from "./manifest.ts";

export { type HostConfig, hostConfig } from "../core/hosts.ts";

/** The launcher of a run with a host (its host as the config described it when it was made). */
export async function launcherFor(
  _sys: HeldSys,
  record: RunRecord,
  workspace: Workspace | null,
): Promise<Launcher> {
  const name = record.host!;
  const host = hostConfig({ [name]: record.settings?.host }, name);
  if (record.isolation === undefined || workspace === null || record.repoRoot === undefined) {
    throw new RefusedError(
      "host_isolate_only",
      `Run on host "${name}": only isolate runs go to a host`,
    );
  }
  const root = workspace.work.root;
  const exclude = await Deno.readTextFile(join(root, ".git", "info", "exclude")).catch(() => "");
  let attempt = 0;
  const before = workspace.before;
  // A new run's copy was just made at `before`; a follow-up's holds the work of the run it
  // follows, and a later attempt's what the attempts before did: their state is read as it stands.
  const fresh = record.continues === undefined;
  const stateAt = async (n: number) =>
    n === 1 && fresh ? before : {
      ...before,
      tree: (await workspace.work.snapshot({ base: before, readHead: false })).tree,
    };
  const copy = {
    root,
    tree: workspace.before.tree,
    head: workspace.before.head,
    objectFormat: workspace.before.tree.length === 64 ? "sha256" as const : "sha1" as const,
    exclude,
    repo: await repoKey(record.repoRoot),
    sandbox: record.settings?.sandbox ?? null,
    allowLinks: record.allowLinks === true,
    attempt: () => ++attempt,
    stateAt,
  };
  if (host.kind === "ssh") return sshLauncher(host, copy);
  const boxed = { ...copy, before };
  if (host.engine === "kubernetes") {
    return (await import("./cluster.ts")).clusterLauncher(host, boxed);
  }
  return containerLauncher(host, boxed);
}

/**
 * What a lost run left on its host, removed by the sweep that marked it lost: a podman host's pods
 * of the run (found by name), a docker host's containers (found by their `pitroom.run` label),
 * whose supervisor was killed before its own teardown (the container would run on, its worker
 * with it). An SSH host removes its folder itself when the channel closes; a cluster's Job ends
 * at its deadline.
 */
export async function afterLost(sys: HeldSys, record: RunRecord): Promise<void> {
  const name = record.host;
  if (name === undefined || record.settings?.host === undefined) return;
  let host;
  try {
    host = hostConfig({ [name]: record.settings.host }, name);
  } catch {
    return;
  }
  if (host.kind !== "container" || host.engine === "kubernetes") return;
  const engine = engineOf(host);
  const list = engine.listRun(record.id);
  if (list !== null) {
    const listed = await engineCall(sys, host, list).catch(() => null);
    const ids = listed?.code === 0 ? listed.stdout.split("\n").filter((l) => l.trim() !== "") : [];
    if (listed?.code === 0) {
      if (ids.length > 0) await engineCall(sys, host, engine.removeListed(ids)).catch(() => null);
      return;
    }
  }
  // An attempt's pod is named by its number, from 1 (launcherFor's counter).
  for (let attempt = 1; attempt <= Math.max(1, record.attempts.length); attempt++) {
    const pod = podName(record.id, attempt);
    await engineCall(sys, host, engine.remove({ pod, worker: `${pod}-worker` }))
      .catch(() => undefined);
  }
}
