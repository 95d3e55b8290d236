/**
 * Run by network_test.ts inside a network namespace of its own that has a routable interface
 * (pasta needs one; the CI's `unshare -n` has only loopback): two services on this namespace's
 * loopback (one a worker's configuration names, one it must not reach), then
 * - a sandboxed `curl` with `"network": "isolated"`, as root (pasta attached to bubblewrap's
 *   namespace) and, when run as root, as an unprivileged user (pasta's own namespaces);
 * - the same as root with a worker that sleeps, whose starter is then killed with SIGKILL (as
 *   Pitroom would be): the sandbox and pasta must be gone;
 * - the real worker CLIs named on the command line, through `pitroom run` against the scripted
 *   model server with the isolated network, each told by its scenario to fetch the service it
 *   must not reach.
 * Prints one JSON object: what each side reached.
 *
 *   deno run -P=pitroom tests/sandbox/_network_inner.ts [codex,opencode,claude,gemini]
 */
import { join } from "node:path";
import {
  bwrapArgv,
  defaultSandboxSetting,
  planSandbox,
  sandboxLaunch,
} from "../../src/confine/sandbox/mod.ts";
import { networkArgv, networkBwrapOptions } from "../../src/confine/sandbox/network.ts";
import { realRunner } from "../../src/sys/real.ts";
import { world } from "../e2e/_world.ts";

function serve(name: string) {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    hits++;
    return new Response(`${name}-reached\n`);
  });
  return { port: server.addr.port, hits: () => hits, stop: () => server.shutdown() };
}

const forwarded = serve("forwarded");
const host = serve("host");
const result: Record<string, unknown> = {};
const curl = (port: number) =>
  `curl -s -m 5 http://127.0.0.1:${port}/ || echo "unreachable ${port}"`;
const script = `${curl(forwarded.port)}; ${curl(host.port)}; ip -4 -br addr`;

async function output(argv: string[], env: Record<string, string>, cwd: string) {
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

const scratch = await Deno.makeTempDir({ prefix: "pitroom-net-inner-" });
await Deno.chmod(scratch, 0o777);
try {
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: scratch,
    MODEL_BASE_URL: `http://127.0.0.1:${forwarded.port}/v1`,
  };
  const sys = {
    runner: realRunner,
    env: { get: (n: string) => env[n as keyof typeof env], toObject: () => ({ ...env }) },
  };
  const launch = { argv: ["sh", "-c", script], env, cwd: scratch, files: [], stdin: null };
  const privateDir = join(scratch, "root");
  await Deno.mkdir(privateDir);
  const wrapped = await sandboxLaunch(sys, launch, {
    mode: "read",
    privateDir,
    setting: { ...defaultSandboxSetting(), network: "isolated" },
  });
  result.root = {
    ...(await output(wrapped.launch.argv, wrapped.launch.env, scratch)),
    use: wrapped.use,
  };

  // A killed starter leaves nothing behind: neither the worker nor pasta.
  const tag = `4111.${Math.floor(Math.random() * 1e6)}`;
  const killDir = join(scratch, "kill");
  await Deno.mkdir(killDir);
  const sleeper = await sandboxLaunch(sys, { ...launch, argv: ["sh", "-c", `sleep ${tag}`] }, {
    mode: "read",
    privateDir: killDir,
    setting: { ...defaultSandboxSetting(), network: "isolated" },
  });
  const starter = new Deno.Command("sh", {
    args: ["-c", '"$@" & wait', "sh", ...sleeper.launch.argv],
    env: sleeper.launch.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const ours = async () => {
    const ps = await new Deno.Command("ps", { args: ["-eo", "pid=,stat=,args="] }).output();
    return new TextDecoder().decode(ps.stdout).split("\n").filter((l) =>
      !/^\s*\d+\s+Z/.test(l) && (l.includes(`sleep ${tag}`) || l.includes(join(killDir, ".net")))
    );
  };
  const until = async (check: (lines: string[]) => boolean) => {
    for (let i = 0; i < 400; i++) {
      const lines = await ours();
      if (check(lines)) return lines;
      await new Promise((r) => setTimeout(r, 25));
    }
    return await ours();
  };
  // The worker itself runs (the helpers' command lines name it from the start).
  const running = await until((l) =>
    l.some((x) => new RegExp(`^\\s*\\d+\\s+\\S+\\s+sleep ${tag.replace(".", "\\.")}$`).test(x))
  );
  Deno.kill(starter.pid, "SIGKILL");
  await starter.status;
  const left = await until((l) => l.length === 0);
  result.kill = { running: running.length, left };

  if (Deno.uid() === 0) {
    // The same launch as an unprivileged user: pasta makes the namespaces itself.
    const userDir = join(scratch, "user");
    await Deno.mkdir(userDir, { mode: 0o777 });
    await Deno.chmod(userDir, 0o777);
    const plan = await planSandbox({
      mode: "read",
      cwd: scratch,
      privateDir: userDir,
      state: [],
      extra: [],
      env,
      argv: launch.argv,
    });
    await new Deno.Command("chown", { args: ["-R", "65534:65534", userDir] }).output();
    const who = { asRoot: false, uid: 65534, gid: 65534 };
    const inner = bwrapArgv(plan, launch.argv, { extra: networkBwrapOptions(who) });
    const argv = networkArgv(inner, {
      dir: join(userDir, ".net"),
      ports: [forwarded.port],
      pasta: "pasta",
      setpriv: "setpriv",
      asRoot: false,
    });
    result.user = await output(
      ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", ...argv],
      { ...env, TMPDIR: plan.tmp },
      scratch,
    );
  }

  const workers = (Deno.args[0] ?? "").split(",").filter((w) => w !== "");
  const models: Record<string, string> = {
    opencode: "fake/fetch",
    codex: "fake/fetch",
    claude: "fetch",
    gemini: "fetch",
  };
  // The first worker also runs once on the host's network: the control, where the fetch lands.
  const sides = workers.flatMap((worker, i) =>
    i === 0 ? [[worker, "host"], [worker, "isolated"]] : [[worker, "isolated"]]
  );
  for (const [worker, network] of sides as [string, string][]) {
    const before = host.hits();
    await using w = await world({
      fetch: {
        turns: [
          { shell: `curl -s -m 5 http://127.0.0.1:${host.port}/ || echo unreachable` },
          { answer: "Fetched." },
        ],
      },
    }, { config: { sandbox: { mode: "required", network } } });
    // `--web`: the CLIs' own rules allow the fetch (codex's own sandbox has no network without
    // it), so only Pitroom's network isolation stands in its way.
    const run = await w.run([
      "run",
      "-w",
      "--web",
      "-t",
      "120s",
      "--json",
      "-W",
      worker,
      "-m",
      models[worker]!,
      "fetch it",
    ]);
    let record: { outcome?: string; notes?: string[]; answer?: string } = {};
    try {
      record = JSON.parse(run.stdout);
    } catch {
      record = { outcome: `unparsed: ${run.stdout.slice(0, 300)} ${run.stderr.slice(0, 600)}` };
    }
    result[network === "host" ? `${worker}-host` : worker] = {
      code: run.code,
      outcome: record.outcome,
      answer: record.answer,
      notes: record.notes,
      hostHits: host.hits() - before,
    };
  }
} finally {
  await forwarded.stop();
  await host.stop();
  await Deno.remove(scratch, { recursive: true }).catch(() => undefined);
}
console.log(JSON.stringify({ ...result, ports: { forwarded: forwarded.port, host: host.port } }));
