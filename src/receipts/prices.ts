/**
 * The price table shipped in the binary: list prices in USD per million tokens of the common
 * models of the four workers' providers (Anthropic for claude, OpenAI for codex, Google for
 * gemini; opencode names them `provider/model`). A data table: update it when prices change and
 * move `PRICES_TAKEN` along.
 */

/** USD per million tokens. */
export interface Price {
  input: number;
  output: number;
  /** Cache reads (cached input). */
  cached: number;
}

/** The day the list prices below were taken from the providers' pricing pages. */
export const PRICES_TAKEN = "2026-11-30";

function p(input: number, output: number, cached: number): Price {
  return { input, output, cached };
}

const OPUS_4 = p(5, 25, 0.5);
const SONNET_4 = p(3, 15, 0.3);
const GPT_5 = p(1.25, 10, 0.125);
const GPT_5_2 = p(1.75, 14, 0.175);
const GEMINI_3_PRO = p(2, 12, 0.2);

/**
 * Model id -> list price. Cache writes are priced as input; Haiku 5.5 at its rate for prompts up
 * to 100,000 tokens; Gemini at its rate up to 200,000.
 */
export const MODEL_PRICES: Readonly<Record<string, Price>> = {
  // Anthropic (claude)
  "claude-fable-5-2": p(8, 40, 0.2),
  "claude-fable-5-1": p(10, 50, 0.25),
  "claude-fable-5": p(10, 50, 1),
  "claude-opus-5-5": p(4, 20, 0.2),
  "claude-opus-5": p(5, 25, 0.5),
  "claude-sonnet-5-5": p(2, 10, 0.1),
  "claude-sonnet-5": p(2, 10, 0.2),
  "claude-haiku-5-5": p(0.1, 0.5, 0.01),
  "claude-opus-4-8": OPUS_4,
  "claude-opus-4-7": OPUS_4,
  "claude-opus-4-6": OPUS_4,
  "claude-opus-4-5": OPUS_4,
  "claude-sonnet-4-6": SONNET_4,
  "claude-sonnet-4-5": SONNET_4,
  "claude-sonnet-4": SONNET_4,
  "claude-haiku-4-5": p(1, 5, 0.1),
  "claude-opus-4-1": p(15, 75, 1.5),
  "claude-opus-4": p(15, 75, 1.5),
  // OpenAI (codex)
  "gpt-5.5": p(5, 30, 0.5),
  "gpt-5.5-pro": p(30, 180, 30),
  "gpt-5.4": p(2.5, 15, 0.25),
  "gpt-5.4-pro": p(30, 180, 30),
  "gpt-5.4-mini": p(0.75, 4.5, 0.075),
  "gpt-5.4-nano": p(0.2, 1.25, 0.02),
  "gpt-5.3-codex": GPT_5_2,
  "gpt-5.2": GPT_5_2,
  "gpt-5.2-codex": GPT_5_2,
  "gpt-5.1": GPT_5,
  "gpt-5.1-codex": GPT_5,
  "gpt-5": GPT_5,
  "gpt-5-codex": GPT_5,
  "gpt-5-mini": p(0.25, 2, 0.025),
  "gpt-5-nano": p(0.05, 0.4, 0.005),
  // Google (gemini)
  "gemini-3.5-flash": p(1.5, 9, 0.15),
  "gemini-3.1-pro-preview": GEMINI_3_PRO,
  "gemini-3.1-pro": GEMINI_3_PRO,
  "gemini-3-pro-preview": GEMINI_3_PRO,
  "gemini-3-flash-preview": p(0.5, 3, 0.05),
  "gemini-3.1-flash-lite": p(0.25, 1.5, 0.025),
  "gemini-2.5-pro": p(1.25, 10, 0.125),
  "gemini-2.5-flash": p(0.3, 2.5, 0.03),
  "gemini-2.5-flash-lite": p(0.1, 0.4, 0.01),
};

/** Aliases the CLIs accept, resolved to the model they name. */
const ALIASES: Readonly<Record<string, string>> = {
  sonnet: "claude-sonnet-5-5",
  opus: "claude-opus-5-5",
  haiku: "claude-haiku-5-5",
  fable: "claude-fable-5-2",
};

/** The primaries savings can be measured against (`primary` in the config), by name. */
export const PRIMARY_PRESETS: Readonly<Record<string, string>> = {
  sonnet: "claude-sonnet-5-5",
  opus: "claude-opus-5-5",
  haiku: "claude-haiku-5-5",
  fable: "claude-fable-5-2",
  "gpt-5.5": "gpt-5.5",
  "gpt-5": "gpt-5",
  "gemini-pro": "gemini-3.1-pro-preview",
};

/** The primary when none is configured. */
export const DEFAULT_PRIMARY = "sonnet";

/** opencode's own free models that carry no `-free` in their name. */
const FREE_MODELS = new Set(["opencode/big-pickle"]);

/**
 * True for a model that costs nothing: opencode's free models (`…-free`, `opencode/big-pickle`)
 * and OpenRouter's `…:free` ones.
 */
export function isFreeModel(model: string): boolean {
  const id = model.trim().toLowerCase();
  return FREE_MODELS.has(id) || /-free$/.test(id) || /:free$/.test(id);
}

/**
 * The table key of a model id as the CLIs write it: lower case, without a `provider/` prefix
 * (opencode), a `[1m]` context tag or a date suffix (`-20251001`, `-2026-04-01`); aliases
 * resolved.
 */
export function tableKey(model: string): string {
  let id = model.trim().toLowerCase();
  id = id.slice(id.lastIndexOf("/") + 1);
  id = id.replace(/\[[^\]]*\]$/, "").replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, "");
  return Object.hasOwn(ALIASES, id) ? ALIASES[id]! : id;
}

/** The list price of a model, or undefined when the table does not know it. */
export function listPrice(model: string): Price | undefined {
  const key = tableKey(model);
  return Object.hasOwn(MODEL_PRICES, key) ? MODEL_PRICES[key] : undefined;
}
