/**
 * Hosts benchmark, containers (issue 28.5): what an isolate run in a podman pod costs over the
 * same run here, on the 31,000-file tree of benchmarks/tree, and how many container runs one
 * Pitroom host process follows at once. Real everything: podman (with this machine's
 * work-arounds, _podman.ts), the real codex CLI against the scripted model server. Run it in a
 * loopback-only network namespace (README.md).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startModelServer } from "../../tests/support/model_server/fixture.ts";
import { pitroom, REPO_ROOT } from "../../tests/support/pitroom.ts";
import { tempDir } from "../../tests/support/temp.ts";
import { benchEnv, DEFAULT_SHAPE, ensureRepo } from "../tree/_generate.ts";
import { checkFigures, median } from "../_figures.ts";
import { ensureImage, IMAGE, pitroomPods, podmanWrapper } from "./_podman.ts";
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
await using work = await tempDir("pitroom-bench-pods-");
const bin = await podmanWrapper(work.path);
await ensureImage(bin, work.path);
const config = join(work.path, "config.json");
await Deno.writeTextFile(
  config,
  JSON.stringify({
    // Every run of the crew at once (the ceiling is 30).
    maxParallel: Math.min(30, Math.max(CREW, 4)),
    hosts: {
      pod: {
        container: {
          image: IMAGE,
          engine: "podman",
          // The worker CLIs and node come from this machine.
          mounts: ["/usr", "/etc", join(REPO_ROOT, ".tools")],
          network: "host",
        },
      },
    },
  }),
);
const env = {
  ...server.env,
  PATH: `${bin}:${server.env.PATH}`,
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

// (a) The extra start-up per container run on the 31k-file tree, local and pod interleaved.
const local: number[] = [];
const pod: number[] = [];
if (!args.values["skip-startup"]) {
  const repoDir = args.values["repo-dir"]!;
  const home = join(work.path, "home");
  await Deno.mkdir(home);
  await ensureRepo(repoDir, benchEnv(home), DEFAULT_SHAPE, (l) => console.error(l));
  // One of each first, not counted: the image, podman's storage and the CLI's files warm.
  await timedRun(repoDir, []);
  await timedRun(repoDir, ["-H", "pod"]);
  for (let i = 0; i < ROUNDS; i++) {
    local.push(await timedRun(repoDir, []));
    pod.push(await timedRun(repoDir, ["-H", "pod"]));
    console.error(
      `round ${i + 1}: local ${Math.round(local.at(-1)!)} ms, pod ${Math.round(pod.at(-1)!)} ms`,
    );
  }
}

// (b) A crew of container runs followed by one host process: pods at once, events/s, memory.
// The crew's pods are counted beside it (podman, one call at a time: each costs about a second of
// CPU).
let peakPods = 0;
const crew = await hostCrew({
  host: "pod",
  count: CREW,
  env,
  alongside: async (following) => {
    while (following()) peakPods = Math.max(peakPods, (await pitroomPods(bin)).length);
  },
});
const left = await pitroomPods(bin);
const result = {
  ...(local.length === 0 ? {} : {
    startup: {
      localMs: median(local, "local runs"),
      podMs: median(pod, "pod runs"),
      extraMs: median(pod, "pod runs") - median(local, "local runs"),
      ratio: median(pod, "pod runs") / median(local, "local runs"),
      rounds: ROUNDS,
    },
  }),
  crew: { ...crew, peakPodsAtOnce: peakPods, podsLeft: left.length },
};
checkFigures(result);
if (crew.listed !== CREW) throw new Error(`the crew listed ${crew.listed} runs of ${CREW}`);
console.log(JSON.stringify(result, null, 2));
