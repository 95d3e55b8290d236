/**
 * An isolate run on a docker host, end to end, against a real docker daemon: the worker (the real
 * codex CLI, talking to the scripted model server over the host's loopback) runs in a container
 * started with `docker run` from Pitroom's Pod manifest, its events come from `docker logs -f`,
 * the files it changed come back into the copy and the patch applies with `pitroom apply`
 * (codex's own bubblewrap sandbox working inside, under Pitroom's seccomp profile, which refuses
 * the worker's `keyctl` with EPERM); `pitroom stop` ends a running one stopped with no container
 * left, also where docker refuses the stop (a `docker` wrapper first on Pitroom's PATH); a
 * container killed mid-run leaves the run lost and the copy untouched; a supervisor killed -9
 * leaves a container the read that finds the run lost removes (by its label); a follow-up
 * (`--continue`) and a fallback's next attempt find the work before them in their container; two
 * runs of a crew at once each get their own container and patch; a missing image is refused in one
 * line; `doctor` reports the daemon, and one that does not answer in one line.
 *
 * It needs a docker daemon the test can reach, in the test's own network namespace (so
 * `--network host` reaches the model server on 127.0.0.1). Without one it prints one skip line
 * and passes: CI starts none. docs/hosts.md says how it was run here (dockerd started by hand,
 * the tiny image of _containers.ts imported with `docker import`, /usr and /etc mounted).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunRecord } from "../../src/store/record.ts";
import {
  APP,
  containerWorld,
  continueRun,
  crewOfTwo,
  engine,
  fallbackRun,
  FOLLOW_SCENARIOS,
  gitStatus,
  lostWithCopyUntouched,
  startStuck,
  stopStuck,
  waitGone,
} from "./_containers.ts";

const reached = await engine("docker", ["info", "--format", "{{.ServerVersion}}"]).catch(() =>
  null
);
const IGNORE = reached === null
  ? "docker is not installed"
  : reached.code !== 0
  ? `no docker daemon answers (${reached.stderr.trim().split("\n").at(0)})`
  : false;
if (IGNORE !== false) console.log(`hosts_docker_test: skipped: ${IGNORE}`);

/** The `docker` the test found on its PATH. */
const DOCKER = (Deno.env.get("PATH") ?? "").split(":").map((d) => join(d, "docker")).find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

/** A `docker` first on Pitroom's PATH that refuses `stop` while `dir/fail-stop` is there. */
async function dockerWrapper(dir: string): Promise<string> {
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  const script = [
    "#!/bin/sh",
    `[ "$1" = stop ] && [ -e ${join(dir, "fail-stop")} ] && { touch ${
      join(dir, "stop-refused")
    }; echo "Error: stop refused" >&2; exit 1; }`,
    `exec ${DOCKER} "$@"`,
    "",
  ].join("\n");
  await Deno.writeTextFile(join(bin, "docker"), script, { mode: 0o755 });
  return bin;
}

/**
 * A shell command asking for the session keyring's id (`keyctl(KEYCTL_GET_KEYRING_ID,
 * KEY_SPEC_SESSION_KEYRING)`, by the syscall's number) and printing what it returned and errno.
 */
const KEYCTL = `python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); r = l.syscall(${
  Deno.build.arch === "aarch64" ? 219 : 250
}, 0, -3, 0, 0, 0); print("keyctl", r, ctypes.get_errno())'`;

/** The containers of a run docker still lists, by its label or its name. */
async function leftovers(run: string): Promise<string[]> {
  const labelled = await engine("docker", [
    "ps",
    "-a",
    "--filter",
    `label=pitroom.run=${run}`,
    "--format",
    "{{.Names}}",
  ]);
  const all = await engine("docker", ["ps", "-a", "--format", "{{.Names}}"]);
  // A listing that failed would list nothing: it must have answered.
  assert.equal(labelled.code, 0, labelled.stderr);
  assert.equal(all.code, 0, all.stderr);
  const named = all.stdout.split("\n").filter((n) => n.includes(`pitroom-${run.toLowerCase()}`));
  return [...new Set([...labelled.stdout.split("\n").filter((n) => n !== ""), ...named])];
}

Deno.test({
  name:
    "hosts: an isolate run in a docker container: its patch applies; stop and a lost run leave no container",
  ignore: IGNORE !== false,
  async fn(t) {
    await using c = await containerWorld({
      boxed: {
        turns: [
          { read: "src/app.ts" },
          { edit: { path: "src/app.ts", old: "41", new: "43" } },
          { shell: "printf 'new file\\n' > added.txt && rm README.md" },
          // A secret-looking file reads empty in the container.
          { shell: "cat .env > leaked.txt 2>/dev/null; true" },
          { answer: "Set the answer to 43 in the container." },
        ],
      },
      // A syscall the profile refuses: keyctl (the kernel keyring is not namespaced).
      denied: {
        turns: [{ shell: `${KEYCTL} > keyctl.txt 2>&1; true` }, { answer: "Tried the keyring." }],
      },
      ...FOLLOW_SCENARIOS,
      stuck: {
        turns: [
          // Run after the first step's patch was applied: the tree holds 43 then.
          { edit: { path: "src/app.ts", old: "43", new: "99" } },
          { hang: true },
        ],
      },
    }, {
      engine: "docker",
      host: "box",
      setup: dockerWrapper,
      hosts: {
        // An image docker does not have (and no registry to pull it from).
        bare: {
          container: {
            image: "localhost/pitroom-missing:none",
            engine: "docker",
            mounts: ["/usr"],
          },
        },
      },
    });
    const { w } = c;
    /** `pitroom run --json -i -H box -W codex -m MODEL TASK`. */
    const onBox = (model: string, task: string) =>
      w.run(["run", "--json", "-i", "-H", "box", "-W", "codex", "-m", model, task], {
        env: c.env,
      });
    await t.step("edits, additions and deletions come back and apply", async () => {
      await Deno.writeTextFile(join(w.repo, "scratch.txt"), "untracked work\n");
      await Deno.writeTextFile(join(w.repo, ".env"), "TOKEN=hunter2\n");
      const out = await onBox("fake/boxed", "Make the answer 43");
      assert.equal(out.code, 0, out.stderr + out.stdout);
      const record = JSON.parse(out.stdout) as RunRecord;
      assert.equal(record.host, "box");
      assert.equal(record.attempts[0]?.sandbox, "container");
      assert.equal(record.state, "done", record.message);
      assert.ok(record.notes?.some((n) => /in a docker container/.test(n)), record.notes?.join());
      assert.deepEqual(record.changes?.files.map((f) => [f.path, f.status]).sort(), [
        ["README.md", "deleted"],
        ["added.txt", "added"],
        ["leaked.txt", "added"],
        ["src/app.ts", "modified"],
      ]);
      const events = await w.run(["show", record.id, "--events"]);
      assert.match(events.stdout, /worker\.tool_call/);
      assert.doesNotMatch(events.stdout, /\/box\b|box-objects/);
      assert.equal(await w.read("src/app.ts"), APP);
      const applied = await w.run(["apply", record.id, "--allow-delete"], { env: c.env });
      assert.equal(applied.code, 0, applied.stderr);
      assert.equal(await w.read("src/app.ts"), "export const answer = 43;\n");
      assert.equal(await w.read("added.txt"), "new file\n");
      assert.equal(await w.read("scratch.txt"), "untracked work\n");
      assert.equal(await w.read("README.md").catch(() => "gone"), "gone");
      assert.equal(await w.read("leaked.txt"), "");
      assert.deepEqual(await leftovers(record.id), []);
    });
    await t.step(
      "a syscall the seccomp profile refuses fails with EPERM in the container",
      async () => {
        const out = await onBox("fake/denied", "Try the keyring");
        assert.equal(out.code, 0, out.stderr + out.stdout);
        const record = JSON.parse(out.stdout) as RunRecord;
        assert.equal(record.state, "done", record.message);
        // Unconfined, the kernel answers with the keyring's id (errno 0).
        assert.equal(
          await Deno.readTextFile(join(record.isolation!.copyRoot, "keyctl.txt")),
          "keyctl -1 1\n",
        );
        assert.deepEqual(await leftovers(record.id), []);
      },
    );
    await t.step("an image that is not there: refused in one line, no container left", async () => {
      const before = await engine("docker", ["ps", "-a", "-q"]);
      const out = await w.run(["run", "-i", "-H", "bare", "-W", "codex", "-m", "fake/boxed", "x"], {
        env: c.env,
      });
      assert.equal(out.code, 3, out.stderr);
      assert.equal(out.stderr.trim().split("\n").length <= 2, true, out.stderr);
      assert.match(out.stderr, /Host "bare" \(docker localhost\/pitroom-missing:none\) cannot run/);
      assert.doesNotMatch(out.stderr, /See 'docker run --help'/);
      const after = await engine("docker", ["ps", "-a", "-q"]);
      assert.equal(after.code, 0, after.stderr);
      assert.equal(after.stdout, before.stdout);
    });
    await t.step(
      "pitroom stop: the run ends stopped, its container goes, the tree is untouched",
      async () => {
        const status = await gitStatus(w.repo);
        const id = await startStuck(c, "box");
        assert.notDeepEqual(await leftovers(id), [], "no container runs the worker");
        // What the worker changed until it was stopped came back into the copy, not the tree.
        await stopStuck(c, id);
        assert.deepEqual(await gitStatus(w.repo), status);
        assert.deepEqual(await leftovers(id), []);
      },
    );
    await t.step("a container killed mid-run: lost, the copy untouched, none left", async () => {
      const id = await startStuck(c, "box");
      const killed = await engine("docker", ["kill", `pitroom-${id.toLowerCase()}-1-worker`]);
      assert.equal(killed.code, 0, killed.stderr);
      await lostWithCopyUntouched(c, id, "box");
      assert.deepEqual(await leftovers(id), []);
    });
    await t.step(
      "pitroom stop where docker refuses to stop the container: it is removed, the run ends stopped",
      async () => {
        const refuse = join(c.dir, "fail-stop");
        await Deno.writeTextFile(refuse, "");
        try {
          const id = await startStuck(c, "box");
          await stopStuck(c, id);
          assert.ok(await Deno.stat(join(c.dir, "stop-refused")), "docker was not asked to stop");
          assert.deepEqual(await leftovers(id), []);
        } finally {
          await Deno.remove(refuse);
        }
      },
    );
    await t.step(
      "its supervisor killed -9 mid-run: lost, and the read that finds it removes its container",
      async () => {
        const id = await startStuck(c, "box");
        const supervisor = (await w.record(id)).supervisorPid!;
        Deno.kill(supervisor, "SIGKILL");
        await waitGone(supervisor);
        assert.notDeepEqual(await leftovers(id), [], "the container outlived its supervisor");
        const status = await w.run(["status", id, "--json"], { env: c.env });
        assert.equal(JSON.parse(status.stdout)[0].state, "lost");
        assert.deepEqual(await leftovers(id), []);
      },
    );
    await t.step(
      "--continue of a container run: the follow-up sees what the run before left; -H with it is refused",
      () => continueRun(c, "box", leftovers),
    );
    await t.step(
      "a fallback in a container run: the next attempt's container sees the attempt before's work",
      () => fallbackRun(c, "box", leftovers),
    );
    await t.step(
      "a crew of two on the host: both done, each with its own patch, no container left",
      () => crewOfTwo(c, "box", leftovers),
    );
    await t.step(
      "doctor: the engine and its daemon, and a daemon that does not answer",
      async () => {
        const rows = (stdout: string) =>
          stdout.split("\n").filter((l) => /^(ok|warn|error)\s+host box\b/.test(l));
        const up = await w.run(["doctor"], { env: c.env });
        const upRows = rows(up.stdout);
        assert.match(
          upRows.join("\n"),
          /^ok\s+host box\s+Docker version .* \(daemon \S+ reached\)$/m,
        );
        assert.match(upRows.join("\n"), /^ok\s+host box image\s+docker has the image/m);
        const down = await w.run(["doctor"], {
          env: { ...c.env, DOCKER_HOST: `unix://${c.dir}/none.sock` },
        });
        const downRows = rows(down.stdout);
        assert.equal(downRows.length, 1, down.stdout);
        assert.match(downRows[0]!, /^error\s+host box\s+the docker daemon cannot be reached: /);
        assert.match(down.stdout + down.stderr, /systemctl start docker \(or run dockerd\)/);
      },
    );
  },
});
