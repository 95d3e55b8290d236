/**
 * An isolate run on an SSH host, end to end: a real OpenSSH server on 127.0.0.1 (this machine is
 * the "remote" side: its Pitroom, git and the real codex CLI, talking to the scripted model
 * server), the copy shipped as a bundle, the worker's events streamed back live, the changed
 * files written into the local copy, the patch applied with `pitroom apply`. A dropped
 * connection leaves the run lost with nothing written into the copy; a host that is down and a
 * read run with a host are refused or end in one line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SSHD, type Sshd, startSshd } from "../support/sshd.ts";
import { moduleCacheEnv, pitroomArgv } from "../support/pitroom.ts";
import { waitFor } from "../support/temp.ts";
import { world } from "./_world.ts";
import type { RunRecord } from "../../src/store/record.ts";

const APP = "export const answer = 41;\n";
const IGNORE = SSHD === null
  ? (Deno.env.get("CI") ? false : "openssh-server is not installed (/usr/sbin/sshd)")
  : false;
if (typeof IGNORE === "string") console.log(`hosts_ssh_test: skipped: ${IGNORE}`);

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The config's host entry for `sshd`, its Pitroom this test's program, its env the workers'. */
function hostEntry(sshd: Sshd, env: Record<string, string>, dir: string) {
  return {
    ssh: sshd.destination,
    port: sshd.port,
    identity: sshd.key,
    options: sshd.options,
    dir,
    pitroom: pitroomArgv().map(quote).join(" "),
    env: {
      ...moduleCacheEnv(),
      ...Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("PITROOM_"))),
      NO_COLOR: "1",
    },
  };
}

async function runJson(
  w: { run: (a: string[]) => Promise<{ code: number; stdout: string; stderr: string }> },
  args: string[],
) {
  const out = await w.run(["run", "--json", ...args]);
  let record: RunRecord | null = null;
  try {
    record = JSON.parse(out.stdout) as RunRecord;
  } catch {
    // The caller asserts on the code and stderr.
  }
  return { ...out, record };
}

Deno.test({
  name:
    "hosts: an isolate run on an SSH host edits a shipped copy; its patch comes back and applies",
  ignore: IGNORE !== false,
  async fn() {
    await using sshd = await startSshd();
    const scenarios = {
      remote: {
        turns: [
          { read: "src/app.ts" },
          { edit: { path: "src/app.ts", old: "41", new: "43" } },
          { shell: "printf 'new file\\n' > added.txt && rm README.md" },
          // Out of the copy, into the host's runs folder: the host's sandbox stops it.
          { shell: "printf x > ../../escaped.txt" },
          { answer: "Set the answer to 43 on the host." },
        ],
      },
    };
    await using probe = await world(scenarios);
    const remoteDir = join(probe.stateDir, "..", "remote-work");
    await using w = await world(scenarios, {
      config: { hosts: { box: hostEntry(sshd, probe.env, remoteDir) } },
    });
    await Deno.writeTextFile(join(w.repo, "scratch.txt"), "untracked work\n");
    const { code, record, stderr } = await runJson(w, [
      "-i",
      "-H",
      "box",
      "-W",
      "codex",
      "-m",
      "fake/remote",
      "Make the answer 43",
    ]);
    assert.equal(code, 0, `${stderr}\n${await sshd.log()}`);
    assert.ok(record);
    assert.equal(record.host, "box");
    assert.equal(record.attempts[0]?.sandbox, "bwrap");
    assert.equal(record.state, "done");
    assert.deepEqual(record.changes?.files.map((f) => [f.path, f.status]).sort(), [
      ["README.md", "deleted"],
      ["added.txt", "added"],
      ["src/app.ts", "modified"],
    ]);
    // The events came from the host's worker, its paths told as the local copy's.
    const events = await w.run(["show", record.id, "--events"]);
    assert.match(events.stdout, /worker\.tool_call/);
    assert.doesNotMatch(events.stdout, /remote-work/);
    // The user's tree is untouched until apply; then exactly the patch lands.
    assert.equal(await w.read("src/app.ts"), APP);
    const applied = await w.run(["apply", record.id, "--allow-delete"]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(await w.read("src/app.ts"), "export const answer = 43;\n");
    assert.equal(await w.read("added.txt"), "new file\n");
    assert.equal(await w.read("scratch.txt"), "untracked work\n");
    // The host keeps the repository's states, and nothing of the run (nor what the worker wrote
    // outside its copy).
    const runs = [...Deno.readDirSync(join(remoteDir, "runs"))];
    assert.deepEqual(runs, []);
    const ls = await w.run(["ls"]);
    assert.match(ls.stdout, /box/);
  },
});

Deno.test({
  name: "hosts: a dropped connection leaves the run lost with what arrived, the copy untouched",
  ignore: IGNORE !== false,
  async fn() {
    await using sshd = await startSshd();
    const scenarios = {
      stuck: {
        turns: [
          { edit: { path: "src/app.ts", old: "41", new: "99" } },
          { hang: true },
        ],
      },
    };
    await using probe = await world(scenarios);
    const remoteDir = join(probe.stateDir, "..", "remote-work");
    await using w = await world(scenarios, {
      config: { hosts: { box: hostEntry(sshd, probe.env, remoteDir) } },
    });
    const started = await w.run([
      "run",
      "--bg",
      "-i",
      "-H",
      "box",
      "-W",
      "codex",
      "-m",
      "fake/stuck",
      "Change the answer",
    ]);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim().split(/\s+/)[0]!;
    // The worker's edit arrived (it is in the events), then the connection drops.
    await waitFor(async () => {
      const r = await w.record(id).catch(() => null);
      return (r?.progress.tools ?? 0) > 0 && r?.attempts.at(-1)?.workerPid !== undefined;
    }, { timeoutMs: 30_000, what: "the host's worker to report its edit" });
    const ssh = (await w.record(id)).attempts.at(-1)!.workerPid!;
    Deno.kill(ssh, "SIGKILL");
    await waitFor(async () => (await w.record(id)).state !== "running", {
      timeoutMs: 30_000,
      what: "the run to end",
    });
    const record = await w.record(id);
    assert.equal(record.state, "lost");
    assert.match(record.message ?? "", /connection to host "box" was lost while the worker ran/);
    assert.deepEqual(record.changes?.files ?? [], []);
    // Nothing the worker did on the host was written into the local copy.
    assert.equal(await Deno.readTextFile(join(record.isolation!.copyRoot, "src/app.ts")), APP);
    const events = await w.run(["show", id, "--events"]);
    assert.match(events.stdout, /worker\.tool_call/);
    // The host stopped its worker and removed its folder.
    await waitFor(async () => {
      const runs = await Array.fromAsync(Deno.readDir(join(remoteDir, "runs"))).catch(() => []);
      return runs.length === 0;
    }, { timeoutMs: 20_000, what: "the host to clean up the lost run" });
  },
});

Deno.test({
  name: "hosts: a host that is down, a read run and a bad host entry are refused in one line",
  ignore: IGNORE !== false,
  async fn() {
    await using sshd = await startSshd();
    const port = sshd.port;
    await sshd[Symbol.asyncDispose]();
    await using w = await world({}, {
      config: {
        hosts: {
          down: {
            ssh: "root@127.0.0.1",
            port,
            options: ["StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null"],
          },
          bad: { ssh: "-oProxyCommand=touch /tmp/x" },
        },
      },
    });
    const down = await w.run(["run", "-i", "-H", "down", "-W", "codex", "task"]);
    assert.equal(down.code, 3, down.stderr);
    assert.match(down.stderr, /Host "down" \(root@127\.0\.0\.1\) cannot run the worker: .*refused/);
    const read = await w.run(["run", "-H", "down", "-W", "codex", "task"]);
    assert.equal(read.code, 2);
    assert.match(
      read.stderr,
      /-H runs isolate runs only \(-i\): a read run works in your tree here/,
    );
    const bad = await w.run(["run", "-i", "-H", "bad", "-W", "codex", "task"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Host "bad" in the config's "hosts": "ssh" should be a destination/);
    const unknown = await w.run(["run", "-i", "-H", "nope", "-W", "codex", "task"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown host "nope"/);
  },
});
