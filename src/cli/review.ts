/**
 * `pitroom review [RUN | --range A..B [--plan PLAN]] [--tier T | -W W] [--bg] [--json]`: the flags
 * become a `ReviewRequest`; the engine builds the package and runs the reviewer (here, or in the
 * host with `--bg`). The report leads with the verdict; exit 1 for a review without a verdict.
 */
import type { ReviewRequest } from "../engine/mod.ts";
import { engineFor } from "./engine_for.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun, FlagValuesOf } from "./command.ts";
import type { REVIEW_FLAGS } from "./review_command.ts";
import { jsonText, warn } from "./output.ts";
import { bytesOf, printHandedOver, whole } from "./handover.ts";
import { renderReport } from "./report.ts";
import { safe } from "./safe.ts";

/** The request the review flags describe. */
export function reviewRequestFrom(
  flags: FlagValuesOf<typeof REVIEW_FLAGS>,
  args: readonly string[],
): ReviewRequest {
  if (args.length > 1) throw new UsageError("Review one run at a time");
  const request: ReviewRequest = {};
  if (args[0] !== undefined) request.run = args[0];
  const fields = [
    ["range", "range"],
    ["plan", "plan"],
    ["tier", "tier"],
    ["worker", "worker"],
    ["model", "model"],
    ["dir", "dir"],
  ] as const;
  for (const [flag, field] of fields) {
    const value = flags[flag];
    if (value !== undefined) request[field] = value;
  }
  if (flags.timeout !== undefined) request.timeoutMs = flags.timeout;
  if (flags.bg === true) request.background = true;
  return request;
}

/** Reviews a run or a range. */
export const reviewCommand: CommandRun<typeof REVIEW_FLAGS> = async ({ sys, flags, args }) => {
  const engine = engineFor(sys, flags);
  const started = await engine.review(reviewRequestFrom(flags, args), {
    onWarning: (w) => warn(sys, [w]),
  });
  const report = started.report;
  if (report === undefined) {
    warn(sys, started.warnings);
    const out = flags.json
      ? jsonText({
        id: started.id,
        state: "queued",
        kind: started.kind,
        redacted: started.redacted,
      })
      : `${started.id}\n`;
    sys.out.stdout(out);
    await engine.handedOver([{ id: started.id, bytes: bytesOf(out) }], {
      via: "cli",
      what: "review",
    });
    return 0;
  }
  const now = sys.clock.now();
  if (flags.json) {
    await printHandedOver(sys, engine, "review", [report], ([shown]) => whole(jsonText(shown)));
  } else if (report.outcome === "refused") {
    sys.out.stderr(`pitroom: ${safe(report.message ?? "the review was refused")}\n`);
  } else {
    await printHandedOver(
      sys,
      engine,
      "review",
      [report],
      ([shown]) => whole(renderReport(shown!, now)),
    );
  }
  return report.exit ?? 1;
};
