/**
 * The start-up benchmark: how long each command takes to start and answer, as a ratio to an
 * empty script started the same way (`deno run` with the same flags and permission set), all in
 * one process, interleaved (A B C A B C ...), medians. See README.md.
 *
 *   deno task bench:startup [--rounds 11] [--records 10000] [--no-history] [--json] [--out FILE]
 *                           [--pitroom "CMD ..."] [--compare "CMD ..."]
 *
 * `--pitroom` replaces how pitroom is started (default: tests/support/pitroom.ts's argv, which
 * honours PITROOM_TEST_PROGRAM, e.g. the bundle `dist/pitroom/pitroom.js`); the empty script is then
 * still started by `deno run`, as the baseline of what any Deno program costs to start.
 * `--compare` times a second pitroom (another checkout: before and after a change) in the same
 * rounds, so both sides see the same load.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { moduleCacheEnv, pitroomArgv, REPO_ROOT } from "../../tests/support/pitroom.ts";
import { tempDir } from "../../tests/support/temp.ts";
import {
  checked,
  interleave,
  round1,
  type Series,
  series,
  timeProcess,
} from "../overhead/_measure.ts";
import { fillStateDir, gitInit } from "../overhead/_status.ts";
import { checkFigures, machine, positive } from "../_figures.ts";

/** Ratios to the empty script (issue 25): at most these. */
export const TARGETS = {
  version: 2.5,
  help: 2.5,
  statusEmpty: 3,
  lsEmpty: 3,
  statusFull: 4,
  lsFull: 4,
} as const;

type Case = keyof typeof TARGETS;

const LABELS: Record<Case, string> = {
  version: "pitroom --version",
  help: "pitroom help",
  statusEmpty: "pitroom status (empty state dir)",
  lsEmpty: "pitroom ls (empty state dir)",
  statusFull: "pitroom status (N runs)",
  lsFull: "pitroom ls (N runs)",
};

const DEFAULT_OUT = fileURLToPath(new URL("./results/latest.json", import.meta.url));

async function bench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: "string", default: "11" },
      records: { type: "string", default: "10000" },
      "no-history": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      out: { type: "string", default: DEFAULT_OUT },
      pitroom: { type: "string" },
      compare: { type: "string" },
    },
  });
  const rounds = positive("rounds", values.rounds);
  const records = positive("records", values.records);
  const log = (line: string) => console.error(line);
  const pitroom = values.pitroom === undefined
    ? pitroomArgv()
    : values.pitroom.split(/\s+/).filter((part) => part !== "");
  const compare = values.compare?.split(/\s+/).filter((part) => part !== "") ?? null;
  const loadavgBefore = Deno.loadavg();

  await using scratch = await tempDir("pitroom-bench-startup-");
  const empty = join(scratch.path, "empty");
  const full = join(scratch.path, "full");
  const config = join(scratch.path, "config.json");
  const script = join(scratch.path, "empty.ts");
  await Deno.mkdir(empty);
  await Deno.writeTextFile(config, "{}\n");
  await Deno.writeTextFile(script, "");
  if (!values["no-history"]) {
    const start = performance.now();
    await fillStateDir(full, records, await gitInit(scratch.path));
    log(`wrote ${records} run records in ${Math.round(performance.now() - start)} ms`);
  }
  const baseline = [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-prompt",
    `--config=${join(REPO_ROOT, "deno.json")}`,
    "-P=pitroom",
    script,
  ];
  const env = (stateDir: string) => ({
    NO_COLOR: "1",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: scratch.path,
    PITROOM_STATE_DIR: stateDir,
    PITROOM_CONFIG: config,
    ...moduleCacheEnv(),
  });
  const time = (cmd: string[], stateDir: string, expect: string, what: string) => async () =>
    checked(what, await timeProcess({ argv: cmd, env: env(stateDir), cwd: scratch.path }), expect);
  /** Each case: its arguments, state dir and what stdout must hold. */
  const runs: Array<[Case, string[], string, string]> = [
    ["version", ["--version"], empty, "pitroom"],
    ["help", ["help"], empty, "Usage"],
    ["statusEmpty", ["status"], empty, ""],
    ["lsEmpty", ["ls"], empty, ""],
    ...(values["no-history"] ? [] : [
      ["statusFull", ["status"], full, "done"] as [Case, string[], string, string],
      ["lsFull", ["ls"], full, "done"] as [Case, string[], string, string],
    ]),
  ];
  const cases: Record<string, () => Promise<number>> = {
    empty: time(baseline, empty, "", "empty script"),
  };
  for (const [name, args, dir, expect] of runs) {
    cases[name] = time([...pitroom, ...args], dir, expect, LABELS[name]);
    if (compare !== null) {
      cases[`compare:${name}`] = time([...compare, ...args], dir, expect, `--compare ${name}`);
    }
  }
  log(`${Object.keys(cases).length} cases x ${rounds} rounds after one warm-up ...`);
  const samples = await interleave(cases, {
    rounds,
    warmup: 1,
  });
  const emptySeries = series(samples.empty!, "empty script");
  const ratioOf = (s: Series) => Math.round((s.medianMs / emptySeries.medianMs) * 1000) / 1000;
  const measured = runs.map(([name]) => {
    const s: Series = series(samples[name]!, LABELS[name]);
    const other = compare === null
      ? null
      : series(samples[`compare:${name}`]!, `--compare ${name}`);
    return {
      name,
      label: LABELS[name].replace("N runs", `${records} runs`),
      ...s,
      ratio: ratioOf(s),
      target: TARGETS[name],
      met: ratioOf(s) <= TARGETS[name],
      ...(other === null ? {} : { compare: { ...other, ratio: ratioOf(other) } }),
    };
  });
  const result = checkFigures({
    schemaVersion: 1,
    date: new Date().toISOString(),
    command: ["deno task bench:startup", ...argv].join(" "),
    pitroom,
    ...(compare === null ? {} : { compare }),
    machine: machine(loadavgBefore),
    deno: Deno.version.deno,
    rounds,
    records: values["no-history"] ? 0 : records,
    empty: emptySeries,
    cases: measured,
  });
  await Deno.mkdir(dirname(values.out), { recursive: true });
  await Deno.writeTextFile(values.out, JSON.stringify(result, null, 2) + "\n");
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else {
    const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(" ");
    console.log(
      [
        `start-up, medians of ${rounds} interleaved rounds; load ${
          load(result.machine.loadavgBefore)
        } -> ${load(result.machine.loadavgAfter)}`,
        ...(compare === null ? [] : [`--compare: ${compare.join(" ")}`]),
        `| case | median | x empty script | target |${compare === null ? "" : " --compare |"}`,
        `| --- | --- | --- | --- |${compare === null ? "" : " --- |"}`,
        `| empty \`deno run\` script | ${emptySeries.medianMs} ms | 1 | |${
          compare === null ? "" : " |"
        }`,
        ...measured.map((c) =>
          `| ${c.label} | ${c.medianMs} ms | ${c.ratio.toFixed(2)}x | <= ${c.target}x ${
            c.met ? "met" : "MISSED"
          } |${
            c.compare === undefined
              ? ""
              : ` ${c.compare.medianMs} ms, ${c.compare.ratio.toFixed(2)}x |`
          }`
        ),
      ].join("\n"),
    );
  }
  log(
    `results written to ${values.out} (own cost over the empty script: ${
      measured.map((c) => `${c.name} +${round1(c.medianMs - emptySeries.medianMs)} ms`).join(", ")
    })`,
  );
  return measured.every((c) => c.met) ? 0 : 1;
}

if (import.meta.main) {
  try {
    Deno.exitCode = await bench(Deno.args);
  } catch (error) {
    console.error(`bench:startup: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exitCode = 2;
  }
}
