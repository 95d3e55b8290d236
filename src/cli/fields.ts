/**
 * The engine's errors name the request's fields (`link`, `mode: isolate`, `step: N`), as MCP
 * callers and the dashboard send them; the CLI prints them in its own flags through this one
 * table (`--link`, `-i`, `--step N`). A field the table does not name is left as it is.
 */

/** Request field -> the CLI's flag (or argument) for it. */
const FLAGS: Readonly<Record<string, string>> = {
  worker: "-W",
  model: "-m",
  tier: "--tier",
  effort: "--effort",
  dir: "-d",
  files: "--file",
  web: "--web",
  link: "--link",
  host: "-H",
  allowLinks: "--allow-links",
  allowSecrets: "--allow-secrets",
  continue: "--continue",
  plan: "--plan",
  step: "--step",
  range: "--range",
  run: "RUN",
  force: "--force",
  all: "--all",
  "caps.maxTokens": "--max-tokens",
  "caps.maxCost": "--max-cost",
  "caps.maxSteps": "--max-steps",
};

/** A run mode's flag. */
const MODES: Readonly<Record<string, string>> = { read: "-r", write: "-w", isolate: "-i" };

/** `text` with each field the engine names (in backticks) said as the CLI's flag. */
export function inFlags(text: string): string {
  return text.replace(/`([\w.]+)(?:: ([^`]+))?`/g, (whole, field: string, value?: string) => {
    if (field === "mode" && value !== undefined) return MODES[value] ?? whole;
    const flag = FLAGS[field];
    if (flag === undefined) return whole;
    return value === undefined ? flag : `${flag} ${value}`;
  });
}
