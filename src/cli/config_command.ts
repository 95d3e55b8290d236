/** `pitroom config`, declared beside its code (config.ts). */
import { defineCommand, JSON_FLAG } from "./command.ts";

export const CONFIG_FLAGS = {
  json: JSON_FLAG,
};

export const CONFIG = defineCommand({
  name: "config",
  summary: "show every effective setting and where it comes from",
  description:
    "Where each setting comes from: a flag, the environment, the config file or the default.",
  flags: CONFIG_FLAGS,
  args: [],
  examples: ["pitroom config", "pitroom config --json"],
  run: () => import("./config.ts").then((m) => m.configCommand),
});
