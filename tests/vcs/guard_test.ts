import assert from "node:assert/strict";
import { join } from "node:path";
import {
  FORM_CHECKERS,
  gitShimScript,
  guardFiles,
  guardGitEnv,
  writeGuard,
} from "../../src/confine/guard/mod.ts";
import { statePaths } from "../../src/store/paths.ts";
import { anyCase } from "../../src/confine/guard/sh.ts";
import { DENIED_GIT_SUBCOMMANDS, GIT_FORMS, PUBLISHING } from "../../src/confine/floor.ts";
import { git, tempDir, tempRepo } from "../support/temp.ts";

async function world() {
  const repo = await tempRepo({ "a.txt": "one\n" });
  const state = await tempDir("pitroom-guard-");
  const guard = await writeGuard(statePaths(state.path).guard);
  const env = {
    PATH: `${guard.bin}:${Deno.env.get("PATH")}`,
    HOME: repo.path,
    GIT_CONFIG_NOSYSTEM: "1",
    ...guardGitEnv({}, guard.hooks),
  };
  return {
    repo,
    guard,
    async run(command: string) {
      const out = await new Deno.Command("sh", {
        args: ["-c", command],
        cwd: repo.path,
        stdin: "null",
        env,
        clearEnv: true,
      }).output();
      const dec = new TextDecoder();
      return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
    },
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

const READS = [
  "git status --short",
  "git log --oneline -1",
  "git -C . show --stat HEAD",
  "git -c color.ui=never diff",
  "git branch",
  "git branch -a",
  "git branch -vv",
  "git branch --list 'm*'",
  "git branch --show-current",
  "git branch --contains HEAD",
  "git tag",
  "git tag -l 'v*'",
  "git tag -n5",
  "git config --get user.name || true",
  "git config --list",
  "git config -l",
  "git config --get-regexp '^core'",
  "git remote",
  "git remote -v",
  "git stash list",
  "git worktree list",
  "git notes list",
  "git reflog -1",
  "git reflog show -1",
  "git symbolic-ref HEAD",
  "git symbolic-ref --short HEAD",
  "git submodule status",
  "git apply --check --allow-empty /dev/null",
  "git --version",
];

const WRITES = [
  "git commit -qm x",
  "git COMMIT -qm x",
  "git stage a.txt",
  "git fetch",
  "git pull",
  "git branch new",
  "git branch -D main",
  "git branch -dr origin/x",
  "git branch --set-upstream-to=origin/main",
  "git branch -m other",
  "git tag v1",
  "git tag -d v1",
  "git tag -a v1 -m x",
  "git tag -am x v1",
  "git config user.name x",
  "git config user.name",
  "git config set user.name x",
  "git config --unset user.name",
  "git config --global alias.x commit",
  "git remote add o /tmp/x",
  "git remote set-url origin /tmp/x",
  "git remote update",
  "git stash",
  "git stash push",
  "git stash pop",
  "git stash drop",
  "git stash clear",
  "git worktree add ../w",
  "git notes add -m x",
  "git notes --ref x add -m y",
  "git reflog expire --all",
  "git reflog delete HEAD@{0}",
  "git symbolic-ref HEAD refs/heads/x",
  "git symbolic-ref -d HEAD",
  "git submodule update",
  "git submodule foreach true",
  "git sparse-checkout set a",
  "git apply --index /dev/null",
  "git apply --cached /dev/null",
  "git credential fill",
  "git gc",
  "git repack -ad",
];

Deno.test("the git shim passes reading forms to the real git and refuses writing forms", async () => {
  await using w = await world();
  for (const command of READS) {
    const r = await w.run(command);
    assert.doesNotMatch(r.stderr, /pitroom/, command);
    assert.equal(r.code, 0, `${command}: ${r.stderr}`);
  }
  const head = await git(w.repo.path, "rev-parse", "HEAD");
  for (const command of WRITES) {
    const r = await w.run(command);
    assert.equal(r.code, 1, `${command}: ${r.stdout} ${r.stderr}`);
    assert.match(r.stderr, /^pitroom: `git [^`]+` is not allowed in a worker run: /, command);
  }
  assert.equal(await git(w.repo.path, "rev-parse", "HEAD"), head);
  assert.equal(
    (await git(w.repo.path, "for-each-ref", "--format=%(refname)")).trim(),
    "refs/heads/main",
  );
});

Deno.test("the git shim refuses aliases of writing commands, shell aliases and alias loops", async () => {
  await using w = await world();
  await git(w.repo.path, "config", "alias.ci", "commit");
  await git(w.repo.path, "config", "alias.deep", "ci -q");
  await git(w.repo.path, "config", "alias.bd", "branch -D");
  await git(w.repo.path, "config", "alias.sneak", "!git commit -qam x");
  await git(w.repo.path, "config", "alias.l1", "l2");
  await git(w.repo.path, "config", "alias.l2", "l1");
  await git(w.repo.path, "config", "alias.opt", "-c alias.z=commit z");
  await git(w.repo.path, "config", "alias.lg", "log --oneline");
  const refused: [string, RegExp][] = [
    ["git ci -qm x", /ci is an alias of git commit/],
    ["git CI -qm x", /alias of git commit/],
    ["git deep -m x", /alias of git commit/],
    ["git bd main", /`git bd -D`.*changes branches/],
    ["git sneak", /shell alias/],
    ["git l1", /alias chain does not end/],
    ["git opt", /-c alias\.z=commit/],
    ["git -c alias.x=commit x -qm y", /-c alias\.x=commit/],
    ["git -c ALIAS.x=commit x -qm y", /-c ALIAS\.x=commit/],
    ["git --config-env=alias.x=CMD x", /alias\.x=CMD/],
    ["git -c include.path=/tmp/x status", /include\.path/],
    ["git -c core.hooksPath=/dev/null status", /core\.hooksPath/],
    ["git -c url.x.pushInsteadOf=y status", /url\.x/],
  ];
  for (const [command, reason] of refused) {
    const r = await w.run(command);
    assert.equal(r.code, 1, command);
    assert.match(r.stderr, reason, command);
  }
  const lg = await w.run("git lg -1");
  assert.equal(lg.code, 0, lg.stderr);
  assert.match(lg.stdout, /init/);
});

Deno.test("the publishing shims refuse their forms and pass everything else to the program", async () => {
  await using w = await world();
  const refused = await w.run("npm --registry http://127.0.0.1:9 publish");
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /^pitroom: `npm publish` is not allowed in a worker run: it publishes/,
  );
  const pair = await w.run("gh release --repo x create v1");
  assert.match(pair.stderr, /`gh release create`/);
  const passed = await w.run("deno --version");
  assert.equal(passed.code, 0, passed.stderr);
  assert.match(passed.stdout, /deno \d/);
  const missing = await w.run("twine check dist/x");
  assert.equal(missing.code, 127);
  assert.match(missing.stderr, /twine: command not found/);
});

Deno.test("every form of the floor has a checker, and the shim matches refused words in any case", () => {
  for (const sub of Object.keys(GIT_FORMS)) assert.ok(FORM_CHECKERS[sub], sub);
  const script = gitShimScript({
    self: "/g/bin",
    refused: DENIED_GIT_SUBCOMMANDS,
    forms: Object.keys(GIT_FORMS),
  });
  assert.ok(script.includes(anyCase("cherry-pick")));
  assert.throws(
    () => gitShimScript({ self: "/g", refused: [], forms: ["unknown"] }),
    /no checker for unknown/,
  );
  const files = guardFiles("/g", {
    gitRefused: DENIED_GIT_SUBCOMMANDS,
    gitForms: Object.keys(GIT_FORMS),
    refused: [{ program: "sudo", why: "no" }],
    guarded: PUBLISHING.map((r) => ({ ...r, why: "it publishes" })),
  });
  assert.deepEqual(
    Object.keys(files).filter((f) => f.startsWith("hooks/")).sort(),
    ["hooks/pre-push", "hooks/reference-transaction"],
  );
  for (const rule of PUBLISHING) assert.ok(files[`bin/${rule.program}`], rule.program);
});

Deno.test("guardGitEnv() appends the guard's git config after the caller's own entries", () => {
  const env = guardGitEnv(
    { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "me" },
    "/g/hooks",
  );
  assert.equal(env.GIT_CONFIG_KEY_1, "core.hooksPath");
  assert.equal(env.GIT_CONFIG_VALUE_1, "/g/hooks");
  assert.equal(env.GIT_CONFIG_KEY_0, undefined, "the caller's entries stay as they are");
  assert.equal(
    Number(env.GIT_CONFIG_COUNT),
    1 + Object.keys(env).filter((k) => k.startsWith("GIT_CONFIG_KEY_")).length,
  );
  assert.equal(env.GIT_TERMINAL_PROMPT, "0");
  assert.equal(env.GIT_PAGER, "cat");
  assert.equal(guardGitEnv({ GIT_SSH_COMMAND: "mine" }, "/h").GIT_SSH_COMMAND, undefined);
});

Deno.test("a deleted or edited shim is repaired by the next writeGuard()", async () => {
  await using state = await tempDir("pitroom-guard-");
  const guard = await writeGuard(statePaths(state.path).guard);
  const original = await Deno.readTextFile(join(guard.bin, "git"));
  await Deno.remove(join(guard.bin, "sudo"));
  await Deno.writeTextFile(join(guard.bin, "git"), '#!/bin/sh\nexec /usr/bin/git "$@"\n');
  await Deno.chmod(join(guard.hooks, "reference-transaction"), 0o644);
  await writeGuard(statePaths(state.path).guard);
  assert.equal(await Deno.readTextFile(join(guard.bin, "git")), original);
  assert.ok((await Deno.stat(join(guard.bin, "sudo"))).isFile);
  assert.equal((await Deno.stat(join(guard.hooks, "reference-transaction"))).mode! & 0o777, 0o755);
});
