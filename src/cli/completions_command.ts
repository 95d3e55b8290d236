/** `pitroom completions` and `pitroom __complete`, declared beside their code (completions.ts). */
import { defineCommand } from "./command.ts";

export const COMPLETIONS = defineCommand({
  name: "completions",
  summary: "print a shell completion script (bash, zsh or fish)",
  description: [
    "Commands, flags, worker names and tiers come from the command table; run ids and groups",
    "are read from the state dir each time you press Tab.",
  ].join("\n"),
  flags: {},
  args: [{ name: "SHELL", describe: "bash, zsh or fish", required: true }],
  examples: [
    "source <(pitroom completions bash)",
    "pitroom completions zsh > ~/.zfunc/_pitroom",
    "pitroom completions fish > ~/.config/fish/completions/pitroom.fish",
  ],
  run: () => import("./completions.ts").then((m) => m.completionsCommand),
});

export const COMPLETE = defineCommand({
  name: "__complete",
  summary: "print run ids or groups for the shell completions (internal)",
  flags: {},
  args: [{ name: "KIND", describe: "runs or groups", required: true }],
  examples: [],
  hidden: true,
  run: () => import("./completions.ts").then((m) => m.completeCommand),
});
