/**
 * How receipts print money, token counts and ratios (pure), the same in reports, the status
 * line, hook cards, the savings card and the badge.
 */

/** Options of `formatUsd`. */
export interface UsdOptions {
  /**
   * Amounts under a dollar with four decimals and zero as `$0` (one run's receipt).
   * @default false
   */
  precise?: boolean;
}

/**
 * A number with thousands separators, as `toLocaleString("en-US")` writes it (`12,345`, at most
 * three decimals unless `decimals` fixes them: `1,234.50`), without Intl: the first Intl call of
 * a process loads ICU's locale data, about 10 ms of every run's report.
 */
export function grouped(value: number, decimals?: number): string {
  const text = decimals === undefined
    ? String(Math.round(value * 1000) / 1000)
    : value.toFixed(decimals);
  if (!/^-?\d+(?:\.\d+)?$/.test(text)) return text;
  const sign = text.startsWith("-") ? "-" : "";
  const [whole = "", fraction] = text.slice(sign.length).split(".");
  const withCommas = whole.replace(/\B(?=(\d{3})+$)/g, ",");
  return `${sign}${withCommas}${fraction === undefined ? "" : `.${fraction}`}`;
}

/**
 * `$12.34`; amounts under a cent keep four decimals (`$0.0042`), large ones group (`$1,234.50`).
 */
export function formatUsd(value: number, options: UsdOptions = {}): string {
  const sign = value < 0 ? "-" : "";
  const abs = Math.abs(value);
  if (options.precise && abs === 0) return "$0";
  if (abs > 0 && abs < (options.precise ? 1 : 0.01)) return `${sign}$${abs.toFixed(4)}`;
  return `${sign}$${grouped(abs, 2)}`;
}

/** A token count in short form: `950`, `12.3k`, `5.5M`, `1.2B`. */
export function formatTokens(count: number): string {
  const units: [number, string][] = [[1e9, "B"], [1e6, "M"], [1e3, "k"]];
  for (const [size, unit] of units) {
    if (count >= size) {
      const value = count / size;
      const text = value >= 100 ? value.toFixed(0) : value.toFixed(1).replace(/\.0$/, "");
      return `${text}${unit}`;
    }
  }
  return String(Math.round(count));
}

/** A compression ratio: `146x`, `12.5x`; a dash when there is none. */
export function formatRatio(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return "-";
  return ratio >= 100 ? `${grouped(Math.round(ratio))}x` : `${ratio.toFixed(1)}x`;
}

/** Display names of the primary presets. */
const PRIMARY_NAMES: Record<string, string> = {
  sonnet: "Claude Sonnet",
  opus: "Claude Opus",
  haiku: "Claude Haiku",
  fable: "Claude Fable",
  "gpt-5.5": "GPT-5.5",
  "gpt-5": "GPT-5",
  "gemini-pro": "Gemini Pro",
  custom: "your primary",
};

/** How a primary is named for people (`Claude Sonnet`; a model id as it is). */
export function primaryName(primary: string): string {
  return Object.hasOwn(PRIMARY_NAMES, primary) ? PRIMARY_NAMES[primary]! : primary;
}
