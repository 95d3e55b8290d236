import assert from "node:assert/strict";
import { join } from "node:path";
import { writeGitGuard } from "../../src/vcs/guard.ts";
import { DENIED_GIT_SUBCOMMANDS } from "../../src/workers/_floor.ts";
import { findOnPath } from "../../src/workers/_detect.ts";
import { git, tempDir, tempRepo } from "../support/temp.ts";

async function shell(cwd: string, guardDir: string, command: string) {
  const out = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    stdin: "null",
    env: {
      PATH: `${guardDir}:${Deno.env.get("PATH")}`,
      HOME: cwd,
      GIT_AUTHOR_NAME: "w",
      GIT_AUTHOR_EMAIL: "w@example.invalid",
      GIT_COMMITTER_NAME: "w",
      GIT_COMMITTER_EMAIL: "w@example.invalid",
    },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function world() {
  const repo = await tempRepo({ "a.txt": "one\n" });
  const dir = await tempDir("pitroom-guard-");
  const realGit = findOnPath("git", Deno.env.toObject());
  assert.ok(realGit);
  await writeGitGuard(dir.path, { realGit, denied: DENIED_GIT_SUBCOMMANDS });
  return {
    repo,
    dir,
    run: (command: string) => shell(repo.path, dir.path, command),
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("the git guard refuses history, ref and index changes, however they are spelled", async () => {
  await using w = await world();
  await Deno.writeTextFile(join(w.repo.path, "a.txt"), "two\n");
  const head = await git(w.repo.path, "rev-parse", "HEAD");
  await git(w.repo.path, "config", "alias.ci", "commit -a");
  for (
    const command of [
      "git commit -qam x",
      "git -C . commit -qam x",
      "git -c user.name=x commit -qam x",
      "sh -c 'git push origin main'",
      "git ci -qm x",
      "git add a.txt",
      "git stash",
      "git reset --hard",
      "git branch -D main",
      "git checkout -- a.txt",
    ]
  ) {
    const r = await w.run(command);
    assert.equal(r.code, 1, command);
    assert.match(r.stderr, /pitroom: `git [^`]+` is not allowed in a worker run/, command);
  }
  assert.equal(await git(w.repo.path, "rev-parse", "HEAD"), head);
  assert.equal(await Deno.readTextFile(join(w.repo.path, "a.txt")), "two\n");
  assert.equal((await git(w.repo.path, "diff", "--cached", "--name-only")).trim(), "");
  assert.equal((await git(w.repo.path, "stash", "list")).trim(), "");
});

Deno.test("the git guard passes reading commands through to the real git", async () => {
  await using w = await world();
  for (
    const command of [
      "git status --short",
      "git log --oneline -1",
      "git diff",
      "git branch",
      "git -C . show --stat HEAD",
    ]
  ) {
    const r = await w.run(command);
    assert.equal(r.code, 0, `${command}: ${r.stderr}`);
  }
  assert.match((await w.run("git log --oneline -1")).stdout, /init/);
});

Deno.test("the git guard refuses a shell alias outright", async () => {
  await using w = await world();
  await git(w.repo.path, "config", "alias.sneak", "!git commit -qam x");
  const r = await w.run("git sneak");
  assert.equal(r.code, 1);
  assert.match(r.stderr, /shell alias/);
});
