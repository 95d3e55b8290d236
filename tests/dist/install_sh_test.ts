/**
 * install.sh end to end against a release served from 127.0.0.1: the asset of this platform is
 * installed and runs, a tampered asset installs nothing, an unknown platform is one clear line,
 * a second install upgrades in place, and the script is POSIX sh that shellcheck passes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";
import { sha256File } from "../../scripts/release/sums.ts";

const SCRIPT = join(REPO_ROOT, "install.sh");
const ASSETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"];

/** A release folder: `<root>/v<version>/pitroom-<os>-<arch>` (tiny scripts) and SHA256SUMS. */
async function release(root: string, version: string): Promise<void> {
  const dir = join(root, `v${version}`);
  await Deno.mkdir(dir, { recursive: true });
  let sums = "";
  for (const a of ASSETS) {
    const file = join(dir, `pitroom-${a}`);
    await Deno.writeTextFile(file, `#!/bin/sh\necho "pitroom ${version} ${a}"\n`);
    sums += `${await sha256File(file)}  pitroom-${a}\n`;
  }
  await Deno.writeTextFile(join(dir, "SHA256SUMS"), sums);
  await Deno.writeTextFile(join(root, "latest"), `${version}\n`);
}

/** Serves a folder on a loopback port. */
function serve(root: string) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    if (path.includes("..")) return new Response("no", { status: 400 });
    try {
      return new Response(await Deno.readFile(join(root, path)));
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A folder with a fake `uname` first on PATH, for another platform. */
async function fakeUname(dir: string, s: string, m: string): Promise<string> {
  const bin = join(dir, "fakebin");
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(
    join(bin, "uname"),
    `#!/bin/sh\ncase "$1" in -s) echo ${s} ;; -m) echo ${m} ;; *) echo ${s} ;; esac\n`,
  );
  await Deno.chmod(join(bin, "uname"), 0o755);
  return bin;
}

async function install(env: Record<string, string>) {
  const out = await new Deno.Command("sh", {
    args: [SCRIPT],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
    clearEnv: true,
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function runInstalled(path: string): Promise<string> {
  const out = await new Deno.Command(path, { stdin: "null" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

const HOST = `${Deno.build.os === "darwin" ? "darwin" : "linux"}-${
  Deno.build.arch === "aarch64" ? "arm64" : "x64"
}`;

Deno.test("install.sh installs this platform's asset of the latest release, says PATH lacks it, and upgrades in place", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "releases");
  await release(root, "1.2.3");
  await using server = serve(root);
  const target = join(dir.path, "bin");
  const env = { HOME: dir.path, PITROOM_DOWNLOAD_BASE: server.base, PITROOM_INSTALL_DIR: target };

  const first = await install(env);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(await runInstalled(join(target, "pitroom")), `pitroom 1.2.3 ${HOST}`);
  assert.match(first.stdout, /is not on your PATH/);
  assert.match(first.stdout, /pitroom doctor/);
  assert.match(first.stdout, /pitroom install --mcp/);

  await release(root, "1.3.0");
  const second = await install({ ...env, PATH: `${target}:${Deno.env.get("PATH")}` });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(await runInstalled(join(target, "pitroom")), `pitroom 1.3.0 ${HOST}`);
  assert.doesNotMatch(second.stdout, /not on your PATH/);
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(target))).map((e) => e.name),
    ["pitroom"],
  );

  const pinned = await install({ ...env, PITROOM_VERSION: "v1.2.3" });
  assert.equal(pinned.code, 0, pinned.stderr);
  assert.equal(await runInstalled(join(target, "pitroom")), `pitroom 1.2.3 ${HOST}`);
});

Deno.test("install.sh picks the asset by OS and architecture (macOS arm64 through uname)", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "releases");
  await release(root, "2.0.0");
  await using server = serve(root);
  const bin = await fakeUname(dir.path, "Darwin", "arm64");
  const target = join(dir.path, "bin");
  const r = await install({
    HOME: dir.path,
    PITROOM_DOWNLOAD_BASE: server.base,
    PITROOM_INSTALL_DIR: target,
    PATH: `${bin}:${Deno.env.get("PATH")}`,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(await runInstalled(join(target, "pitroom")), "pitroom 2.0.0 darwin-arm64");
});

Deno.test("install.sh refuses a tampered asset and installs nothing; the old binary stays", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "releases");
  await release(root, "1.0.0");
  await using server = serve(root);
  const target = join(dir.path, "bin");
  const env = { HOME: dir.path, PITROOM_DOWNLOAD_BASE: server.base, PITROOM_INSTALL_DIR: target };
  assert.equal((await install(env)).code, 0);

  await release(root, "1.0.1");
  await Deno.writeTextFile(join(root, "v1.0.1", `pitroom-${HOST}`), "#!/bin/sh\necho evil\n");
  const r = await install(env);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^pitroom install: checksum mismatch for pitroom-\S+ .*nothing installed\n$/,
  );
  assert.equal(await runInstalled(join(target, "pitroom")), `pitroom 1.0.0 ${HOST}`);
  assert.deepEqual((await Array.fromAsync(Deno.readDir(target))).map((e) => e.name), ["pitroom"]);
});

Deno.test("install.sh refuses an unknown platform with one line and exit 3, before downloading", async () => {
  await using dir = await tempDir();
  for (const [s, m, what] of [["FreeBSD", "amd64", "system"], ["Linux", "riscv64", "processor"]]) {
    const bin = await fakeUname(join(dir.path, s!), s!, m!);
    const r = await install({
      HOME: dir.path,
      PITROOM_DOWNLOAD_BASE: "http://127.0.0.1:9", // nothing listens: a download would fail otherwise
      PITROOM_INSTALL_DIR: join(dir.path, "bin"),
      PATH: `${bin}:${Deno.env.get("PATH")}`,
    });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stderr.split("\n").length, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`no pitroom build for this ${what}`));
  }
});

Deno.test("install.sh is POSIX sh that shellcheck passes", async (t) => {
  const has = await new Deno.Command("sh", { args: ["-c", "command -v shellcheck"] }).output();
  if (!has.success) {
    if (Deno.env.get("CI")) throw new Error("shellcheck is not installed (CI installs it)");
    t.step({ name: "skipped: shellcheck is not installed", ignore: true, fn: () => {} });
    return;
  }
  const out = await new Deno.Command("shellcheck", { args: ["-s", "sh", SCRIPT] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stdout));
  assert.match(await Deno.readTextFile(SCRIPT), /^#!\/bin\/sh\n/);
});

Deno.test("two installs at once both succeed and leave one whole binary, no temporary file", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "releases");
  await release(root, "3.0.0");
  await using server = serve(root);
  const target = join(dir.path, "bin");
  const env = { HOME: dir.path, PITROOM_DOWNLOAD_BASE: server.base, PITROOM_INSTALL_DIR: target };
  const both = await Promise.all([install(env), install(env)]);
  for (const r of both) assert.equal(r.code, 0, r.stderr);
  assert.equal(await runInstalled(join(target, "pitroom")), `pitroom 3.0.0 ${HOST}`);
  assert.deepEqual((await Array.fromAsync(Deno.readDir(target))).map((e) => e.name), ["pitroom"]);
});
