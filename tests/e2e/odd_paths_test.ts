/**
 * Paths that hold a line break, through the real CLI (the fake worker): a repository whose path
 * has one (git answers several paths a line each), and a state folder whose path has one (the
 * copies' alternates are a file of one path a line). Write, isolate (then apply) and read runs
 * work there; human output shows the break escaped, `--json` keeps it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { crewWorld, task } from "../crew/_world.ts";

async function gitRepo(dir: string, home: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", {
      args,
      cwd: dir,
      env: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" },
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  };
  await git("init", "-q");
  await Deno.writeTextFile(join(dir, "a.txt"), "one\n");
  await git("add", "a.txt");
  await git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start");
}

Deno.test("a line break in the paths of the repository and the state folder: -w, -i with apply, and -r work", async () => {
  await using w = await crewWorld({});
  const repo = join(w.dir, "odd\nrepo");
  await gitRepo(repo, w.env.HOME!);
  w.env.PITROOM_STATE_DIR = join(w.dir, "odd\nstate");
  const write = await w.run([
    "run",
    "-w",
    "-d",
    repo,
    task("Add b", [{ writeFile: "b.txt", content: "two\n" }, { answer: "added" }]),
  ]);
  assert.equal(write.code, 0, write.stderr);
  assert.match(write.stdout, /A b\.txt/);
  assert.equal(await Deno.readTextFile(join(repo, "b.txt")), "two\n");
  const isolate = await w.run([
    "run",
    "-i",
    "--json",
    "-d",
    repo,
    task("Add c", [{ writeFile: "c.txt", content: "three\n" }, { answer: "added" }]),
  ]);
  assert.equal(isolate.code, 0, isolate.stderr);
  const report = JSON.parse(isolate.stdout);
  assert.equal(report.cwd, await Deno.realPath(repo));
  const applied = await w.run(["apply", report.id]);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(await Deno.readTextFile(join(repo, "c.txt")), "three\n");
  const read = await w.run(["run", "-d", repo, task("Look", [{ answer: "looked" }])]);
  assert.equal(read.code, 0, read.stderr);
  // A message naming the path keeps to one line: the break is shown as \n.
  const outside = await w.run(["run", "-i", "-d", join(repo, "..", "missing\ndir"), "x"]);
  assert.notEqual(outside.code, 0);
  assert.ok(outside.stderr.trimEnd().split("\n").length <= 2, outside.stderr);
});
