/**
 * The command list: each command's name, in the order the completions list them (help groups
 * them: COMMAND_GROUPS in help.ts), and where its declaration is. A declaration loads only when
 * its command is used, so `pitroom status` loads status's declaration and code and no other
 * command's; commands.ts loads them all for the overview, the completions and the docs test.
 */
import type { CommandDef } from "./command.ts";

const LIST = new Map<string, () => Promise<CommandDef>>([
  ["run", () => import("./run_command.ts").then((m) => m.RUN)],
  ["apply", () => import("./apply_command.ts").then((m) => m.APPLY)],
  ["discard", () => import("./apply_command.ts").then((m) => m.DISCARD)],
  ["crew", () => import("./crew_command.ts").then((m) => m.CREW)],
  ["audit", () => import("./audit_command.ts").then((m) => m.AUDIT)],
  ["eval", () => import("./eval_command.ts").then((m) => m.EVAL)],
  ["watch", () => import("./watch_command.ts").then((m) => m.WATCH)],
  ["status", () => import("./status_command.ts").then((m) => m.STATUS)],
  ["ls", () => import("./status_command.ts").then((m) => m.LS)],
  ["show", () => import("./show_command.ts").then((m) => m.SHOW)],
  ["wait", () => import("./wait_command.ts").then((m) => m.WAIT)],
  ["stop", () => import("./control_command.ts").then((m) => m.STOP)],
  ["revert", () => import("./control_command.ts").then((m) => m.REVERT)],
  ["models", () => import("./models_command.ts").then((m) => m.MODELS)],
  ["cooldown", () => import("./cooldown_command.ts").then((m) => m.COOLDOWN)],
  ["history", () => import("./history_command.ts").then((m) => m.HISTORY)],
  ["savings", () => import("./savings_command.ts").then((m) => m.SAVINGS)],
  ["dash", () => import("./dash_command.ts").then((m) => m.DASH)],
  ["clean", () => import("./clean_command.ts").then((m) => m.CLEAN)],
  ["doctor", () => import("./doctor_command.ts").then((m) => m.DOCTOR)],
  ["self-check", () => import("./self_check_command.ts").then((m) => m.SELF_CHECK)],
  ["init", () => import("./init_command.ts").then((m) => m.INIT)],
  ["config", () => import("./config_command.ts").then((m) => m.CONFIG)],
  ["mcp", () => import("./mcp_command.ts").then((m) => m.MCP)],
  ["statusline", () => import("./statusline_command.ts").then((m) => m.STATUSLINE)],
  ["hook-card", () => import("./hook_card_command.ts").then((m) => m.HOOK_CARD)],
  ["install", () => import("./install_command.ts").then((m) => m.INSTALL)],
  ["uninstall", () => import("./install_command.ts").then((m) => m.UNINSTALL)],
  ["review", () => import("./review_command.ts").then((m) => m.REVIEW)],
  ["plan", () => import("./plan_command.ts").then((m) => m.PLAN)],
  ["host", () => import("./host_command.ts").then((m) => m.HOST)],
  ["help", () => import("./help_command.ts").then((m) => m.HELP)],
  ["completions", () => import("./completions_command.ts").then((m) => m.COMPLETIONS)],
  ["__complete", () => import("./completions_command.ts").then((m) => m.COMPLETE)],
  ["__supervise", () => import("./supervise_command.ts").then((m) => m.SUPERVISE)],
]);

/** Every command's name, hidden ones too, in help's order. */
export const COMMAND_NAMES: readonly string[] = [...LIST.keys()];

/** Loads every command's declaration, in help's order. */
export function loadCommands(): Promise<CommandDef[]> {
  return Promise.all([...LIST.values()].map((load) => load()));
}

/** Loads the declaration of the command `name`; undefined when there is no such command. */
export function loadCommand(name: string): Promise<CommandDef> | undefined {
  return LIST.get(name)?.();
}
