/**
 * An isolate run on a container host, end to end, against the real podman: the worker (the real
 * codex CLI, talking to the scripted model server over the host's loopback) runs in a pod started
 * with `podman kube play` from Pitroom's manifest, its events come from the container's log, the
 * files it changed come back into the copy and the patch applies with `pitroom apply`. A
 * container killed mid-run leaves the run lost with what arrived and the copy untouched; a
 * follow-up (`--continue`) and a fallback's next attempt find the work before them in their pod;
 * `pitroom stop` ends a run stopped; two runs at once each get their own pod and patch; no pod,
 * container or volume of the runs is left.
 *
 * This machine's podman needs three work-arounds a normal machine does not (docs/hosts.md): a
 * containers.conf without default ulimits, podman run in its own mount namespace with the cgroup
 * v1 `unified` mount gone and cgroupfs, and the image imported from a tiny local rootfs (no
 * registry is reachable) with the host's /usr and /etc mounted read-only into the pod. They live
 * in a `podman` wrapper put first on the PATH Pitroom runs with.
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
  PODMAN,
  podmanWrapper,
  startStuck as startStuckOn,
  stopStuck,
  waitGone,
} from "./_containers.ts";

const IGNORE = PODMAN === null ? (Deno.env.get("CI") ? false : "podman is not installed") : false;
if (typeof IGNORE === "string") console.log(`hosts_container_test: skipped: ${IGNORE}`);

/** The pods and containers of Pitroom's runs that podman still lists. */
async function leftovers(program: string, run: string): Promise<string[]> {
  const name = `pitroom-${run.toLowerCase()}`;
  const pods = await engine(program, ["pod", "ps", "--format", "{{.Name}}"]);
  const ctrs = await engine(program, ["ps", "-a", "--format", "{{.Names}}"]);
  // A listing that failed would list nothing: it must have answered.
  assert.equal(pods.code, 0, pods.stderr);
  assert.equal(ctrs.code, 0, ctrs.stderr);
  return `${pods.stdout}\n${ctrs.stdout}`.split("\n").filter((n) => n.includes(name));
}

Deno.test({
  name:
    "hosts: an isolate run in a podman pod: its patch comes back and applies; a killed container leaves the run lost",
  ignore: IGNORE !== false,
  async fn(t) {
    await using c = await containerWorld({
      boxed: {
        turns: [
          { read: "src/app.ts" },
          { edit: { path: "src/app.ts", old: "41", new: "43" } },
          { shell: "printf 'new file\\n' > added.txt && rm README.md" },
          // A secret-looking file reads empty; out of the copy lands in the pod's own root only.
          { shell: "cat .env > leaked.txt 2>/dev/null; printf x > ../../escaped.txt; true" },
          { answer: "Set the answer to 43 in the container." },
        ],
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
      engine: "podman",
      host: "pod",
      setup: podmanWrapper,
      hosts: {
        // An image podman does not have (and no registry to pull it from).
        bare: { container: { image: "localhost/pitroom-missing:none", mounts: ["/usr"] } },
      },
    });
    const { w } = c;
    /** A background run whose worker edits in its container, then hangs: its id, once it edited. */
    const startStuck = () => startStuckOn(c, "pod");
    await t.step("edits, additions and deletions come back and apply", async () => {
      await Deno.writeTextFile(join(w.repo, "scratch.txt"), "untracked work\n");
      await Deno.writeTextFile(join(w.repo, ".env"), "TOKEN=hunter2\n");
      const out = await w.run([
        "run",
        "--json",
        "-i",
        "-H",
        "pod",
        "-W",
        "codex",
        "-m",
        "fake/boxed",
        "Make the answer 43",
      ], { env: c.env });
      assert.equal(out.code, 0, out.stderr + out.stdout);
      const record = JSON.parse(out.stdout) as RunRecord;
      assert.equal(record.host, "pod");
      assert.equal(record.attempts[0]?.sandbox, "container");
      assert.equal(record.state, "done");
      assert.deepEqual(record.changes?.files.map((f) => [f.path, f.status]).sort(), [
        ["README.md", "deleted"],
        ["added.txt", "added"],
        ["leaked.txt", "added"],
        ["src/app.ts", "modified"],
      ]);
      const events = await w.run(["show", record.id, "--events"]);
      assert.match(events.stdout, /worker\.tool_call/);
      // The container's copy sat at the local copy's path: no path of its own shows.
      assert.doesNotMatch(events.stdout, /\/box\b|box-objects/);
      assert.equal(await w.read("src/app.ts"), APP);
      const applied = await w.run(["apply", record.id, "--allow-delete"]);
      assert.equal(applied.code, 0, applied.stderr);
      assert.equal(await w.read("src/app.ts"), "export const answer = 43;\n");
      assert.equal(await w.read("added.txt"), "new file\n");
      assert.equal(await w.read("scratch.txt"), "untracked work\n");
      assert.equal(await w.read("README.md").catch(() => "gone"), "gone");
      // The copy holds the secret (as any isolate run's): the container saw it covered.
      assert.equal(
        await Deno.readTextFile(join(record.isolation!.copyRoot, ".env")),
        "TOKEN=hunter2\n",
      );
      assert.equal(await w.read("leaked.txt"), "");
      assert.equal(await w.read(".env"), "TOKEN=hunter2\n");
      for (const up of ["..", "../.."]) {
        const at = join(record.isolation!.copyRoot, up, "escaped.txt");
        assert.equal(await Deno.stat(at).then(() => "there", () => "not there"), "not there");
      }
      assert.deepEqual(await leftovers(c.program, record.id), []);
    });
    await t.step("an image that is not there: refused in one line, no pod left", async () => {
      const out = await w.run(["run", "-i", "-H", "bare", "-W", "codex", "-m", "fake/boxed", "x"], {
        env: c.env,
      });
      assert.equal(out.code, 3, out.stderr);
      assert.match(out.stderr, /Host "bare" \(podman localhost\/pitroom-missing:none\) cannot run/);
      const pods = await engine(c.program, ["pod", "ps", "--format", "{{.Name}}"]);
      assert.equal(pods.code, 0, pods.stderr);
      assert.doesNotMatch(pods.stdout, /pitroom-.*-1\b/);
    });
    await t.step("a container killed mid-run: lost, the copy untouched, no pod left", async () => {
      const id = await startStuck();
      const killed = await engine(c.program, ["kill", `pitroom-${id.toLowerCase()}-1-worker`]);
      assert.equal(killed.code, 0, killed.stderr);
      await lostWithCopyUntouched(c, id, "pod");
      const events = await w.run(["show", id, "--events"]);
      assert.match(events.stdout, /worker\.tool_call/);
      assert.deepEqual(await leftovers(c.program, id), []);
    });
    await t.step(
      "its supervisor killed -9 mid-run: lost, and the read that finds it removes its pod",
      async () => {
        const id = await startStuck();
        const supervisor = (await w.record(id)).supervisorPid!;
        Deno.kill(supervisor, "SIGKILL");
        await waitGone(supervisor);
        assert.notDeepEqual(await leftovers(c.program, id), [], "the pod outlived its supervisor");
        const status = await w.run(["status", id, "--json"], { env: c.env });
        assert.equal(JSON.parse(status.stdout)[0].state, "lost");
        assert.deepEqual(await leftovers(c.program, id), []);
        assert.equal(
          await Deno.readTextFile(join((await w.record(id)).isolation!.copyRoot, "src/app.ts")),
          "export const answer = 43;\n",
        );
      },
    );
    const gone = (run: string) => leftovers(c.program, run);
    await t.step(
      "--continue of a container run: the follow-up sees what the run before left; -H with it is refused",
      () => continueRun(c, "pod", gone),
    );
    await t.step(
      "a fallback in a container run: the next attempt's pod sees the attempt before's work",
      () => fallbackRun(c, "pod", gone),
    );
    await t.step(
      "pitroom stop: the run ends stopped (its outcome), its pod goes, the tree is untouched",
      async () => {
        const status = await gitStatus(w.repo);
        const id = await startStuck();
        // What the worker changed until it was stopped came back into the copy, not the tree.
        await stopStuck(c, id);
        assert.deepEqual(await gitStatus(w.repo), status);
        assert.deepEqual(await leftovers(c.program, id), []);
      },
    );
    await t.step(
      "pitroom stop where podman refuses to stop the container: its pod is removed, the run ends stopped",
      async () => {
        const refuse = join(c.dir, "fail-stop");
        await Deno.writeTextFile(refuse, "");
        try {
          const id = await startStuck();
          await stopStuck(c, id);
          assert.deepEqual(await leftovers(c.program, id), []);
        } finally {
          await Deno.remove(refuse);
        }
      },
    );
    await t.step(
      "a crew of two on the pod: both done, each with its own patch, no pod left",
      () => crewOfTwo(c, "pod", gone),
    );
  },
});
