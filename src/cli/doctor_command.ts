/** `pitroom doctor`, declared beside its code (doctor.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const DOCTOR_FLAGS = {
  probe: flag.boolean({ describe: "make one tiny real run per configured worker" }),
  json: JSON_FLAG,
};

export const DOCTOR = defineCommand({
  name: "doctor",
  summary: "check each worker: installed, version, config, fallback",
  description: [
    "Checks the setup in sections (setup, the workers and where each is in use, the worker",
    "chain and tiers, the integrations: MCP registrations, skills, and a Claude Code plugin that",
    "doubles them, the use so far) and ends with the exact next commands. --probe makes one",
    "tiny real run per configured worker.",
  ].join("\n"),
  flags: DOCTOR_FLAGS,
  args: [],
  examples: ["pitroom doctor", "pitroom doctor --probe --json"],
  run: () => import("./doctor.ts").then((m) => m.doctorCommand),
});
