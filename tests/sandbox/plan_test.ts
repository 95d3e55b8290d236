/**
 * The sandbox's pure parts and its plan: the bubblewrap argv, the sandbox-exec profile (macOS
 * cannot be run here: its text is what is tested), the config setting, and which folders a plan
 * makes writable, read-only and visible for each mode.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  bwrapArgv,
  defaultSandboxSetting,
  detectSandbox,
  escapingLinks,
  hiddenHolder,
  planMounts,
  planSandbox,
  sandboxLaunch,
  type SandboxPlan,
  sandboxSetting,
  seatbeltProfile,
} from "../../src/confine/sandbox/mod.ts";
import { tmpPathsIn } from "../../src/confine/sandbox/tmp.ts";
import { realRunner } from "../../src/sys/real.ts";
import { testSys } from "../support/sys.ts";
import { git, tempDir, tempRepo } from "../support/temp.ts";

const PLAN: SandboxPlan = {
  cwd: "/home/u/repo/src",
  visible: ["/tmp/home"],
  writable: ["/home/u/repo", "/home/u/.codex", "/state/runs/x/private/attempt-1"],
  readOnly: ["/home/u/repo/.git", "/state/guard"],
  hidden: ["/state", "/home/u/.ssh"],
  masked: ["/home/u/repo/.env"],
  empty: "/state/runs/x/private/attempt-1/.masks/empty",
  tmp: "/state/runs/x/private/attempt-1/tmp",
};

Deno.test("bwrapArgv() drops every capability, unshares PIDs and mounts parents first: .git read-only, hidden folders empty, what the run needs shown again", () => {
  assert.deepEqual(bwrapArgv(PLAN, ["codex", "exec"], { binary: "/usr/bin/bwrap" }), [
    "/usr/bin/bwrap",
    "--die-with-parent",
    "--unshare-pid",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind",
    "/state/runs/x/private/attempt-1/tmp",
    "/tmp",
    "--tmpfs",
    "/state",
    "--ro-bind",
    "/tmp/home",
    "/tmp/home",
    "--ro-bind",
    "/state/guard",
    "/state/guard",
    "--bind",
    "/home/u/repo",
    "/home/u/repo",
    "--bind",
    "/home/u/.codex",
    "/home/u/.codex",
    "--tmpfs",
    "/home/u/.ssh",
    "--ro-bind",
    "/home/u/repo/.git",
    "/home/u/repo/.git",
    "--ro-bind",
    "/state/runs/x/private/attempt-1/.masks/empty",
    "/home/u/repo/.env",
    "--bind",
    "/state/runs/x/private/attempt-1",
    "/state/runs/x/private/attempt-1",
    "--chdir",
    "/home/u/repo/src",
    "--",
    "codex",
    "exec",
  ]);
  assert.ok(!bwrapArgv(PLAN, ["x"]).includes("--unshare-net"), "the network stays as it is");
});

Deno.test("bwrapArgv() as root keeps only CAP_SETFCAP, for a bubblewrap nested inside", () => {
  const argv = bwrapArgv(PLAN, ["x"], { asRoot: true });
  assert.deepEqual(argv.slice(3, 7), ["--cap-drop", "ALL", "--cap-add", "CAP_SETFCAP"]);
});

Deno.test("seatbeltProfile() denies writes but in the plan's folders, and never in .git", () => {
  assert.equal(
    seatbeltProfile(PLAN),
    [
      "(version 1)",
      "(allow default)",
      "(deny file-write*)",
      '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (subpath "/dev/fd"))',
      '(deny file-read* file-write* (subpath "/state"))',
      '(allow file-read* (subpath "/state/guard"))',
      '(deny file-write* (subpath "/state/guard"))',
      '(allow file-read* (subpath "/home/u/repo"))',
      '(allow file-write* (subpath "/home/u/repo"))',
      '(allow file-read* (subpath "/home/u/.codex"))',
      '(allow file-write* (subpath "/home/u/.codex"))',
      '(deny file-read* file-write* (subpath "/home/u/.ssh"))',
      '(allow file-read* (subpath "/home/u/repo/.git"))',
      '(deny file-write* (subpath "/home/u/repo/.git"))',
      '(deny file-read* file-write* (literal "/home/u/repo/.env"))',
      '(allow file-read* (subpath "/state/runs/x/private/attempt-1"))',
      '(allow file-write* (subpath "/state/runs/x/private/attempt-1"))',
      "",
    ].join("\n"),
  );
  const plain = { ...PLAN, hidden: [], masked: [], readOnly: ["/home/u/repo/.git"] };
  assert.equal(
    seatbeltProfile(plain).split("\n").filter((l) => l.includes("file-read")).length,
    0,
    "nothing hidden: reads are not mentioned",
  );
  const odd = seatbeltProfile({ ...plain, writable: ['/a "b"\\c'], readOnly: [] });
  assert.match(odd, /\(subpath "\/a \\"b\\"\\\\c"\)/);
});

Deno.test("sandboxSetting() reads a mode or an object with folders, hide/show, secrets and network; bad values warn", () => {
  const none = defaultSandboxSetting();
  assert.deepEqual(none, {
    mode: "auto",
    writable: [],
    hide: [],
    show: [],
    allowSecrets: false,
    network: "host",
    ports: [],
  });
  assert.deepEqual(sandboxSetting(undefined).setting, none);
  assert.deepEqual(sandboxSetting("required").setting, { ...none, mode: "required" });
  assert.deepEqual(
    sandboxSetting({
      mode: "off",
      writable: ["~/.cargo", "/opt/cache"],
      hide: ["~/.config/x", "*.sqlite"],
      show: [".env.test"],
      allowSecrets: true,
      network: "isolated",
      ports: [5432],
    }).setting,
    {
      mode: "off",
      writable: ["~/.cargo", "/opt/cache"],
      hide: ["~/.config/x", "*.sqlite"],
      show: [".env.test"],
      allowSecrets: true,
      network: "isolated",
      ports: [5432],
    },
  );
  // The entries stay as written: writableFolders() and hiddenEntries() check each.
  const bad = sandboxSetting({ mode: "strict", writable: ["relative", "/ok"] });
  assert.deepEqual(bad.setting, { ...none, writable: ["relative", "/ok"] });
  assert.equal(bad.warnings.length, 1);
  assert.equal(sandboxSetting({ writable: [1] }).warnings.length, 1);
  const worse = sandboxSetting({
    hide: "x",
    show: [2],
    allowSecrets: "yes",
    network: "none",
    ports: [0, "x"],
  });
  assert.deepEqual(worse.setting, none);
  assert.equal(worse.warnings.length, 5, worse.warnings.join("\n"));
});

Deno.test("tmpPathsIn() finds /tmp paths in env values and scripts", () => {
  assert.deepEqual(tmpPathsIn("/tmp/a/b:/usr/bin:/tmp/c"), ["/tmp/a/b", "/tmp/c"]);
  assert.deepEqual(tmpPathsIn(`cat '/tmp/x y' > "/tmp/out.txt"; ls /tmpfoo`), [
    "/tmp/x",
    "/tmp/out.txt",
  ]);
});

Deno.test("planSandbox(): a write run writes its repository but not .git; a read run nothing", async () => {
  await using repo = await tempRepo({ "src/a.ts": "a\n" });
  await using priv = await tempDir("pitroom-sbx-private-");
  await using home = await tempDir("pitroom-sbx-home-");
  const root = await Deno.realPath(repo.path);
  const input = {
    cwd: join(repo.path, "src"),
    privateDir: priv.path,
    state: [join(home.path, ".codex")],
    extra: ["~/.cargo", "~/missing"],
    env: { HOME: home.path },
    argv: ["codex"],
  };
  await Deno.mkdir(join(home.path, ".cargo"));
  const write = await planSandbox({ ...input, mode: "write" });
  const h = await Deno.realPath(home.path);
  const p = await Deno.realPath(priv.path);
  assert.equal(write.cwd, join(root, "src"));
  assert.deepEqual(write.writable, [root, join(h, ".codex"), join(h, ".cargo"), p]);
  assert.deepEqual(write.readOnly, [join(root, ".git")]);
  assert.equal(write.tmp, join(p, "tmp"));
  assert.ok(write.visible.includes(root) && write.visible.includes(h));
  const read = await planSandbox({ ...input, mode: "read" });
  assert.ok(!read.writable.includes(root));
  assert.deepEqual(read.readOnly, [join(root, ".git")]);
});

Deno.test("planSandbox(): an isolate copy keeps the user's .git it borrows read-only", async () => {
  await using user = await tempRepo({ "a.txt": "a\n" });
  await using copy = await tempDir("pitroom-sbx-copy-");
  await using priv = await tempDir("pitroom-sbx-private-");
  await Deno.mkdir(join(copy.path, ".git/objects/info"), { recursive: true });
  await Deno.writeTextFile(
    join(copy.path, ".git/objects/info/alternates"),
    `${join(user.path, ".git/objects")}\n`,
  );
  const plan = await planSandbox({
    mode: "isolate",
    cwd: copy.path,
    privateDir: priv.path,
    state: [],
    extra: [],
    env: {},
    argv: [],
  });
  const userRoot = await Deno.realPath(user.path);
  const copyRoot = await Deno.realPath(copy.path);
  assert.deepEqual(plan.readOnly, [join(copyRoot, ".git"), join(userRoot, ".git")]);
  assert.ok(plan.writable.includes(copyRoot));
  assert.ok(plan.visible.includes(userRoot), "a --link folder points into the user's tree");
});

Deno.test("escapingLinks() names links that resolve outside the tree, not those inside", async () => {
  await using repo = await tempRepo({ "d/x.txt": "x\n" });
  await using outside = await tempDir("pitroom-sbx-out-");
  await Deno.symlink("d", join(repo.path, "inside"));
  await Deno.symlink(join(repo.path, "d"), join(repo.path, "abs-inside"));
  await Deno.symlink(outside.path, join(repo.path, "out"));
  await Deno.symlink("../../nowhere", join(repo.path, "d/dangling"));
  await Deno.symlink(outside.path, join(repo.path, "node_modules"));
  await git(repo.path, "status");
  const links = await escapingLinks(repo.path, { known: ["node_modules"] });
  assert.deepEqual(links.map((l) => l.path), ["d/dangling", "out"]);
  assert.equal(links[1]!.target, await Deno.realPath(outside.path));
});

Deno.test("detectSandbox() probes bwrap on Linux, looks for sandbox-exec on macOS, none elsewhere", async () => {
  const sys = { runner: realRunner, env: { get: Deno.env.get, toObject: Deno.env.toObject } };
  const linux = await detectSandbox(sys, { os: "linux" });
  assert.equal(linux.kind, "bwrap");
  const mac = await detectSandbox(sys, { os: "darwin" });
  // No Mac here: the binary is missing, which is what a Mac without it would say.
  assert.deepEqual(mac, { kind: "none", reason: "sandbox-exec is missing" });
  assert.deepEqual(await detectSandbox(sys, { os: "windows" }), {
    kind: "none",
    reason: "no sandbox is known on windows",
  });
  const bare = {
    ...sys,
    env: { get: () => undefined, toObject: () => ({ PATH: "/nonexistent" }) },
  };
  assert.deepEqual(await detectSandbox(bare, { os: "linux" }), {
    kind: "none",
    reason: "bubblewrap (bwrap) is not installed",
  });
});

Deno.test("detectSandbox(): runs started together share one probe, and a probe that could not run is asked again", async () => {
  // A bwrap of its own (a fresh path: the probe's answer is kept per binary, per process).
  await using bin = await tempDir("pitroom-bwrap-");
  await Deno.writeTextFile(join(bin.path, "bwrap"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const env = { get: () => undefined, toObject: () => ({ PATH: bin.path }) };
  let probes = 0;
  let fail = true;
  const runner = {
    ...realRunner,
    run: async () => {
      probes++;
      await Promise.resolve();
      if (fail) throw new Error("could not spawn");
      return { code: 0, stdout: "", stderr: "" };
    },
  };
  const sys = { runner, env };
  await assert.rejects(detectSandbox(sys, { os: "linux" }), /could not spawn/);
  fail = false;
  const found = await Promise.all(
    Array.from({ length: 10 }, () => detectSandbox(sys, { os: "linux" })),
  );
  assert.equal(probes, 2, "one probe that failed, then one for all ten");
  for (const f of found) assert.deepEqual(f, { kind: "bwrap", binary: join(bin.path, "bwrap") });
  assert.deepEqual(await detectSandbox(sys, { os: "linux" }), found[0]);
  assert.equal(probes, 2);
});

Deno.test("a worker CLI installed under /tmp runs in the sandbox: its .bin links reach their package", async () => {
  const install = await Deno.makeTempDir({ dir: "/tmp", prefix: "pitroom-cli-" });
  await using priv = await tempDir("pitroom-priv-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  try {
    // The npm layout: node_modules/.bin/fakecli -> ../fakecli/bin/cli.sh, and PATH names .bin.
    const pkg = join(install, "node_modules", "fakecli", "bin");
    const bin = join(install, "node_modules", ".bin");
    await Deno.mkdir(pkg, { recursive: true });
    await Deno.mkdir(bin, { recursive: true });
    await Deno.writeTextFile(join(pkg, "cli.sh"), "#!/bin/sh\necho installed-cli-ran\n");
    await Deno.chmod(join(pkg, "cli.sh"), 0o755);
    await Deno.symlink("../fakecli/bin/cli.sh", join(bin, "fakecli"));
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const plan = await planSandbox({
      cwd: repo.path,
      privateDir: priv.path,
      state: [],
      extra: [],
      env,
      argv: ["fakecli"],
      mode: "read",
    });
    const argv = bwrapArgv(plan, ["fakecli"], { asRoot: Deno.uid() === 0 });
    const out = await new Deno.Command(argv[0]!, { args: argv.slice(1), env, clearEnv: true })
      .output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
    assert.equal(text.trim(), "installed-cli-ran");
  } finally {
    await Deno.remove(install, { recursive: true });
  }
});

Deno.test("a worker CLI reached through a link from outside /tmp into /tmp runs in the sandbox", async () => {
  const install = await Deno.makeTempDir({ dir: "/tmp", prefix: "pitroom-cli-" });
  const outside = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "pitroom-bin-" });
  await using priv = await tempDir("pitroom-priv-");
  await using repo = await tempRepo({ "a.txt": "one\n" });
  try {
    const pkg = join(install, "node_modules", "fakecli", "bin");
    await Deno.mkdir(pkg, { recursive: true });
    await Deno.writeTextFile(join(pkg, "cli.sh"), "#!/bin/sh\necho linked-cli-ran\n");
    await Deno.chmod(join(pkg, "cli.sh"), 0o755);
    // A PATH folder outside /tmp whose program is a link into /tmp, and a PATH entry that is
    // itself a link to a folder in /tmp.
    await Deno.mkdir(join(outside, "bin"));
    await Deno.symlink(join(pkg, "cli.sh"), join(outside, "bin", "fakecli"));
    await Deno.symlink(pkg, join(outside, "linked-bin"));
    // A chain that passes through /tmp to a program outside it: the link in /tmp is needed.
    await Deno.mkdir(join(outside, "real"));
    await Deno.writeTextFile(join(outside, "real", "cli.sh"), "#!/bin/sh\necho linked-cli-ran\n");
    await Deno.chmod(join(outside, "real", "cli.sh"), 0o755);
    await Deno.mkdir(join(install, "hop"));
    await Deno.symlink(join(outside, "real", "cli.sh"), join(install, "hop", "cli"));
    await Deno.mkdir(join(outside, "chain"));
    await Deno.symlink(join(install, "hop", "cli"), join(outside, "chain", "chaincli"));
    // A script CLI outside /tmp whose interpreter (`#!/usr/bin/env fakenode`, like node) is
    // reached through a link into /tmp.
    await Deno.writeTextFile(join(pkg, "fakenode"), "#!/bin/sh\necho linked-cli-ran\n");
    await Deno.chmod(join(pkg, "fakenode"), 0o755);
    await Deno.mkdir(join(outside, "script"));
    await Deno.writeTextFile(join(outside, "script", "scriptcli"), "#!/usr/bin/env fakenode\n");
    await Deno.chmod(join(outside, "script", "scriptcli"), 0o755);
    await Deno.symlink(join(pkg, "fakenode"), join(outside, "bin", "fakenode"));
    for (
      const [env, program] of [
        [{ PATH: `${join(outside, "bin")}:/usr/bin:/bin` }, "fakecli"],
        [{ PATH: `${join(outside, "linked-bin")}:/usr/bin:/bin` }, "cli.sh"],
        [{ PATH: `${join(outside, "chain")}:/usr/bin:/bin` }, "chaincli"],
        [{ PATH: `${join(outside, "script")}:${join(outside, "bin")}:/usr/bin:/bin` }, "scriptcli"],
      ] as const
    ) {
      const plan = await planSandbox({
        cwd: repo.path,
        privateDir: priv.path,
        state: [],
        extra: [],
        env,
        argv: [program],
        mode: "read",
      });
      assert.ok(plan.visible.includes(install), `${program}: ${plan.visible.join(" ")}`);
      const argv = bwrapArgv(plan, [program], { asRoot: Deno.uid() === 0 });
      const out = await new Deno.Command(argv[0]!, { args: argv.slice(1), env, clearEnv: true })
        .output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, text);
      assert.equal(text.trim(), "linked-cli-ran");
    }
  } finally {
    await Deno.remove(install, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("planMounts() puts parents first, a writable folder over one shown under /tmp, read-only over writable, hiding over both", () => {
  const plan: SandboxPlan = {
    cwd: "/tmp/x/repo",
    visible: ["/tmp/x"],
    writable: ["/tmp/x", "/tmp/x/repo"],
    readOnly: ["/tmp/x/repo/.git", "/s/guard"],
    hidden: ["/s", "/tmp/x/repo/secrets"],
    masked: ["/tmp/x/repo/.env"],
    empty: "/e",
    tmp: "/p/tmp",
  };
  assert.deepEqual(planMounts(plan).map((m) => `${m.kind} ${m.path}`), [
    "hide /s",
    "visible /tmp/x",
    "rw /tmp/x",
    "ro /s/guard",
    "rw /tmp/x/repo",
    "ro /tmp/x/repo/.git",
    "hide /tmp/x/repo/secrets",
    "mask /tmp/x/repo/.env",
  ]);
});

Deno.test("planSandbox() hides what it is told, shows again what the launch needs, and never hides / or the home", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n", ".env": "SECRET=1\n" });
  await using priv = await tempDir("pitroom-sbx-private-");
  await using home = await tempDir("pitroom-sbx-home-");
  await using state = await tempDir("pitroom-sbx-state-");
  await Deno.mkdir(join(home.path, ".ssh"));
  await Deno.mkdir(join(state.path, "guard"));
  await Deno.writeTextFile(join(home.path, ".netrc"), "x\n");
  const h = await Deno.realPath(home.path);
  const s = await Deno.realPath(state.path);
  const r = await Deno.realPath(repo.path);
  const plan = await planSandbox({
    mode: "read",
    cwd: repo.path,
    privateDir: priv.path,
    state: [],
    extra: [],
    env: { HOME: home.path },
    argv: ["true"],
    hide: [
      state.path,
      join(home.path, ".ssh"),
      join(home.path, ".netrc"),
      join(home.path, ".missing"),
      join(repo.path, ".env"),
      "/",
      home.path,
      "/proc/self/root",
    ],
    show: [join(state.path, "guard")],
  });
  assert.deepEqual(plan.hidden, [s, join(h, ".ssh")]);
  assert.deepEqual(plan.masked, [join(h, ".netrc"), join(r, ".env")]);
  assert.ok(plan.readOnly.includes(join(s, "guard")), plan.readOnly.join(" "));
  assert.ok(plan.readOnly.includes(join(await Deno.realPath(priv.path), ".masks")));
  assert.equal(await Deno.readTextFile(plan.empty), "");
  // A state or cache folder that is the home folder itself is never writable.
  const risky = await planSandbox({
    mode: "write",
    cwd: repo.path,
    privateDir: priv.path,
    state: [home.path, "/proc/self/root"],
    extra: [],
    env: { HOME: home.path, XDG_CACHE_HOME: "/" },
    argv: ["true"],
  });
  assert.deepEqual(risky.writable, [r, await Deno.realPath(priv.path)]);
  assert.equal(risky.cache, undefined);
});

Deno.test("hiddenHolder() names the hidden folder or file over a path, unless a deeper mount shows it", () => {
  assert.equal(hiddenHolder(PLAN, "/home/u/.ssh/bin/cli"), "/home/u/.ssh");
  assert.equal(hiddenHolder(PLAN, "/home/u/repo/.env"), "/home/u/repo/.env");
  // The guard and the attempt's folder are shown again inside the hidden state dir.
  assert.equal(hiddenHolder(PLAN, "/state/guard/bin/git"), null);
  assert.equal(hiddenHolder(PLAN, "/state/runs/x/private/attempt-1/tmp/x"), null);
  assert.equal(hiddenHolder(PLAN, "/state/runs/y/run.json"), "/state");
  assert.equal(hiddenHolder(PLAN, "/usr/bin/opencode"), null);
});

Deno.test("a worker CLI installed in a folder the sandbox hides is refused in one line naming it (exit 3)", async () => {
  await using root = await tempDir("pitroom-sbx-hidden-cli-");
  const home = join(root.path, "home");
  const bin = join(home, ".aws", "bin");
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(join(bin, "fakecli"), "#!/bin/sh\necho ran\n");
  await Deno.chmod(join(bin, "fakecli"), 0o755);
  const tree = join(root.path, "tree");
  await Deno.mkdir(tree);
  const sys = testSys({ stateDir: join(root.path, "state"), cwd: tree, env: { HOME: home } });
  const env = { HOME: home, PATH: `${bin}:/usr/bin:/bin` };
  const launch = { argv: ["fakecli"], env, cwd: tree, files: [], stdin: null };
  const input = {
    mode: "read" as const,
    privateDir: join(root.path, "private"),
    setting: defaultSandboxSetting(),
  };
  const error = await sandboxLaunch(sys, launch, { ...input, hide: [join(home, ".aws")] })
    .then(() => null, (e: unknown) => e);
  assert.ok(error instanceof Error && "exit" in error, String(error));
  assert.equal((error as { exit: number }).exit, 3);
  assert.match(
    error.message,
    new RegExp(
      `^Cannot start "fakecli" in the sandbox: its executable ${join(bin, "fakecli")} is in ${
        join(home, ".aws")
      }, which the sandbox hides from workers$`,
    ),
  );
  // Shown again by sandbox.show, it starts.
  const shown = await sandboxLaunch(sys, launch, {
    ...input,
    hide: [join(home, ".aws")],
    show: [bin],
  });
  assert.equal(shown.use.kind, "bwrap");
});
