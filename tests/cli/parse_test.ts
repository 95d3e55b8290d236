import assert from "node:assert/strict";
import { eventsHelp } from "../../src/cli/help_topics.ts";
import { EVENTS } from "../../src/events/mod.ts";
import { findCommand } from "../../src/cli/commands.ts";
import { formatDuration, parseDuration } from "../../src/sys/duration.ts";
import { commandHelp } from "../../src/cli/help.ts";
import { UsageError } from "../../src/sys/errors.ts";

const run = findCommand("run")!;

Deno.test("parse() reads run's flags, short forms and the task words", () => {
  const p = run.parse([
    "-w",
    "-W",
    "opencode:fake/a,codex",
    "-t",
    "90s",
    "--bg",
    "fix",
    "the",
    "bug",
  ]);
  assert.equal(p.flags.write, true);
  assert.equal(p.flags.worker, "opencode:fake/a,codex");
  assert.equal(p.flags.timeout, 90_000);
  assert.equal(p.flags.bg, true);
  assert.deepEqual(p.args, ["fix", "the", "bug"]);
  assert.equal(p.help, false);
});

Deno.test("parse() suggests the closest flag for a typo", () => {
  assert.throws(() => run.parse(["--wrte", "x"]), (e: unknown) => {
    assert.ok(e instanceof UsageError);
    assert.equal(e.message, 'Unknown flag "--wrte" for `pitroom run`');
    assert.equal(e.hint, "did you mean --write?");
    return true;
  });
});

Deno.test("parse() refuses a bad duration and a missing required argument with exit 2", () => {
  assert.throws(() => run.parse(["-t", "soon", "x"]), /Invalid --timeout "soon"/);
  assert.throws(
    () => findCommand("revert")!.parse([]),
    (e: unknown) => e instanceof UsageError && e.exit === 2,
  );
});

Deno.test("wait's --timeout defaults to 540 seconds", () => {
  assert.equal(findCommand("wait")!.parse([]).flags.timeout, 540_000);
});

Deno.test("parseDuration() and formatDuration() cover seconds, minutes, hours and plain numbers", () => {
  assert.equal(parseDuration("540"), 540_000);
  assert.equal(parseDuration("2h30m"), 9_000_000);
  assert.equal(parseDuration("250ms"), 250);
  assert.throws(() => parseDuration("0s"), UsageError);
  assert.equal(formatDuration(850), "850ms");
  assert.equal(formatDuration(42_000), "42s");
  assert.equal(formatDuration(185_000), "3m05s");
  assert.equal(formatDuration(3_720_000), "1h02m");
});

Deno.test("commandHelp() lists every declared flag of a command, with its short form and examples", () => {
  const help = commandHelp(run);
  for (const f of run.flags) assert.match(help, new RegExp(`--${f.name}\\b`));
  assert.match(help, /-w, --write/);
  assert.match(help, /Examples:\n {2}pitroom run/);
});

Deno.test("eventsHelp() documents every event type of the registry", async () => {
  const text = await eventsHelp();
  for (const type of Object.keys(EVENTS)) {
    assert.match(text, new RegExp(`^${type.replace(".", "\\.")}$`, "m"));
  }
  assert.match(text, /^ {2}retryAfterMs: number >= 0\?$/m);
});
