/** `pitroom statusline`, declared beside its code (statusline.ts). */
import { defineCommand, flag } from "./command.ts";

export const STATUSLINE_FLAGS = {
  then: flag.string({ value: "CMD", describe: "your own status-line command, run first" }),
};

export const STATUSLINE = defineCommand({
  name: "statusline",
  summary:
    "print a Claude Code status line: your own first, then runs going and this week's savings",
  description: [
    "Reads the JSON Claude Code passes on stdin. With --then, runs your own status-line command",
    "first (same stdin, 1 s at most) and prints its output, then Pitroom's part.",
  ].join("\n"),
  flags: STATUSLINE_FLAGS,
  args: [],
  examples: ["pitroom statusline", "pitroom statusline --then '~/.claude/statusline.sh'"],
  run: () => import("./statusline.ts").then((m) => m.statuslineCommand),
});
