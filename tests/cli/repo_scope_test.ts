/**
 * The real program (main.ts under the compile permissions) over two repositories, the runs made
 * by the scriptable fake worker (tests/crew/_fake_pitroom.ts): `last` and parts of ids mean the
 * current repository's runs, a run of another one is reached by its full id and every command
 * that acts on it names its repository; a damaged record of such a run is named, and `wait`
 * ends on a damaged events file instead of answering "still going".
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fakePitroomArgv, task } from "../crew/_world.ts";
import { moduleCacheEnv, pitroom, type PitroomResult } from "../support/pitroom.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

async function twoRepos() {
  const root = await tempDir("pitroom-scope-");
  const repo = await tempRepo({ "a.txt": "one\n" });
  const repo2 = await tempRepo({ "a.txt": "two\n" });
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: root.path,
    PITROOM_STATE_DIR: join(root.path, "state"),
    PITROOM_CONFIG: join(root.path, "config.json"),
  };
  /** The real program in `cwd`. */
  const real = (cwd: string, args: string[]) => pitroom(args, { env, cwd });
  /** The program with the fake worker, in `cwd` (a run's task carries its script). */
  const fake = async (cwd: string, args: string[]): Promise<PitroomResult> => {
    const [cmd, ...rest] = fakePitroomArgv();
    const out = await new Deno.Command(cmd!, {
      args: [...rest, ...args],
      cwd,
      env: { NO_COLOR: "1", ...moduleCacheEnv(), ...env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  };
  return {
    repo: await Deno.realPath(repo.path),
    repo2: await Deno.realPath(repo2.path),
    state: env.PITROOM_STATE_DIR,
    real,
    fake,
    async [Symbol.asyncDispose]() {
      for (const d of [repo, repo2, root]) await d[Symbol.asyncDispose]();
    },
  };
}

const idOf = (r: PitroomResult) => (JSON.parse(r.stdout) as { id: string }).id;

Deno.test("`last` means this repository: a write run in repo2 is never reverted from repo", async () => {
  await using w = await twoRepos();
  const edit = task("Edit a.txt", [{ writeFile: "a.txt", content: "worker\n" }, { answer: "did" }]);
  const made = await w.fake(w.repo2, ["run", "-w", "--json", edit]);
  assert.equal(made.code, 0, made.stderr);
  const id = idOf(made);
  const copy = task("Add b.txt", [{ writeFile: "b.txt", content: "b\n" }, { answer: "did" }]);
  const isolated = idOf(await w.fake(w.repo2, ["run", "-i", "--json", copy]));

  // From repo: nothing of repo2's is `last`, nor reached by a part of its id.
  const last = await w.real(w.repo, ["revert", "last"]);
  assert.equal(last.code, 2, last.stderr);
  assert.match(last.stderr, /No runs in this repository \(".*"\) yet/);
  assert.equal(await Deno.readTextFile(join(w.repo2, "a.txt")), "worker\n");
  const part = await w.real(w.repo, ["revert", id.slice(-4)]);
  assert.equal(part.code, 2);
  assert.match(part.stderr, new RegExp(`it names run "${id}" of "${w.repo2}"`));
  assert.match(part.stderr, new RegExp(`hint: .*full id: ${id}`));
  assert.equal(await Deno.readTextFile(join(w.repo2, "a.txt")), "worker\n");

  // The lists: this repository's by default, every one's with --all (and a REPO column).
  const ls = await w.real(w.repo, ["ls"]);
  assert.equal(ls.code, 0);
  assert.equal(ls.stdout, "");
  assert.match(ls.stderr, /No runs yet in this repository .*`pitroom ls --all`/);
  const all = await w.real(w.repo, ["ls", "--all"]);
  assert.match(all.stdout, /^RUN\s+REPO\s+STATE/);
  assert.match(all.stdout, new RegExp(`${id}\\s+\\S*${w.repo2.split("/").at(-1)}\\s+done`));
  const json = JSON.parse((await w.real(w.repo, ["status", "--all", "--json"])).stdout);
  assert.deepEqual(json.map((r: { repo: string }) => r.repo), [w.repo2, w.repo2]);
  // From repo2 (or naming it with -d), `last` is its newest run.
  assert.match((await w.real(w.repo2, ["show", "last"])).stdout, new RegExp(`^run ${isolated}`));
  const there = await w.real(w.repo, ["show", id.slice(-4), "-d", w.repo2, "--json"]);
  assert.equal(JSON.parse(there.stdout).id, id);

  // A full id reaches it, and the commands that act on it name its repository.
  const stopped = await w.real(w.repo, ["stop", id]);
  assert.match(stopped.stdout, new RegExp(`^${id}  done \\(ok\\)  in ${w.repo2}$`, "m"));
  const applied = await w.real(w.repo, ["apply", isolated]);
  assert.equal(applied.code, 0, applied.stderr);
  assert.match(applied.stdout, new RegExp(`^applied ${isolated} in ${w.repo2}: 1 file`));
  assert.equal(await Deno.readTextFile(join(w.repo2, "b.txt")), "b\n");
  const reverted = await w.real(w.repo, ["revert", id]);
  assert.equal(reverted.code, 0, reverted.stderr);
  assert.match(reverted.stdout, new RegExp(`^reverted 1 file\\(s\\) of ${id} in ${w.repo2}:`));
  assert.equal(await Deno.readTextFile(join(w.repo2, "a.txt")), "two\n");
  assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "one\n");
});

Deno.test("a damaged record through the real program: named, revert from the patch, wait ends", async () => {
  await using w = await twoRepos();
  const edit = task("Edit a.txt", [{ writeFile: "a.txt", content: "worker\n" }, { answer: "did" }]);
  const id = idOf(await w.fake(w.repo2, ["run", "-w", "--json", edit]));
  const run = join(w.state, "runs", id);

  // The events file cut short: the run ended (its record says so); never "still going".
  const gz = await Deno.readFile(join(run, "events.jsonl.gz"));
  await Deno.writeFile(join(run, "events.jsonl.gz"), gz.subarray(0, gz.length / 2));
  const waited = await w.real(w.repo2, ["wait", id, "--timeout", "30"]);
  assert.equal(waited.code, 0, waited.stderr);
  assert.match(waited.stderr, /events\.jsonl\.gz is damaged \(not a whole gzip stream/);
  assert.match(waited.stderr, new RegExp(`still works: .*\`pitroom revert ${id}\``));
  const watched = await w.real(w.repo2, ["watch", id, "--json"]);
  assert.equal(watched.code, 0, watched.stderr);
  assert.match(watched.stdout, /"event":"all-done"/);
  const shown = await w.real(w.repo2, ["show", id]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.doesNotMatch(shown.stderr, /unexpected error/);
  const events = await w.real(w.repo2, ["show", id, "--events"]);
  assert.equal(events.code, 7);

  // run.json cut short: `show` from the history, `revert` from the patch, named each time.
  const record = await Deno.readTextFile(join(run, "run.json"));
  await Deno.writeTextFile(join(run, "run.json"), record.slice(0, record.length / 3));
  const fromHistory = await w.real(w.repo2, ["show", id]);
  assert.equal(fromHistory.code, 0, fromHistory.stderr);
  assert.match(fromHistory.stdout, new RegExp(`^run ${id} · done · write`));
  assert.match(fromHistory.stderr, /run\.json is damaged \(cut short or not JSON\)/);
  const status = await w.real(w.repo2, ["status", id]);
  assert.equal(status.code, 7);
  assert.match(status.stderr, /run\.json is damaged/);
  assert.doesNotMatch(status.stderr, /No run|cleaned/);
  const reverted = await w.real(w.repo, ["revert", id]);
  assert.equal(reverted.code, 0, reverted.stderr);
  assert.match(
    reverted.stdout,
    new RegExp(`^reverted 1 file\\(s\\) of ${id} in ${w.repo2} from its patch`),
  );
  assert.match(reverted.stderr, /run\.json is damaged/);
  assert.equal(await Deno.readTextFile(join(w.repo2, "a.txt")), "two\n");
  const again = await w.real(w.repo, ["revert", id]);
  assert.equal(again.code, 3);
  assert.match(again.stderr, /its patch is not in the tree \(undone already\)/);

  // The history is rebuilt from nothing: the run is listed as not read, never dropped silently.
  await Deno.remove(join(w.state, "history.db"));
  const imported = await w.real(w.repo2, ["history", "import"]);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, new RegExp(`not read: ${id} run\\.json is damaged`));
  const gone = await w.real(w.repo2, ["show", id]);
  assert.equal(gone.code, 7);
  assert.match(
    gone.stderr,
    new RegExp(`run\\.json is damaged .*still works: \`pitroom show ${id} --patch\``),
  );
});
