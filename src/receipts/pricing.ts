/**
 * What prices a receipt uses, from the config (pure): `workerPrices` (and the older `costs`,
 * read as an alias), the `primary` the savings are measured against (a preset, any model of the
 * price table, or `custom` with `price`), and `PITROOM_PRIMARY` over the config's primary.
 * Bad values are warnings and fall back.
 */
import type { PriceSettings } from "../store/record.ts";
import { DEFAULT_PRIMARY, listPrice, type Price, PRIMARY_PRESETS } from "./prices.ts";

/** A price as configured: USD per million tokens, each part optional. */
export interface PriceInput {
  input?: number;
  output?: number;
  cached?: number;
}

/** Where a pricing setting comes from. */
export type PricingSource = "env" | "file" | "default";

/** The prices receipts use. */
export interface Pricing {
  /** Model id -> configured price (`costs` merged under `workerPrices`). */
  workerPrices: Record<string, PriceInput>;
  workerPricesSource: PricingSource;
  /** The primary's name: a preset (`sonnet`), a model of the table, or `custom`. */
  primary: string;
  primarySource: PricingSource;
  /** The custom primary price (`price`), when configured. */
  price: PriceInput | null;
  /** The price the primary is charged at. */
  primaryPrice: Price;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks one `{input, output, cached}` object; null (with a warning) when it is not one. */
function parsePrice(raw: unknown, where: string, warnings: string[]): PriceInput | null {
  if (!isRecord(raw)) {
    warnings.push(`Config "${where}" should be {input, output, cached}: ignored`);
    return null;
  }
  const price: PriceInput = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key !== "input" && key !== "output" && key !== "cached") {
      warnings.push(`Config "${where}.${key}" is unknown and ignored`);
    } else if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      warnings.push(`Config "${where}.${key}" should be USD per million tokens: ignored`);
    } else price[key] = value;
  }
  return price;
}

function parsePrices(raw: unknown, key: string, warnings: string[]): Record<string, PriceInput> {
  const prices: Record<string, PriceInput> = {};
  if (!isRecord(raw)) return prices;
  for (const [model, value] of Object.entries(raw)) {
    const price = parsePrice(value, `${key}.${model}`, warnings);
    if (price !== null) prices[model] = price;
  }
  return prices;
}

/**
 * A configured price made whole: a missing part costs 0, except cached input, which defaults to
 * a tenth of the input price (the cache discount of the big providers).
 */
export function completePrice(price: PriceInput): Price {
  const input = price.input ?? 0;
  return { input, output: price.output ?? 0, cached: price.cached ?? input / 10 };
}

/** The list price of a primary name, or undefined when it names no preset or known model. */
function presetPrice(name: string): Price | undefined {
  const model = Object.hasOwn(PRIMARY_PRESETS, name) ? PRIMARY_PRESETS[name]! : name;
  return listPrice(model);
}

/** Resolves the prices receipts use from the config and the environment (pure). */
export function resolvePricing(
  config: PriceSettings,
  env: { get(name: string): string | undefined },
  warnings: string[],
): Pricing {
  const workerPrices = {
    // `costs` is checked (and warned about) with the other settings; here it is only read.
    ...parsePrices(config.costs, "costs", []),
    ...parsePrices(config.workerPrices, "workerPrices", warnings),
  };
  const price = config.price === undefined ? null : parsePrice(config.price, "price", warnings);
  const chosen = (primary: string, primarySource: PricingSource, primaryPrice: Price): Pricing => ({
    workerPrices,
    workerPricesSource: config.costs !== undefined || config.workerPrices !== undefined
      ? "file"
      : "default",
    primary,
    primarySource,
    price,
    primaryPrice,
  });
  const candidates: { source: PricingSource; raw: string | undefined; what: string }[] = [
    { source: "env", raw: env.get("PITROOM_PRIMARY"), what: "PITROOM_PRIMARY" },
    { source: "file", raw: config.primary, what: 'Config key "primary"' },
  ];
  for (const c of candidates) {
    const name = c.raw?.trim();
    if (name === undefined || name === "") continue;
    if (name === "custom") {
      if (price !== null && price.input !== undefined && price.output !== undefined) {
        return chosen("custom", c.source, completePrice(price));
      }
      warnings.push(
        `${c.what} is "custom" but "price" has no {input, output}: using "${DEFAULT_PRIMARY}"`,
      );
      continue;
    }
    const known = presetPrice(name);
    if (known !== undefined) return chosen(name, c.source, known);
    warnings.push(
      `${c.what} "${name}" is not a known model (${
        Object.keys(PRIMARY_PRESETS).join(", ")
      }, custom): ignored`,
    );
  }
  return chosen(DEFAULT_PRIMARY, "default", presetPrice(DEFAULT_PRIMARY)!);
}
