/**
 * `pitroom dash` as processes: `--detach` starts one in the background and a second reuses it
 * (two at once too), `--stop` ends it, `--idle` ends it by itself, a stale record is replaced,
 * and the foreground server records itself until SIGTERM. Every dashboard a test starts is
 * stopped by the test (no leaked processes): each waits on a condition, bounded, never a sleep.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { moduleCacheEnv, pitroom, pitroomArgv, REPO_ROOT } from "../../support/pitroom.ts";
import { tempDir, waitFor } from "../../support/temp.ts";

interface Detached {
  address: string;
  pid: number;
  port: number;
  reused: boolean;
}

/** The status of opening `address` as a browser that was never let in. */
async function opens(address: string): Promise<number> {
  const res = await fetch(address);
  await res.body?.cancel();
  return res.status;
}

/** True while `pid` is a process that has not ended (a zombie has ended). */
async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const stat = new TextDecoder().decode(out.stdout).trim();
  return stat !== "" && !stat.startsWith("Z");
}

async function world() {
  const root = await tempDir("pitroom-dash-proc-");
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: root.path,
    PITROOM_STATE_DIR: join(root.path, "state"),
    PITROOM_CONFIG: join(root.path, "config.json"),
  };
  const pids = new Set<number>();
  const dash = async (...args: string[]) => {
    const out = await pitroom(["dash", ...args], { env, cwd: root.path });
    assert.equal(out.code, 0, out.stderr);
    return out;
  };
  return {
    env,
    root: root.path,
    record: join(env.PITROOM_STATE_DIR, "dash.json"),
    dash,
    async detach(...args: string[]): Promise<Detached> {
      const started = JSON.parse((await dash("--detach", "--json", ...args)).stdout) as Detached;
      pids.add(started.pid);
      return started;
    },
    async health(port: number): Promise<{ instance: string; pid: number } | null> {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`);
        return res.ok ? await res.json() : null;
      } catch (error) {
        if (error instanceof TypeError) return null;
        throw error;
      }
    },
    track(pid: number) {
      pids.add(pid);
    },
    async [Symbol.asyncDispose]() {
      for (const pid of pids) {
        if (await alive(pid)) Deno.kill(pid, "SIGKILL");
      }
      await waitFor(async () => {
        for (const pid of pids) if (await alive(pid)) return false;
        return true;
      }, { timeoutMs: 10_000, what: "every dashboard of the test to end" });
      await root[Symbol.asyncDispose]();
    },
  };
}

/** `pitroom dash --json` in the world, its output piped. */
function spawnDash(w: { root: string; env: Record<string, string> }): Deno.ChildProcess {
  const [cmd, ...rest] = pitroomArgv();
  return new Deno.Command(cmd!, {
    args: [...rest, "dash", "--json"],
    cwd: w.root,
    env: { NO_COLOR: "1", ...moduleCacheEnv(), ...w.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** What a process printed up to the end of its first line (all of it, when it ended before). */
async function firstLine(reader: ReadableStreamDefaultReader<string>): Promise<string> {
  let line = "";
  while (!line.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    line += value;
  }
  return line;
}

Deno.test("pitroom dash --detach starts one, a second reuses it, --stop ends it", async () => {
  await using w = await world();
  const first = await w.detach();
  assert.equal(first.reused, false);
  const base = `http://127.0.0.1:${first.port}/`;
  assert.match(first.address, new RegExp(`^${base}\\?token=[0-9a-z.]+$`));
  assert.ok(await alive(first.pid));
  assert.equal((await w.health(first.port))?.pid, first.pid);
  const record = JSON.parse(await Deno.readTextFile(w.record));
  assert.equal(record.pid, first.pid);
  assert.equal(record.address, base);
  // The record opens nothing: no key, no token. The key is in dash.key, the user's alone.
  const recordText = await Deno.readTextFile(w.record);
  const keyFile = join(w.env.PITROOM_STATE_DIR, "dash.key");
  const { key } = JSON.parse(await Deno.readTextFile(keyFile));
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal((await Deno.stat(keyFile)).mode! & 0o777, 0o600);
  assert.equal(recordText.includes(key), false);
  assert.equal(recordText.includes("token"), false);
  // The address opens the dashboard once.
  assert.equal(await opens(first.address), 200);
  assert.equal(await opens(first.address), 401);

  // A second --detach reuses it and prints a new address that opens it.
  const second = await w.detach();
  assert.deepEqual({ ...second, reused: false, address: "" }, { ...first, address: "" });
  assert.equal(second.reused, true);
  assert.notEqual(second.address, first.address);
  assert.equal(await opens(second.address), 200);
  // The text form prints the address alone on stdout: a new one every time.
  const text = (await w.dash("--detach")).stdout;
  assert.match(text, new RegExp(`^${base}\\?token=\\S+\n$`));
  assert.equal(await opens(text.trim()), 200);
  // So does `pitroom dash` in the foreground, when one runs already.
  const fg = await w.dash("--json");
  assert.equal(JSON.parse(fg.stdout).reused, true);
  assert.equal(await opens(JSON.parse(fg.stdout).address), 200);

  const stopped = await w.dash("--stop", "--json");
  assert.deepEqual(JSON.parse(stopped.stdout), { stopped: true, pid: first.pid });
  await waitFor(async () => !(await alive(first.pid)), {
    timeoutMs: 10_000,
    what: "the stopped dashboard to end",
  });
  await assert.rejects(Deno.stat(w.record), Deno.errors.NotFound);
  await assert.rejects(Deno.stat(keyFile), Deno.errors.NotFound);
  const again = await w.dash("--stop", "--json");
  assert.deepEqual(JSON.parse(again.stdout), { stopped: false });
});

Deno.test("two --detach at once end up with one dashboard", async () => {
  await using w = await world();
  const [a, b] = await Promise.all([w.detach(), w.detach()]);
  assert.equal(a!.pid, b!.pid);
  assert.equal(a!.port, b!.port);
  assert.notEqual(a!.address, b!.address);
  assert.deepEqual([a!.reused, b!.reused].sort(), [false, true]);
  await w.dash("--stop");
});

Deno.test("three `pitroom dash` at once (what long runs launch): one serves, the others say its address and end", async () => {
  await using w = await world();
  const children = [0, 1, 2].map(() => spawnDash(w));
  for (const child of children) w.track(child.pid);
  const lines = await Promise.all(children.map(async (child) => {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const line = await firstLine(reader);
    await reader.cancel();
    return JSON.parse(line) as Detached;
  }));
  const serving = lines.filter((l) => !l.reused);
  assert.equal(serving.length, 1, JSON.stringify(lines));
  assert.deepEqual(new Set(lines.map((l) => l.pid)), new Set([serving[0]!.pid]));
  for (const [i, child] of children.entries()) {
    if (lines[i]!.reused) {
      const [status] = await Promise.all([child.status, child.stderr.cancel()]);
      assert.equal(status.code, 0);
    }
  }
  await w.dash("--stop");
  for (const child of children) await Promise.all([child.status, child.stderr.cancel()]);
});

Deno.test("a busy dashboard (it answers nothing for a while) is reused, not doubled", async () => {
  await using w = await world();
  const first = await w.detach();
  // Stopped, it holds its port and its life but answers no request: as under a heavy load.
  Deno.kill(first.pid, "SIGSTOP");
  try {
    const second = await w.detach();
    assert.equal(second.reused, true);
    assert.equal(second.pid, first.pid);
  } finally {
    Deno.kill(first.pid, "SIGCONT");
  }
  assert.equal(await opens((await w.detach()).address), 200);
  await w.dash("--stop");
});

Deno.test("a dashboard of an older Pitroom (no life lock) that still answers is stopped when a new one starts", async () => {
  await using w = await world();
  const old = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      `--config=${join(REPO_ROOT, "deno.json")}`,
      "-P=pitroom",
      join(REPO_ROOT, "tests", "server", "dash", "_old_dash.ts"),
    ],
    cwd: w.root,
    env: { ...moduleCacheEnv(), ...w.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  w.track(old.pid);
  const reader = old.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const line = await firstLine(reader);
  await reader.cancel();
  const recorded = JSON.parse(line);
  assert.equal((await w.health(recorded.port))?.pid, old.pid);
  const fresh = await w.detach();
  assert.equal(fresh.reused, false);
  assert.notEqual(fresh.pid, old.pid);
  await waitFor(async () => !(await alive(old.pid)), {
    timeoutMs: 10_000,
    what: "the older dashboard to be stopped",
  });
  assert.equal((await old.status).code, 0);
  assert.equal(JSON.parse(await Deno.readTextFile(w.record)).pid, fresh.pid);
  await w.dash("--stop");
});

Deno.test("--idle: a detached dashboard stops by itself after that long without a request", async () => {
  await using w = await world();
  const started = await w.detach("--idle", "1s");
  await waitFor(async () => !(await alive(started.pid)), {
    timeoutMs: 20_000,
    what: "the idle dashboard to end",
  });
  await waitFor(async () => {
    try {
      await Deno.stat(w.record);
      return false;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return true;
      throw error;
    }
  }, { timeoutMs: 5_000, what: "its record to go" });
});

Deno.test("a stale record (its dashboard died) is replaced by a new dashboard", async () => {
  await using w = await world();
  const first = await w.detach();
  Deno.kill(first.pid, "SIGKILL");
  await waitFor(async () => !(await alive(first.pid)), { timeoutMs: 10_000, what: "the kill" });
  // The record is still there, naming a dead server.
  assert.equal(JSON.parse(await Deno.readTextFile(w.record)).pid, first.pid);
  const second = await w.detach();
  assert.equal(second.reused, false);
  assert.notEqual(second.pid, first.pid);
  assert.equal((await w.health(second.port))?.pid, second.pid);
  await w.dash("--stop");
});

Deno.test("pitroom dash in the foreground: serves, records itself, ends on SIGTERM", async () => {
  await using w = await world();
  const child = spawnDash(w);
  w.track(child.pid);
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const line = await firstLine(reader);
  const started = JSON.parse(line) as Detached;
  assert.equal(started.pid, child.pid);
  assert.equal((await w.health(started.port))?.pid, child.pid);
  // --detach finds it and reuses it.
  const reused = await w.detach();
  assert.equal(reused.pid, child.pid);
  assert.equal(reused.reused, true);
  child.kill("SIGTERM");
  const [status, err] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
    reader.cancel(),
  ]);
  assert.equal(status.code, 0, err);
  await assert.rejects(Deno.stat(w.record), Deno.errors.NotFound);
});

Deno.test("--port: a bad port is a usage error; --stop takes no other flag", async () => {
  await using w = await world();
  const bad = await pitroom(["dash", "--port", "70000"], { env: w.env, cwd: w.root });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--port/);
  const mixed = await pitroom(["dash", "--stop", "--detach"], { env: w.env, cwd: w.root });
  assert.equal(mixed.code, 2, mixed.stderr);
});

Deno.test("--open hands the browser its own one-time address; the printed one stays good", async () => {
  await using w = await world();
  // The system browser, as `xdg-open` is called: it writes down the address it was given.
  const bin = join(w.root, "bin");
  const opened = join(w.root, "opened");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`, {
    mode: 0o755,
  });
  const env = { ...w.env, PATH: `${bin}:${w.env.PATH}` };
  const out = await pitroom(["dash", "--detach", "--open", "--json"], { env, cwd: w.root });
  assert.equal(out.code, 0, out.stderr);
  const started = JSON.parse(out.stdout) as Detached;
  w.track(started.pid);
  let given = "";
  await waitFor(async () => {
    given = await Deno.readTextFile(opened).catch(() => "");
    return given !== "";
  }, { timeoutMs: 10_000, what: "the browser to be opened" });
  assert.match(given, /^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/);
  assert.notEqual(given, started.address);
  assert.equal(await opens(given), 200);
  assert.equal(await opens(started.address), 200);
  await w.dash("--stop");
});
