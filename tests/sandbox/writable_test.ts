/**
 * Bad `sandbox.writable` entries: a missing folder, a relative path, a file, `/`, the user's
 * home (or a folder holding it, or a link to it) are each one warning, shown by `pitroom doctor`
 * and `pitroom config`; `/` and the home are refused, and a sandboxed worker cannot write
 * through them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  defaultSandboxSetting,
  sandboxLaunch,
  writableFolders,
} from "../../src/confine/sandbox/mod.ts";
import { testSys } from "../support/sys.ts";
import { exists } from "../../src/sys/fs.ts";
import { pitroom } from "../support/pitroom.ts";
import { tempDir, tempRepo } from "../support/temp.ts";
import { marker, sandboxWorld } from "./_world.ts";

Deno.test("writableFolders() keeps good folders and warns once per bad entry", async () => {
  await using root = await tempDir("pitroom-sbx-writable-");
  const home = join(root.path, "home");
  const good = join(root.path, "cache");
  await Deno.mkdir(join(home, ".cargo"), { recursive: true });
  await Deno.mkdir(good);
  await Deno.writeTextFile(join(root.path, "file.txt"), "x\n");
  await Deno.symlink(home, join(root.path, "home-link"));
  const entries = [
    good,
    "~/.cargo",
    join(root.path, "missing"),
    "build/cache",
    join(root.path, "file.txt"),
    "/",
    "~",
    home,
    join(root.path, "home-link"),
    root.path,
    `${good}/`,
  ];
  const real = await Deno.realPath(home);
  const { folders, warnings } = await writableFolders(entries, home);
  assert.deepEqual(folders, [await Deno.realPath(good), join(real, ".cargo")]);
  const w = (entry: string) => `Config "sandbox.writable" entry "${entry}"`;
  const refusedHome =
    `is refused: it holds your home folder ${real}, whose files would all be writable`;
  assert.deepEqual(warnings, [
    `${w(join(root.path, "missing"))} does not exist: ignored`,
    `${w("build/cache")} is not an absolute or ~/ path: ignored`,
    `${w(join(root.path, "file.txt"))} is a file, not a folder: ignored`,
    `${w("/")} is refused: it would make the whole file system writable`,
    `${w("~")} ${refusedHome}`,
    `${w(home)} ${refusedHome}`,
    `${w(join(root.path, "home-link"))} ${refusedHome}`,
    `${w(root.path)} ${refusedHome}`,
  ]);
  assert.deepEqual((await writableFolders(["~/.cargo"], undefined)).warnings, [
    `${w("~/.cargo")} needs HOME, which is not set: ignored`,
  ]);
});

Deno.test("sandboxLaunch() never binds `/` or the home writable, whoever built the setting", async () => {
  await using root = await tempDir("pitroom-sbx-writable-launch-");
  const home = join(root.path, "home");
  const tree = join(root.path, "tree");
  const extra = join(root.path, "extra");
  for (const dir of [home, tree, extra]) await Deno.mkdir(dir);
  const sys = testSys({ stateDir: join(root.path, "state"), cwd: tree, env: { HOME: home } });
  const { launch, use } = await sandboxLaunch(sys, {
    argv: ["true"],
    env: { HOME: home },
    cwd: tree,
    files: [],
    stdin: null,
  }, {
    mode: "write",
    privateDir: join(root.path, "private"),
    setting: {
      ...defaultSandboxSetting(),
      writable: ["/", "~", home, root.path, extra, "/proc/self/root", "/proc/self/cwd"],
    },
  });
  assert.equal(use.kind, "bwrap");
  const binds = launch.argv.flatMap((a, i) => a === "--bind" ? [launch.argv[i + 1]] : []);
  const realRoot = await Deno.realPath(root.path);
  assert.ok(binds.includes(join(realRoot, "extra")), binds.join(" "));
  for (const refused of ["/", join(realRoot, "home"), realRoot]) {
    assert.ok(!binds.includes(refused), `${refused} is bound writable: ${binds.join(" ")}`);
  }
});

Deno.test("a sandboxed worker cannot write through `/` or the home in sandbox.writable", async () => {
  await using w = await sandboxWorld();
  await Deno.writeTextFile(
    w.sys.configPath,
    JSON.stringify({ sandbox: { writable: ["/", "~", w.marks] } }),
  );
  const tag = marker();
  const err = (name: string) => `2>> '${join(w.marks, name)}'`;
  try {
    const record = await w.run("write", [
      { run: `printf x ${err("etc")} > /etc/pitroom-escape-${tag}` },
      { run: `printf 'planted\\n' ${err("home")} >> "$HOME/.bashrc"` },
      { run: `printf 'mine\\n' ${err("other")} > '${join(w.other, "theirs.txt")}'` },
      { answer: "done" },
    ]);
    assert.equal(record.outcome, "ok", record.message);
    assert.equal(record.attempts[0]?.sandbox, "bwrap");
    assert.equal(await exists(`/etc/pitroom-escape-${tag}`), false);
    assert.equal(await Deno.readTextFile(join(w.home, ".bashrc")), "# mine\n");
    assert.equal(await Deno.readTextFile(join(w.other, "theirs.txt")), "another repository\n");
    for (const name of ["etc", "home", "other"]) {
      assert.match(await Deno.readTextFile(join(w.marks, name)), /Read-only file system/, name);
    }
  } finally {
    await Deno.remove(`/etc/pitroom-escape-${tag}`).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
});

Deno.test("pitroom doctor and pitroom config show one warning per bad writable entry", async () => {
  await using repo = await tempRepo({ "a.txt": "a\n" });
  await using root = await tempDir("pitroom-sbx-writable-cli-");
  const config = join(root.path, "config.json");
  await Deno.writeTextFile(join(root.path, "file.txt"), "x\n");
  await Deno.symlink("/proc/self/root", join(root.path, "proc-link"));
  // `/proc/self/root` once crashed every command that loads settings (Deno may not resolve it).
  const bad = [
    "/",
    "~",
    "relative",
    join(root.path, "missing"),
    join(root.path, "file.txt"),
    "/proc/self/root",
    "/proc/self/cwd",
    join(root.path, "proc-link"),
  ];
  const badHide = ["/proc/self/root", "~", "/"];
  await Deno.writeTextFile(
    config,
    JSON.stringify({ sandbox: { mode: "auto", writable: bad, hide: badHide } }),
  );
  const env = {
    PITROOM_STATE_DIR: join(root.path, "state"),
    PITROOM_CONFIG: config,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: root.path,
  };
  const lines = (text: string) =>
    text.split("\n").filter((l) => l.includes(`Config "sandbox.writable" entry`));

  const doctor = await pitroom(["doctor", "--json"], { cwd: repo.path, env });
  const { checks } = JSON.parse(doctor.stdout) as {
    checks: { check: string; status: string; message: string }[];
  };
  const shown = checks.filter((c) => c.message.includes(`"sandbox.writable"`));
  assert.equal(shown.length, bad.length, doctor.stdout);
  for (const c of shown) assert.deepEqual([c.check, c.status], ["config", "warn"]);
  assert.match(shown[0]!.message, /entry "\/" is refused: it would make the whole file system/);
  assert.match(shown[1]!.message, /entry "~" is refused: it holds your home folder/);
  assert.match(shown[5]!.message, /entry "\/proc\/self\/root" is refused: \/proc, \/sys and \/dev/);
  const hides = checks.filter((c) => c.message.includes(`"sandbox.hide"`));
  assert.equal(hides.length, badHide.length, doctor.stdout);

  const text = await pitroom(["doctor"], { cwd: repo.path, env });
  assert.equal(lines(text.stdout + text.stderr).length, bad.length, text.stdout);

  const shownByConfig = await pitroom(["config"], { cwd: repo.path, env });
  assert.equal(shownByConfig.code, 0, shownByConfig.stderr);
  assert.equal(lines(shownByConfig.stderr).length, bad.length, shownByConfig.stderr);
  const json = await pitroom(["config", "--json"], { cwd: repo.path, env });
  const warnings = (JSON.parse(json.stdout) as { warnings: string[] }).warnings;
  assert.equal(lines(warnings.join("\n")).length, bad.length);
});
