/**
 * Hosts benchmark (issue 28.5): what a run on an SSH host costs over the same run here, on the
 * 31,000-file tree of benchmarks/tree, and how many remote runs one Pitroom host process follows.
 * Real everything: OpenSSH on 127.0.0.1 (tests/support/sshd.ts), this machine's Pitroom as the
 * host's, the real codex CLI against the scripted model server. Run it in a loopback-only
 * network namespace (README.md).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startModelServer } from "../../tests/support/model_server/fixture.ts";
import { startSshd } from "../../tests/support/sshd.ts";
import { moduleCacheEnv, pitroom, pitroomArgv } from "../../tests/support/pitroom.ts";
import { tempDir } from "../../tests/support/temp.ts";
import { benchEnv, DEFAULT_SHAPE, ensureRepo } from "../tree/_generate.ts";
import { checkFigures, median } from "../_figures.ts";
import { hostCrew } from "./_crew.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "3" },
    crew: { type: "string", default: "8" },
    "repo-dir": { type: "string", default: "/tmp/pitroom-bench-tree" },
    "skip-startup": { type: "boolean", default: false },
  },
});
const ROUNDS = Number(args.values.rounds);
const CREW = Number(args.values.crew);

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

const scenarios = {
  quick: { turns: [{ read: "README.md" }, { answer: "Read it." }] },
  busy: {
    turns: [
      ...Array.from({ length: 10 }, () => ({ read: "README.md" })),
      { edit: { path: "README.md", old: "#", new: "##" } },
      { answer: "Done." },
    ],
  },
};

await using server = await startModelServer({ scenarios });
await using sshd = await startSshd();
await using work = await tempDir("pitroom-bench-hosts-");
const workerEnv = Object.fromEntries(
  Object.entries(server.env).filter(([k]) => !k.startsWith("PITROOM_")),
);
const host = {
  ssh: sshd.destination,
  port: sshd.port,
  identity: sshd.key,
  options: sshd.options,
  dir: join(work.path, "remote"),
  pitroom: pitroomArgv().map(quote).join(" "),
  env: { ...moduleCacheEnv(), ...workerEnv, NO_COLOR: "1" },
};
const config = join(work.path, "config.json");
await Deno.writeTextFile(config, JSON.stringify({ hosts: { box: host } }));
const env = {
  ...server.env,
  PITROOM_STATE_DIR: join(work.path, "state"),
  PITROOM_CONFIG: config,
};

async function timedRun(cwd: string, extra: string[]): Promise<number> {
  const start = performance.now();
  const out = await pitroom(
    ["run", "-i", ...extra, "-W", "codex", "-m", "fake/quick", "--json", "Read the README"],
    { env, cwd },
  );
  const ms = performance.now() - start;
  if (out.code !== 0) throw new Error(`run failed (${out.code}): ${out.stderr}`);
  const id = JSON.parse(out.stdout).id as string;
  await pitroom(["discard", id], { env, cwd });
  return ms;
}

// (a) The extra start-up per remote run on the 31k-file tree.
const local: number[] = [];
const remote: number[] = [];
let cold = Number.NaN;
if (!args.values["skip-startup"]) {
  const repoDir = args.values["repo-dir"]!;
  const home = join(work.path, "home");
  await Deno.mkdir(home);
  await ensureRepo(repoDir, benchEnv(home), DEFAULT_SHAPE, (l) => console.error(l));
  cold = await timedRun(repoDir, ["-H", "box"]);
  for (let i = 0; i < ROUNDS; i++) {
    local.push(await timedRun(repoDir, []));
    remote.push(await timedRun(repoDir, ["-H", "box"]));
  }
}

// (b) A crew of remote runs followed by one host process: events/s and its memory.
const crew = await hostCrew({ host: "box", count: CREW, env });
const result = {
  ...(local.length === 0 ? {} : {
    startup: {
      localMs: median(local),
      remoteMs: median(remote),
      extraMs: median(remote) - median(local),
      firstRemoteMs: cold,
      rounds: ROUNDS,
    },
  }),
  crew,
};
checkFigures(result);
console.log(JSON.stringify(result, null, 2));
