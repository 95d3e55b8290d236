/** `pitroom savings`, declared beside its code (savings.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const SAVINGS_FLAGS = {
  since: flag.string({ value: "7d|30d|all", default: "30d", describe: "the period" }),
  models: flag.boolean({ describe: "one row per worker and model" }),
  card: flag.string({ value: "FILE.svg", describe: "write a shareable SVG card" }),
  badge: flag.boolean({ describe: "print a badge (markdown and SVG)" }),
  json: JSON_FLAG,
};

export const SAVINGS = defineCommand({
  name: "savings",
  summary: "what the workers saved against your primary model (estimates)",
  flags: SAVINGS_FLAGS,
  args: [],
  examples: [
    "pitroom savings",
    "pitroom savings --since 7d --models",
    "pitroom savings --since all --card savings.svg",
    "pitroom savings --badge",
  ],
  run: () => import("./savings.ts").then((m) => m.savingsCommand),
});
