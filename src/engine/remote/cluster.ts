import type { Launcher } from "../run/launcher.ts";
import type { ContainerHost } from "../core/hosts.ts";
import type { ContainerCopy } from "./container.ts";

export function clusterLauncher(_host: ContainerHost, _copy: ContainerCopy): Launcher {
  throw new Error("todo");
}
