/** `pitroom __supervise`, declared beside its code (supervise.ts). */
import { defineCommand } from "./command.ts";

export const SUPERVISE = defineCommand({
  name: "__supervise",
  summary: "host the state dir's background runs (internal)",
  flags: {},
  args: [],
  examples: [],
  hidden: true,
  run: () => import("./supervise.ts").then((m) => m.superviseCommand),
});
