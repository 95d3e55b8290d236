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
import { alive, world } from "./_world.ts";
import { statePaths } from "../../src/store/paths.ts";
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
          // A link made and a link retargeted on the host come back as links, exactly.
          { shell: "ln -s src/app.ts made.lnk && ln -sfn added.txt old.lnk" },
          // Out of the copy, into the host's runs folder: the host's sandbox stops it.
          { shell: "printf x > ../../escaped.txt" },
          { answer: "Set the answer to 43 on the host." },
        ],
        // The follow-up's worker must find the file the run before made.
        followup: [{ shell: "cat added.txt > again.txt" }, { answer: "Copied it." }],
      },
    };
    await using probe = await world(scenarios);
    const remoteDir = join(probe.stateDir, "..", "remote-work");
    await using w = await world(scenarios, {
      config: { hosts: { box: hostEntry(sshd, probe.env, remoteDir) } },
    });
    await Deno.writeTextFile(join(w.repo, "scratch.txt"), "untracked work\n");
    await Deno.symlink("src/app.ts", join(w.repo, "old.lnk"));
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
      ["made.lnk", "added"],
      ["old.lnk", "modified"],
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
    assert.equal(await Deno.readLink(join(w.repo, "made.lnk")), "src/app.ts");
    assert.equal(await Deno.readLink(join(w.repo, "old.lnk")), "added.txt");
    // The host keeps the repository's states, and nothing of the run (nor what the worker wrote
    // outside its copy).
    const runs = [...Deno.readDirSync(join(remoteDir, "runs"))];
    assert.deepEqual(runs, []);
    const ls = await w.run(["ls"]);
    assert.match(ls.stdout, /box/);
    // A follow-up runs on the same host, in a copy there made from the local copy as it stands.
    const next = await runJson(w, ["--continue", record.id, "Copy the new file"]);
    assert.equal(next.code, 0, `${next.stderr}\n${await sshd.log()}`);
    assert.equal(next.record?.state, "done", next.record?.message);
    assert.equal(next.record?.host, "box");
    assert.equal(next.record?.answer?.trim(), "Copied it.");
    const copy = next.record!.isolation!.copyRoot;
    assert.equal(await Deno.readTextFile(join(copy, "again.txt")), "new file\n");
    assert.equal(await Deno.readTextFile(join(copy, "src/app.ts")), "export const answer = 43;\n");
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
    }, { timeoutMs: 120_000, what: "the host's worker to report its edit" });
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

Deno.test({
  name:
    "hosts: doctor's Hosts section reports a reachable host's git, Pitroom, bwrap and workers, and a host that is down in one line",
  ignore: IGNORE !== false,
  async fn() {
    await using sshd = await startSshd();
    // A port nothing listens on: a host that is down.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closed = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await using probe = await world({});
    const box = hostEntry(sshd, probe.env, join(probe.stateDir, "..", "remote-work"));
    const down = { ...box, port: closed };
    const doctor = async (hosts: Record<string, unknown>) => {
      await using w = await world({}, { config: { hosts } });
      return await w.run(["doctor"]);
    };
    // The rows of the Hosts section (each row starts with its status; the next title ends it).
    const hostLines = (stdout: string) => {
      const all = stdout.split("\n");
      const from = all.indexOf("Hosts") + 1;
      const rows: string[] = [];
      for (const l of from > 0 ? all.slice(from) : []) {
        if (!/^(ok|warn|error|skip)\s/.test(l)) break;
        rows.push(l);
      }
      return rows;
    };

    // One doctor (the host's probe starts every worker CLI there once): the host that is up and
    // the one that is down.
    const out = await doctor({ box, down });
    const lines = hostLines(out.stdout);
    const line = (check: string) => lines.find((l) => new RegExp(`^\\S+\\s+${check}\\s`).test(l));
    assert.match(line("host box") ?? "", /^ok\s+host box\s+\S+@127\.0\.0\.1 reached$/, out.stdout);
    assert.match(line("host box git") ?? "", /^ok .* git version \d+\.\d+/);
    assert.match(line("host box pitroom") ?? "", /^ok .* pitroom \d+\.\d+\.\d+/);
    assert.match(line("host box bwrap") ?? "", /^ok .* bubblewrap \d+\.\d+/);
    assert.match(line("host box workers") ?? "", /^ok .*\bcodex\b.*\d+\.\d+\.\d+/);

    const downLines = hostLines(out.stdout).filter((l) => /\bhost down\b/.test(l));
    assert.equal(downLines.length, 1, out.stdout);
    assert.match(
      downLines[0]!,
      /^error\s+host down\s+\S+@127\.0\.0\.1 cannot be reached: .*[Cc]onnection refused · ssh \S+ true$/,
    );
    // As documented (docs/troubleshooting.md): a failed check is a refusal, exit 3, in one line.
    assert.equal(out.code, 3, out.stderr);
    assert.match(
      out.stderr,
      /^pitroom: 1 check failed: \S+@127\.0\.0\.1 cannot be reached: .*\nhint: ssh \S+ true\n$/,
    );
  },
});

/** The pids of `root`'s descendants named sshd* (the server's sessions), deepest last. */
async function sshdSessions(root: number): Promise<number[]> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "pid=,ppid=,comm="] }).output();
  const rows = new TextDecoder().decode(ps.stdout).split("\n").flatMap((l) => {
    const [pid, ppid, comm] = l.trim().split(/\s+/);
    return pid && ppid && comm ? [{ pid: Number(pid), ppid: Number(ppid), comm }] : [];
  });
  const out: number[] = [];
  const walk = (parent: number) => {
    for (const r of rows.filter((r) => r.ppid === parent && r.comm.startsWith("sshd"))) {
      out.push(r.pid);
      walk(r.pid);
    }
  };
  walk(root);
  return out;
}

Deno.test({
  name:
    "hosts, hostile: a name that is not UTF-8 is refused whole, a frame leading out of the copy is refused, the host cleans up after a local kill -9 and after sshd dies",
  ignore: IGNORE !== false,
  async fn() {
    await using sshd = await startSshd();
    const scenarios = {
      odd: {
        turns: [
          { edit: { path: "src/app.ts", old: "41", new: "42" } },
          { shell: "printf x > \"$(printf 'bad\\351.txt')\"" },
          { answer: "Made a file with an odd name." },
        ],
      },
      stuck: {
        turns: [
          { edit: { path: "src/app.ts", old: "41", new: "99" } },
          { hang: true },
        ],
      },
    };
    await using probe = await world(scenarios);
    const remoteDir = join(probe.stateDir, "..", "remote-work");
    const box = hostEntry(sshd, probe.env, remoteDir);
    const hostile = new URL("./_hostile_host.ts", import.meta.url).pathname;
    const evil = {
      ...box,
      pitroom: [Deno.execPath(), "run", "-A", "--no-lock", hostile, "../outside.txt"].map(quote)
        .join(" "),
    };
    await using w = await world(scenarios, { config: { hosts: { box, evil } } });
    const remoteRuns = async () =>
      (await Array.fromAsync(Deno.readDir(join(remoteDir, "runs"))).catch(() => [])).length;
    const copyApp = async (id: string) =>
      await Deno.readTextFile(join((await w.record(id)).isolation!.copyRoot, "src/app.ts"));

    // A file whose name is not UTF-8: refused in one line naming it, nothing half-written.
    const odd = await runJson(w, ["-i", "-H", "box", "-W", "codex", "-m", "fake/odd", "odd"]);
    assert.ok(odd.record, odd.stderr);
    assert.equal(odd.record.state, "lost", odd.stderr);
    assert.match(
      odd.record.message ?? "",
      /Host "box" sent back what cannot be taken \(the worker made "bad\\xe9\.txt", a name that is not UTF-8, which cannot be written into the copy here\); nothing was written into the copy/,
    );
    assert.equal(await copyApp(odd.record.id), APP);
    // The local side cut the connection once it refused the frame; the host's side sees its
    // channel close and removes its folder then, after the local run has ended.
    await waitFor(async () => (await remoteRuns()) === 0, {
      timeoutMs: 20_000,
      what: "the host to clean up after its answer was refused",
    });

    // A host whose frame names a path outside the copy: refused, nothing written anywhere.
    const bad = await runJson(w, ["-i", "-H", "evil", "-W", "codex", "-m", "fake/odd", "evil"]);
    assert.ok(bad.record, bad.stderr);
    assert.equal(bad.record.state, "lost");
    assert.match(
      bad.record.message ?? "",
      /Host "evil" sent back what cannot be taken \(the host returned a bad path: "\.\.\/outside\.txt" is not a plain path inside the copy\)/,
    );
    const copyRoot = bad.record.isolation!.copyRoot;
    assert.equal(await Deno.lstat(join(copyRoot, "..", "outside.txt")).catch(() => null), null);
    assert.equal(await copyApp(bad.record.id), APP);

    const start = async (task: string) => {
      const started = await w.run(
        ["run", "--bg", "-i", "-H", "box", "-W", "codex", "-m", "fake/stuck", task],
      );
      assert.equal(started.code, 0, started.stderr);
      const id = started.stdout.trim().split(/\s+/)[0]!;
      await waitFor(async () => {
        const r = await w.record(id).catch(() => null);
        return (r?.progress.tools ?? 0) > 0 && r?.attempts.at(-1)?.workerPid !== undefined;
      }, { timeoutMs: 120_000, what: "the host's worker to report its edit" });
      return id;
    };

    // The local Pitroom killed -9 mid-run: the host's side sees its channel close, stops the
    // worker and removes its folder; the ssh client does not stay behind.
    const killed = await start("killed here");
    const ssh = (await w.record(killed)).attempts.at(-1)!.workerPid!;
    const local = Number(await Deno.readTextFile(statePaths(w.stateDir).host.pid));
    Deno.kill(local, "SIGKILL");
    await waitFor(async () => (await remoteRuns()) === 0 && !(await alive(ssh)), {
      timeoutMs: 30_000,
      what: "the host to clean up after the local Pitroom was killed",
    });
    assert.equal(await copyApp(killed), APP);

    // sshd killed mid-run (its sessions and the server): the run ends lost with what arrived,
    // the local copy untouched, and the host's side cleans up.
    const dropped = await start("sshd dies");
    for (const pid of [...await sshdSessions(sshd.pid), sshd.pid]) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone already */ }
    }
    await waitFor(async () => (await w.record(dropped)).state !== "running", {
      timeoutMs: 30_000,
      what: "the run to end",
    });
    const record = await w.record(dropped);
    assert.equal(record.state, "lost");
    assert.match(record.message ?? "", /connection to host "box" was lost while the worker ran/);
    assert.deepEqual(record.changes?.files ?? [], []);
    assert.equal(await copyApp(dropped), APP);
    assert.match((await w.run(["show", dropped, "--events"])).stdout, /worker\.tool_call/);
    await waitFor(async () => (await remoteRuns()) === 0, {
      timeoutMs: 20_000,
      what: "the host to clean up after sshd died",
    });
  },
});
