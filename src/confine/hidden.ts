/**
 * The report's words for what the sandbox hid from a worker (a run record's `hidden`, made by
 * confine/sandboxing.ts): a count and a few examples of each kind. Pure and import-free, so the
 * CLI's report loads nothing of the sandbox.
 */
import type { Hidden } from "../store/record.ts";

/** `3 credential paths (~/.ssh, ~/.aws, ...)` (pure). */
export function listed(count: number, what: string, examples: readonly string[]): string {
  const more = count > examples.length ? ", ..." : "";
  return `${count} ${what}${count === 1 ? "" : "s"} (${examples.join(", ")}${more})`;
}

/** The report's line on what the sandbox hid (pure). */
export function hiddenLine(hidden: Hidden): string {
  return [
    ...(hidden.credentials.count === 0
      ? []
      : [listed(hidden.credentials.count, "credential path", hidden.credentials.examples)]),
    ...(hidden.files.count === 0
      ? []
      : [listed(hidden.files.count, "secret-looking file", hidden.files.examples)]),
  ].join("; ");
}
