/**
 * The overhead benchmark: `pitroom run` against the bare worker CLI on the same trivial scenario,
 * per worker, and `pitroom status` / `pitroom ls` start-up with a large history. Every figure is
 * a median of interleaved runs measured in this one process, and each comparison is a ratio
 * against a baseline measured alongside it. See README.md.
 *
 *   deno task bench [--workers opencode,codex,claude,gemini|none] [--runs N] [--status-runs N]
 *                   [--records N] [--no-status] [--json] [--out FILE] [--pitroom "CMD ..."]
 *                   [--compare "CMD ..."]
 *
 * `--pitroom` replaces how pitroom is started (default: `deno run -P=pitroom main.ts` through
 * tests/support/pitroom.ts), e.g. `--pitroom dist/pitroom` for a compiled binary. `--compare`
 * times a second pitroom (another checkout) in the same rounds: before and after a change.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { pitroomArgv } from "../../tests/support/pitroom.ts";
import { WORKER_NAMES, type WorkerName } from "../../src/workers/types.ts";
import { benchStatus, STATUS_TARGET_MS, type StatusResult } from "./_status.ts";
import { benchWorker, installedWorkers, RUN_TARGET, type WorkerResult } from "./_workers.ts";
import { formatReport } from "./_report.ts";
import { checkFigures, type Machine, machine, NoFigure, positive } from "../_figures.ts";

/** The JSON document a run leaves in results/. */
export interface BenchResult {
  schemaVersion: 1;
  date: string;
  command: string;
  /** How pitroom was started. */
  pitroom: string[];
  machine: Machine;
  deno: string;
  targets: { run: typeof RUN_TARGET; statusMs: number };
  runsPerSide: number;
  workers: WorkerResult[];
  skipped: { worker: string; reason: string }[];
  status: StatusResult | null;
}

const DEFAULT_OUT = fileURLToPath(new URL("./results/latest.json", import.meta.url));

function parseWorkers(text: string | undefined): WorkerName[] | null {
  if (text === undefined) return null;
  if (text === "none" || text === "") return [];
  const names = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const n of names) {
    if (!(WORKER_NAMES as readonly string[]).includes(n)) {
      throw new Error(`unknown worker "${n}" (one of ${WORKER_NAMES.join(", ")}, or none)`);
    }
  }
  return names as WorkerName[];
}

async function bench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      workers: { type: "string" },
      runs: { type: "string", default: "5" },
      "status-runs": { type: "string", default: "10" },
      records: { type: "string", default: "10000" },
      "no-status": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      out: { type: "string", default: DEFAULT_OUT },
      pitroom: { type: "string" },
      compare: { type: "string" },
    },
  });
  const runs = positive("runs", values.runs);
  const statusRuns = positive("status-runs", values["status-runs"]);
  const records = positive("records", values.records);
  const log = (line: string) => console.error(line);
  const pitroom = values.pitroom === undefined
    ? pitroomArgv()
    : values.pitroom.split(/\s+/).filter((part) => part !== "");
  const compare = values.compare?.split(/\s+/).filter((part) => part !== "");
  const loadavgBefore = Deno.loadavg();

  const wanted = parseWorkers(values.workers);
  const installed = wanted === null || wanted.length > 0 ? await installedWorkers() : new Map();
  const skipped: BenchResult["skipped"] = [];
  const workers: WorkerResult[] = [];
  for (const worker of wanted ?? WORKER_NAMES) {
    const version = installed.get(worker);
    if (version === undefined) {
      skipped.push({ worker, reason: "not installed" });
      continue;
    }
    log(`${worker} ${version}: ${runs} bare / pitroom / --version rounds after one warm-up`);
    workers.push(
      await benchWorker(worker, version, {
        rounds: runs,
        warmup: 1,
        pitroom,
        ...(compare === undefined ? {} : { compare }),
        log,
      }),
    );
  }
  let status: StatusResult | null = null;
  if (!values["no-status"]) {
    log(`status: ${records} records, ${statusRuns} rounds after one warm-up`);
    status = await benchStatus({ records, rounds: statusRuns, warmup: 1, pitroom, log });
  }

  const result: BenchResult = {
    schemaVersion: 1,
    date: new Date().toISOString(),
    command: ["deno task bench", ...argv].join(" "),
    pitroom,
    machine: machine(loadavgBefore),
    deno: Deno.version.deno,
    targets: { run: RUN_TARGET, statusMs: STATUS_TARGET_MS },
    runsPerSide: runs,
    workers,
    skipped,
    status,
  };
  if (workers.length === 0 && status === null) {
    throw new NoFigure("nothing was measured (no worker installed and --no-status?)");
  }
  checkFigures(result);
  await Deno.mkdir(dirname(values.out), { recursive: true });
  await Deno.writeTextFile(values.out, JSON.stringify(result, null, 2) + "\n");
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else console.log(formatReport(result));
  log(`results written to ${values.out}`);
  const failed = workers.some((w) => !w.meetsTarget) || (status !== null && !status.meetsTarget);
  return failed ? 1 : 0;
}

if (import.meta.main) {
  try {
    Deno.exitCode = await bench(Deno.args);
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exitCode = 2;
  }
}
