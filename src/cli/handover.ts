/**
 * Output that hands runs over (`run`, `crew`, `wait`, `review`): written to stdout, then each
 * run's share of its bytes is recorded on the run (`engine.handedOver`), so the receipt's
 * returned tokens and compression count what the caller read. A report states its own receipt:
 * it is rendered until the figure it prints includes the report itself (engine
 * `settleHandover`).
 */
import type { Engine, RunReport } from "../engine/mod.ts";
import { settleHandover } from "../engine/present.ts";
import type { Sys } from "../sys/mod.ts";

const encoder = new TextEncoder();

/** UTF-8 bytes of a text. */
export function bytesOf(text: string): number {
  return encoder.encode(text).length;
}

/** What a command prints of runs: the whole text and each run's own part of it (in order). */
export interface Rendered {
  text: string;
  /** Each run's part, in the order of the runs (the rest of the text is split by their sizes). */
  parts: readonly string[];
}

/**
 * Prints what `render` gives for `runs` (as they are shown: each stating what was returned of
 * it, this output included) and records each run's share of it as handed over by `what`.
 */
export async function printHandedOver(
  sys: Sys,
  engine: Engine,
  what: string,
  runs: readonly RunReport[],
  render: (shown: RunReport[]) => Rendered,
): Promise<void> {
  const { result, shares } = settleHandover(runs, {
    render,
    size: (out) => bytesOf(out.text),
    parts: (out) => new Map(runs.map((r, i) => [r.id, bytesOf(out.parts[i] ?? "")])),
    // Blanks at the end of the last line: nothing a reader or a JSON parser sees.
    pad: (out, bytes) => ({
      ...out,
      text: out.text.endsWith("\n")
        ? `${out.text.slice(0, -1)}${" ".repeat(bytes)}\n`
        : out.text + " ".repeat(bytes),
    }),
  });
  sys.out.stdout(result.text);
  await engine.handedOver([...shares].map(([id, bytes]) => ({ id, bytes })), {
    via: "cli",
    what,
  });
}

/** One run printed as one text (its part is all of it). */
export function whole(text: string): Rendered {
  return { text, parts: [text] };
}
