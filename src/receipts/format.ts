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
 * `$12.34`; amounts under a cent keep four decimals (`$0.0042`), large ones group (`$1,234.50`).
 */
export function formatUsd(value: number, options: UsdOptions = {}): string {
  const sign = value < 0 ? "-" : "";
  const abs = Math.abs(value);
  if (options.precise && abs === 0) return "$0";
  if (abs > 0 && abs < (options.precise ? 1 : 0.01)) return `${sign}$${abs.toFixed(4)}`;
  return `${sign}$${
    abs.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
  }`;
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
  return ratio >= 100 ? `${Math.round(ratio).toLocaleString("en-US")}x` : `${ratio.toFixed(1)}x`;
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
