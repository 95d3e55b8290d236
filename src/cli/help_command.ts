/** `pitroom help`, declared beside its code (help_topics.ts). */
import { defineCommand } from "./command.ts";

export const HELP = defineCommand({
  name: "help",
  summary: "show help for pitroom or a command",
  flags: {},
  args: [{ name: "COMMAND", describe: "the command to explain, or `events`" }],
  examples: ["pitroom help run", "pitroom help events"],
  run: () => import("./help_topics.ts").then((m) => m.helpCommand),
});
