/** Placeholder, replaced below. */
import type { Launcher } from "../run/launcher.ts";
import type { ContainerHost } from "../core/hosts.ts";
import type { CopyState } from "./ssh_launcher.ts";

export function containerLauncher(_host: ContainerHost, _copy: CopyState): Launcher {
  throw new Error("containers: not yet");
}
