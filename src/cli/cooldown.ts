/**
 * `pitroom cooldown [--clear] [--json]`.
 */
import { safeLine } from "./safe.ts";
import { createEngine } from "../engine/mod.ts";
import { formatUntil } from "../engine/present.ts";
import type { CommandRun } from "./command.ts";
import type { COOLDOWN_FLAGS } from "./cooldown_command.ts";
import { printJson, table } from "./output.ts";

/** Shows or clears cooldowns. */
export const cooldownCommand: CommandRun<typeof COOLDOWN_FLAGS> = async ({ sys, flags }) => {
  const engine = createEngine(sys);
  const now = sys.clock.now();
  if (flags.clear) {
    const n = await engine.clearCooldowns();
    if (flags.json) printJson(sys, { cleared: n });
    else sys.out.stdout(`cleared ${n} cooldown(s)\n`);
    return 0;
  }
  const list = await engine.cooldowns();
  if (flags.json) {
    printJson(sys, list);
    return 0;
  }
  if (list.length === 0) {
    sys.out.stderr("No worker is cooling down\n");
    return 0;
  }
  sys.out.stdout(table([
    ["TARGET", "UNTIL", "WHY", "RUN", "MESSAGE"],
    ...list.map((
      c,
    ) => [c.target, formatUntil(c.until, now), c.reason, c.run, safeLine(c.message, 60)]),
  ]));
  return 0;
};
