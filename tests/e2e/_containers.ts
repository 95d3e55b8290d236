/**
 * What the container hosts' end-to-end tests share (hosts_container_test.ts for podman,
 * hosts_docker_test.ts for docker): the tiny image (a rootfs of empty folders and usr-merged
 * links, imported once; this machine's /usr and /etc are mounted read-only into the container,
 * as no registry is reachable), a world whose config has a container host on that image with the
 * worker CLIs mounted, and a background run whose worker edits then hangs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/pitroom.ts";
import { tempDir, waitFor } from "../support/temp.ts";
import { type World, world } from "./_world.ts";
import type { RunRecord } from "../../src/store/record.ts";

/** The file the worlds' repo starts with. */
export const APP = "export const answer = 41;\n";

/** The tiny image both engines import. */
export const IMAGE = "localhost/pitroom-base:test";

/** The podman binary, or null when podman is not installed. */
export const PODMAN = ["/usr/bin/podman", "/usr/local/bin/podman"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
}) ?? null;

/**
 * Writes a `podman` into `dir/bin` with this machine's work-arounds (docs/hosts.md: a
 * containers.conf without default ulimits; podman in its own mount namespace with the cgroup v1
 * `unified` mount gone, and cgroupfs) and returns that folder, to be put first on PATH. While the
 * file `dir/fail-stop` is there, `podman stop` is refused (a test's engine that will not stop).
 */
export async function podmanWrapper(dir: string): Promise<string> {
  if (PODMAN === null) throw new Error("podman is not installed");
  const conf = join(dir, "containers.conf");
  await Deno.writeTextFile(conf, "[containers]\ndefault_ulimits = []\n");
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  const script = [
    "#!/bin/sh",
    `export CONTAINERS_CONF=${conf}`,
    `[ "$1" = stop ] && [ -e ${
      join(dir, "fail-stop")
    } ] && { echo "Error: stop refused" >&2; exit 125; }`,
    `exec unshare -m sh -c 'umount /sys/fs/cgroup/unified 2>/dev/null; exec ${PODMAN} --cgroup-manager=cgroupfs "$@"' podman "$@"`,
    "",
  ].join("\n");
  await Deno.writeTextFile(join(bin, "podman"), script, { mode: 0o755 });
  return bin;
}

/** What an engine's command printed. */
export interface EngineOut {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs an engine's program (`podman`, a wrapper of it, `docker`) with `args`. */
export async function engine(
  program: string,
  args: string[],
  options: { stdin?: Uint8Array; env?: Record<string, string> } = {},
): Promise<EngineOut> {
  const child = new Deno.Command(program, {
    args,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    ...(options.env === undefined ? {} : { env: options.env }),
  }).spawn();
  if (options.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(options.stdin);
    await w.close();
  }
  const out = await child.output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** Imports the image into the engine once (`import -` of a tarred rootfs made in `dir`). */
export async function ensureImage(program: string, dir: string): Promise<void> {
  if ((await engine(program, ["image", "inspect", IMAGE])).code === 0) return;
  const root = join(dir, "rootfs");
  for (const d of ["dev", "etc", "proc", "root", "run", "sys", "tmp", "usr", "work"]) {
    await Deno.mkdir(join(root, d), { recursive: true });
  }
  const links = [["bin", "usr/bin"], ["lib", "usr/lib"], ["lib64", "usr/lib64"], [
    "sbin",
    "usr/sbin",
  ]];
  for (const [link, target] of links) await Deno.symlink(target!, join(root, link!));
  const tar = await new Deno.Command("tar", { args: ["-C", root, "-c", "."], stdout: "piped" })
    .output();
  const imported = await engine(program, ["import", "-", IMAGE], { stdin: tar.stdout });
  assert.equal(imported.code, 0, imported.stderr);
}

/** A world with a container host `host` on the tiny image, and the engine it runs on. */
export interface ContainerWorld extends AsyncDisposable {
  w: World;
  /** The engine's program the test calls (podman's wrapper, or `docker`). */
  program: string;
  /** Laid over the world's environment for every `pitroom` call (the wrapper's PATH). */
  env: Record<string, string>;
  /** A temp folder of the test's own. */
  dir: string;
}

/** Starts a world whose host `host` runs on `engine`, after `setup` (which may give a PATH folder). */
export async function containerWorld(
  scenarios: Record<string, unknown>,
  options: {
    engine: "podman" | "docker";
    host: string;
    /** Prepares the engine in the test's folder: a folder for the PATH holding it, or null. */
    setup?: (dir: string) => Promise<string | null>;
    /** More hosts of the config. */
    hosts?: Record<string, unknown>;
  },
): Promise<ContainerWorld> {
  const dir = await tempDir(`pitroom-${options.engine}-`);
  const bin = await options.setup?.(dir.path) ?? null;
  const program = bin === null ? options.engine : join(bin, options.engine);
  await ensureImage(program, dir.path);
  const w = await world(scenarios, {
    config: {
      hosts: {
        [options.host]: {
          container: {
            image: IMAGE,
            engine: options.engine,
            // The worker CLIs and node come from this machine.
            mounts: ["/usr", "/etc", join(REPO_ROOT, ".tools")],
            network: "host",
          },
        },
        ...options.hosts,
      },
    },
  });
  return {
    w,
    program,
    env: bin === null ? {} : { PATH: `${bin}:${w.env.PATH}` },
    dir: dir.path,
    async [Symbol.asyncDispose]() {
      await w[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/**
 * Starts a background run of scenario `stuck` on the host, whose worker edits then hangs: its
 * id, once the edit was reported.
 */
export async function startStuck(c: ContainerWorld, host: string): Promise<string> {
  const started = await c.w.run(
    ["run", "--bg", "-i", "-H", host, "-W", "codex", "-m", "fake/stuck", "Change the answer"],
    { env: c.env },
  );
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim().split(/\s+/)[0]!;
  await waitFor(async () => {
    const r = await c.w.record(id).catch(() => null);
    return (r?.progress.tools ?? 0) > 0;
  }, { timeoutMs: 60_000, what: "the container's worker to report its edit" });
  return id;
}

/** `git status --porcelain` of a repo, as bytes. */
export async function gitStatus(repo: string): Promise<Uint8Array> {
  return (await new Deno.Command("git", {
    args: ["status", "--porcelain"],
    cwd: repo,
    stdout: "piped",
  }).output()).stdout;
}

/** Waits for a process to be gone (SIGCONT answering no such process). */
export async function waitGone(pid: number): Promise<void> {
  await waitFor(() => {
    try {
      Deno.kill(pid, "SIGCONT");
      return false;
    } catch {
      return true;
    }
  }, { timeoutMs: 10_000, what: `process ${pid} to die` });
}

/**
 * Stops the stuck run `id` (startStuck's) with `pitroom stop` and checks how it ended, on either
 * engine: stopped (its outcome), the worker's edit until then in the copy, the user's tree as it
 * was. The caller checks that nothing of the run is left.
 */
export async function stopStuck(c: ContainerWorld, id: string): Promise<RunRecord> {
  const { w } = c;
  const stopped = await w.run(["stop", id], { env: c.env });
  assert.equal(stopped.code, 0, stopped.stderr);
  const record = await w.record(id);
  assert.equal(record.state, "problem");
  assert.equal(record.outcome, "stopped", record.message);
  assert.equal(record.attempts[0]?.sandbox, "container");
  assert.equal(
    await Deno.readTextFile(join(record.isolation!.copyRoot, "src/app.ts")),
    "export const answer = 99;\n",
  );
  assert.equal(await w.read("src/app.ts"), "export const answer = 43;\n");
  return record;
}

/**
 * Waits for the stuck run `id`, whose container was killed, to end, and checks it is lost with
 * the copy untouched: the worker's edit in its container never reached it.
 */
export async function lostWithCopyUntouched(
  c: ContainerWorld,
  id: string,
  host: string,
): Promise<RunRecord> {
  const { w } = c;
  await waitFor(async () => (await w.record(id)).state !== "running", {
    timeoutMs: 60_000,
    what: "the run to end",
  });
  const record = await w.record(id);
  assert.equal(record.state, "lost");
  assert.match(
    record.message ?? "",
    new RegExp(`container of host "${host}" was killed while the worker ran`),
  );
  assert.deepEqual(record.changes?.files ?? [], []);
  assert.equal(
    await Deno.readTextFile(join(record.isolation!.copyRoot, "src/app.ts")),
    "export const answer = 43;\n",
  );
  return record;
}

/** The containers (and podman's pods) of run `run` the engine still lists. */
export type Leftovers = (run: string) => Promise<string[]>;

/**
 * The scenarios of the follow-up, fallback and crew steps (continueRun, fallbackRun, crewOfTwo),
 * for either engine's world.
 */
export const FOLLOW_SCENARIOS = {
  // A follow-up must see what the run before it left in the copy.
  again: {
    turns: [{ shell: "printf 'one\\n' > first.txt" }, { answer: "First." }],
    followup: [{ shell: "cat first.txt > second.txt" }, { answer: "Second." }],
  },
  // A fallback's worker must see what the attempt before it left in the copy.
  fellover: {
    turns: [{ shell: "printf 'half\\n' > half.txt" }, { error: { status: 401, kind: "auth" } }],
  },
  pickup: { turns: [{ shell: "cat half.txt > whole.txt" }, { answer: "Picked up." }] },
  // Two runs of one crew at once, each writing its own file.
  crewa: { turns: [{ shell: "printf 'a\\n' > a.txt" }, { answer: "Wrote a." }] },
  crewb: { turns: [{ shell: "printf 'b\\n' > b.txt" }, { answer: "Wrote b." }] },
};

/**
 * `--continue` of a run on container host `host`: the follow-up resumes the worker's session in a
 * container of its own and sees what the run before left in the copy; `-H` with `--continue` is
 * refused in one line (exit 2) before anything runs; nothing of either run is left.
 */
export async function continueRun(
  c: ContainerWorld,
  host: string,
  leftovers: Leftovers,
): Promise<void> {
  const { w } = c;
  const first = await w.run(
    ["run", "--json", "-i", "-H", host, "-W", "codex", "-m", "fake/again", "Write one"],
    { env: c.env },
  );
  assert.equal(first.code, 0, first.stderr + first.stdout);
  const prev = JSON.parse(first.stdout) as RunRecord;
  assert.equal(prev.state, "done");
  const session = prev.attempts[0]?.sessionId;
  assert.ok(session, "the first run recorded its worker session");
  // A host is kept from the run followed up: naming one is refused before anything runs.
  const named = await w.run(["run", "-H", host, "--continue", prev.id, "Copy it"], {
    env: c.env,
  });
  assert.equal(named.code, 2, named.stderr);
  assert.equal(named.stderr.trim().split("\n").length, 1, named.stderr);
  assert.match(named.stderr, /--continue keeps the earlier run's settings: leave out -H/);
  const next = await w.run(["run", "--json", "--continue", prev.id, "Copy it"], {
    env: c.env,
  });
  assert.equal(next.code, 0, next.stderr + next.stdout);
  const record = JSON.parse(next.stdout) as RunRecord;
  assert.equal(record.state, "done", record.message);
  assert.equal(record.host, host);
  assert.equal(record.attempts[0]?.sandbox, "container");
  assert.equal(record.continues?.run, prev.id);
  assert.equal(record.attempts[0]?.sessionId, session);
  assert.equal(record.answer?.trim(), "Second.");
  // The worker in the follow-up's container read the file the first run wrote.
  const copy = record.isolation!.copyRoot;
  assert.equal(copy, prev.isolation!.copyRoot);
  assert.equal(await Deno.readTextFile(join(copy, "second.txt")), "one\n");
  assert.equal(await Deno.readTextFile(join(copy, "first.txt")), "one\n");
  assert.deepEqual(record.changes?.files.map((f) => f.path).sort(), [
    "first.txt",
    "second.txt",
  ]);
  assert.deepEqual(await leftovers(prev.id), []);
  assert.deepEqual(await leftovers(record.id), []);
  await w.run(["discard", record.id]);
}

/**
 * A fallback on container host `host`: the first worker of the chain fails (auth), the next one's
 * container sees what the attempt before left in the copy; nothing of the run is left.
 */
export async function fallbackRun(
  c: ContainerWorld,
  host: string,
  leftovers: Leftovers,
): Promise<void> {
  const { w } = c;
  const out = await w.run([
    "run",
    "--json",
    "-i",
    "-H",
    host,
    "-W",
    "codex:fake/fellover,codex:fake/pickup",
    "Finish it",
  ], { env: c.env });
  assert.equal(out.code, 0, out.stderr + out.stdout);
  const record = JSON.parse(out.stdout) as RunRecord;
  assert.equal(record.state, "done", record.message);
  assert.deepEqual(record.attempts.map((a) => [a.model, a.outcome, a.sandbox]), [
    ["fake/fellover", "auth", "container"],
    ["fake/pickup", "ok", "container"],
  ]);
  const copy = record.isolation!.copyRoot;
  assert.equal(await Deno.readTextFile(join(copy, "whole.txt")), "half\n");
  assert.deepEqual(record.changes?.files.map((f) => f.path).sort(), [
    "half.txt",
    "whole.txt",
  ]);
  assert.deepEqual(await leftovers(record.id), []);
  await w.run(["discard", record.id]);
}

/**
 * A crew of two on container host `host` at once: both done in containers of their own, each
 * with its own patch; nothing of either run is left.
 */
export async function crewOfTwo(
  c: ContainerWorld,
  host: string,
  leftovers: Leftovers,
): Promise<void> {
  const { w } = c;
  const crew = await w.run([
    "crew",
    "-i",
    "-H",
    host,
    "-W",
    "codex",
    "-m",
    "fake/crewa",
    "-g",
    "pods",
    "[[scenario:crewa]] Write a",
    "[[scenario:crewb]] Write b",
  ], { env: c.env });
  assert.equal(crew.code, 0, crew.stderr);
  const waited = await w.run(["wait", "-g", "pods"], { env: c.env });
  assert.equal(waited.code, 0, waited.stderr + waited.stdout);
  const ls = await w.run(["ls", "-g", "pods", "--json"], { env: c.env });
  const runs = JSON.parse(ls.stdout) as { id: string }[];
  assert.equal(runs.length, 2);
  const seen = [];
  for (const { id } of runs) {
    const record = await w.record(id);
    assert.equal(record.state, "done", record.message);
    assert.equal(record.host, host);
    assert.equal(record.attempts[0]?.sandbox, "container");
    const files = record.changes?.files.map((f) => f.path) ?? [];
    seen.push(files.join(","));
    const patch = await w.run(["show", id, "--patch"]);
    assert.equal(patch.code, 0, patch.stderr);
    assert.match(patch.stdout, files[0] === "a.txt" ? /^\+a$/m : /^\+b$/m);
    assert.deepEqual(await leftovers(id), []);
  }
  assert.deepEqual(seen.sort(), ["a.txt", "b.txt"]);
}
