/** `pitroom host`, declared beside its code (host.ts). */
import { defineCommand } from "./command.ts";

export const HOST = defineCommand({
  name: "host",
  summary: "print a container host's Kubernetes manifest (manifest NAME)",
  description: [
    "`pitroom host manifest NAME` prints the Pod manifest a container host of the config runs",
    "a worker with (`podman kube play` runs it here, docker its container with `docker run`;",
    "the same spec runs as a Job on a cluster).",
    "`pitroom host serve` is what Pitroom starts on an SSH host to run a worker there: it",
    "speaks Pitroom's own protocol on stdin and stdout and is not for people.",
  ].join("\n"),
  flags: {},
  args: [
    {
      name: "ACTION",
      describe: "manifest (or serve, started by Pitroom over SSH)",
      required: true,
    },
    { name: "NAME", describe: "the host's name in the config" },
  ],
  examples: ["pitroom host manifest pod"],
  run: () => import("./host.ts").then((m) => m.hostCommand),
});
