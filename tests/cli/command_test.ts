/**
 * defineCommand(): a command's flags, declared once, type what its code receives (the
 * `@ts-expect-error` lines fail the type check when that typing is lost), and the parser gives
 * each flag a value of its declared type, its default, or none.
 */
import assert from "node:assert/strict";
import {
  type CommandRun,
  defineCommand,
  flag,
  type FlagValuesOf,
  JSON_FLAG,
} from "../../src/cli/command.ts";
import { commandHelp } from "../../src/cli/help.ts";
import { UsageError } from "../../src/sys/errors.ts";
import { tempDir } from "../support/temp.ts";
import { testSys } from "../support/sys.ts";

const FLAGS = {
  write: flag.boolean({ short: "w", describe: "edit" }),
  limit: flag.number({ short: "n", value: "N", default: 20, integer: true, min: 1, describe: "n" }),
  link: flag.repeated({ short: "l", value: "DIR", describe: "link" }),
  group: flag.string({ short: "g", value: "NAME", describe: "group" }),
  color: flag.enum({ value: "COLOR", values: ["red", "blue"], describe: "colour" }),
  timeout: flag.duration({ value: "DUR", default: "540", describe: "timeout" }),
  plan: flag.string({ value: "PLAN", required: true, describe: "the plan" }),
  json: JSON_FLAG,
};

type Values = FlagValuesOf<typeof FLAGS>;

/** The flags the command's code received, by run. */
const received: Values[] = [];

const body: CommandRun<typeof FLAGS> = ({ flags }) => {
  received.push(flags);
  // Typed from the declaration: no cast reads a value.
  const limit: number = flags.limit;
  const timeoutMs: number = flags.timeout;
  const plan: string = flags.plan;
  const links: string[] | undefined = flags.link;
  const color: "red" | "blue" | undefined = flags.color;
  // @ts-expect-error a flag left out is absent: --write is not always a boolean
  const write: boolean = flags.write;
  // @ts-expect-error --limit is a number
  const text: string = flags.limit;
  // @ts-expect-error no such flag
  const nope = flags.nope;
  return Promise.resolve([limit, timeoutMs, plan, links, color, write, text, nope].length);
};

const DEMO = defineCommand({
  name: "demo",
  summary: "a command for the tests",
  flags: FLAGS,
  args: [{ name: "TASK", describe: "the task", variadic: true }],
  examples: ["pitroom demo --plan p.md"],
  run: () => Promise.resolve(body),
});

function usageError(argv: string[], message: string): void {
  assert.throws(() => DEMO.parse(argv), (e: unknown) => {
    assert.ok(e instanceof UsageError, String(e));
    assert.equal(e.message, message);
    assert.equal(e.exit, 2);
    return true;
  });
}

Deno.test("a command's code gets its flags typed and converted: numbers, durations, lists, words", async () => {
  await using dir = await tempDir();
  const argv = ["-wn", "5", "-l", "a", "--link=b", "-lc", "--color", "blue", "--plan", "p.md"];
  const parsed = DEMO.parse([...argv, "--timeout", "90s", "--json", "fix", "it"]);
  assert.deepEqual(parsed.args, ["fix", "it"]);
  received.length = 0;
  assert.equal(await parsed.run(testSys({ stateDir: dir.path })), 8);
  assert.deepEqual(received, [{
    write: true,
    limit: 5,
    link: ["a", "b", "c"],
    color: "blue",
    plan: "p.md",
    timeout: 90_000,
    json: true,
  }]);
});

Deno.test("a flag left out is absent, unless it has a default", () => {
  const { flags } = DEMO.parse(["--plan", "p.md"]);
  assert.deepEqual(flags, { limit: 20, timeout: 540_000, plan: "p.md" });
  assert.ok(!("write" in flags) && !("link" in flags) && !("group" in flags));
});

Deno.test("an enum flag takes one of its words; another word is exit 2", () => {
  usageError(
    ["--plan", "p", "--color", "green"],
    'Flag "--color" takes one of red, blue, got "green"',
  );
  usageError(["--plan", "p", "--color", ""], 'Flag "--color" needs a value, got ""');
});

Deno.test("a required flag left out is exit 2 naming it; --help still answers, and says so", () => {
  usageError([], "`pitroom demo` needs --plan PLAN");
  usageError(["--plan"], 'Flag "--plan" needs a value');
  assert.equal(DEMO.parse(["--help"]).help, true);
  const help = commandHelp(DEMO);
  assert.match(help, /^ {6}--plan PLAN +the plan \(required\)$/m);
  assert.match(help, /^ {2}-n, --limit N +n \(default 20\)$/m);
  assert.match(help, /^ {6}--color COLOR +colour$/m);
});

Deno.test("a flag spelled like an Object property is an unknown flag, not a crash", () => {
  for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
    assert.throws(
      () => DEMO.parse(["--plan", "p", `--${name}`]),
      (e: unknown) => e instanceof UsageError && e.message.startsWith(`Unknown flag "--${name}"`),
    );
  }
});
