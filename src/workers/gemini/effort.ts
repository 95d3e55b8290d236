/**
 * `--effort` for gemini 0.61.0. The CLI has no effort flag: it takes a thinking setting only from
 * a model-config alias in the user settings file (`$GEMINI_CLI_HOME/.gemini/settings.json`; the
 * system files that could carry one must be root-owned, and workspace settings live in the repo).
 * So a run with an effort gets a private GEMINI_CLI_HOME in its attempt's private dir holding:
 * - `.gemini/settings.json`: the user's own settings plus a generated alias
 *   `<model>-pitroom-<effort>` that extends the model's built-in alias and sets
 *   `thinkingConfig.thinkingLevel` (Gemini 3) or `thinkingConfig.thinkingBudget` (Gemini 2.5);
 *   the alias keeps the model's name first, so the CLI's family checks (`gemini-3...`) still hold;
 *   plus `customOverrides` on the family bases (`chat-base-3`, `chat-base-2.5`), because the CLI
 *   may swap the model of a request and then resolves that model's own config;
 * - owner-only copies of the files gemini keeps its login, key and memory in (`oauth_creds.json`,
 *   `google_accounts.json`, `installation_id`, `.env`, `GEMINI.md`, and `~/.env`).
 * The run is launched with `-m <alias>`; gemini resolves it to the real model for the request.
 * Reading the user's files is the one effect: it goes through an injected `ReadUserFile`.
 */
import { join } from "../../sys/path.ts";
import { UsageError } from "../../sys/errors.ts";
import type { LaunchFile, RunSpec } from "../types.ts";
import {
  GEMINI_MODELS,
  THINKING_BUDGETS,
  THINKING_LEVELS,
  type ThinkingKind,
  thinkingKind,
} from "./models.ts";
import { own } from "../../sys/own.ts";

/** Reads a file of the user's gemini home as text; `null` when it does not exist. */
export type ReadUserFile = (path: string) => string | null;

/** Files of `~/.gemini` copied into a private home: login, account, key and user memory. */
export const COPIED_GEMINI_FILES: readonly string[] = [
  "oauth_creds.json",
  "google_accounts.json",
  "installation_id",
  ".env",
  "GEMINI.md",
];

/** What an effort adds to a launch. */
export interface EffortHome {
  /** The alias passed with `-m`. */
  model: string;
  env: Record<string, string>;
  files: LaunchFile[];
}

/** The alias name of `model` at `effort`. */
export function effortAlias(model: string, effort: string): string {
  return `${model}-pitroom-${effort}`;
}

/** The `thinkingConfig` an effort sets for `model`; throws a UsageError where it has none. */
export function thinkingConfig(model: string, effort: string): Record<string, string | number> {
  const kind = thinkingKind(model);
  if (kind === "none") {
    throw new UsageError(`Model "${model}" of gemini has no effort levels`, {
      hint: "leave out --effort, or pick a model: pitroom models gemini",
    });
  }
  const table: Readonly<Record<string, string | number>> = kind === "level"
    ? THINKING_LEVELS
    : THINKING_BUDGETS;
  const value = own(table, effort);
  if (value === undefined) {
    const levels = Object.keys(table);
    throw new UsageError(
      `Model "${model}" of gemini does not accept effort "${effort}": it accepts ${
        levels.join(", ")
      }`,
      { hint: `use --effort ${levels.at(-1)}` },
    );
  }
  return kind === "level" ? { thinkingLevel: value } : { thinkingBudget: value };
}

/** Removes `//` and `/* *\/` comments outside strings (gemini's settings files allow them). */
export function stripJsonComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (char === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += char;
      i++;
    }
  }
  return out;
}

/** The model ids gemini 0.61.0 has a built-in model-config alias for (its chat models). */
const BUILTIN_ALIASES: ReadonlySet<string> = new Set(
  GEMINI_MODELS.filter((m) => m.efforts.length > 0).map((m) => m.id),
);

/** The built-in alias each thinking kind's chat models extend. */
const FAMILY_BASE: Readonly<Record<ThinkingKind, string>> = {
  level: "chat-base-3",
  budget: "chat-base-2.5",
  none: "chat-base",
};

/** Overrides that set the effort on every chat model of each family that has it. */
function familyOverrides(effort: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const level = own(THINKING_LEVELS, effort);
  if (level !== undefined) {
    out.push({
      match: { model: FAMILY_BASE.level },
      modelConfig: { generateContentConfig: { thinkingConfig: { thinkingLevel: level } } },
    });
  }
  const budget = own(THINKING_BUDGETS, effort);
  if (budget !== undefined) {
    out.push({
      match: { model: FAMILY_BASE.budget },
      modelConfig: { generateContentConfig: { thinkingConfig: { thinkingBudget: budget } } },
    });
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function objectAt(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = parent[key];
  if (isObject(value)) return value;
  const fresh: Record<string, unknown> = {};
  parent[key] = fresh;
  return fresh;
}

function readSettings(path: string, read: ReadUserFile): Record<string, unknown> {
  const text = read(path);
  if (text === null || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(stripJsonComments(text));
  } catch (cause) {
    if (!(cause instanceof SyntaxError)) throw cause;
    throw new UsageError(`Cannot read gemini settings "${path}": ${cause.message}`, {
      cause,
      hint: "fix the file, or run again without --effort",
    });
  }
  if (!isObject(value)) {
    throw new UsageError(`Cannot read gemini settings "${path}": not a JSON object`, {
      hint: "fix the file, or run again without --effort",
    });
  }
  return value;
}

/** The model a run without `-m` uses: `GEMINI_MODEL`, else the settings' `model.name`. */
function configuredModel(env: Record<string, string>, settings: Record<string, unknown>) {
  if (env.GEMINI_MODEL) return env.GEMINI_MODEL;
  const name = isObject(settings.model) ? settings.model.name : undefined;
  return typeof name === "string" && name !== "" ? name : undefined;
}

/** Describes the private gemini home that carries `spec.effort` (reads the user's files). */
export function effortHome(spec: RunSpec, effort: string, read: ReadUserFile): EffortHome {
  if (spec.sessionId !== undefined) {
    throw new UsageError("Gemini cannot continue a session with an effort level", {
      hint: "run the follow-up again without --effort",
    });
  }
  const userHome = spec.baseEnv.GEMINI_CLI_HOME || spec.baseEnv.HOME || "";
  const userDir = join(userHome, ".gemini");
  const settings = userHome === "" ? {} : readSettings(join(userDir, "settings.json"), read);
  const model = spec.model ?? configuredModel(spec.baseEnv, settings);
  if (model === undefined) {
    throw new UsageError(`Effort "${effort}" needs a gemini model: the default "auto" has none`, {
      hint: "name one, e.g. -m gemini-2.5-pro (levels per model: pitroom models gemini)",
    });
  }
  const alias = effortAlias(model, effort);
  const thinking = thinkingConfig(model, effort);
  const configs = objectAt(settings, "modelConfigs");
  objectAt(configs, "customAliases")[alias] = {
    extends: BUILTIN_ALIASES.has(model) ? model : FAMILY_BASE[thinkingKind(model)],
    modelConfig: { model, generateContentConfig: { thinkingConfig: thinking } },
  };
  // The CLI may swap the model per request (gemini-3-pro-preview -> gemini-3.1-pro-preview,
  // flash promotions, no preview access -> gemini-2.5-pro) and then resolves the new model's own
  // config; overrides on the family bases carry the effort into whichever chat model it picks.
  const overrides = Array.isArray(configs.customOverrides) ? configs.customOverrides : [];
  configs.customOverrides = [...overrides, ...familyOverrides(effort)];
  const home = join(spec.privateDir, "gemini-home");
  const files: LaunchFile[] = [{
    path: join(home, ".gemini", "settings.json"),
    content: JSON.stringify(settings, null, 2) + "\n",
  }];
  const copies: [string, string][] = [
    ...COPIED_GEMINI_FILES.map((name): [string, string] => [
      join(userDir, name),
      join(home, ".gemini", name),
    ]),
    [join(userHome, ".env"), join(home, ".env")],
  ];
  for (const [from, to] of userHome === "" ? [] : copies) {
    const content = read(from);
    if (content !== null) files.push({ path: to, content, mode: 0o600 });
  }
  return { model: alias, env: { GEMINI_CLI_HOME: home }, files };
}

/** Reads a user file for real (the effect `effortHome` is given in production). */
export function readUserFile(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) {
      return null;
    }
    throw error;
  }
}
