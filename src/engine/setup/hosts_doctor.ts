/**
 * `doctor`'s checks of the configured hosts: an SSH host is reached with one `ssh` call that
 * reports git, Pitroom, each worker CLI and bubblewrap there with their versions; a container
 * host's engine and image are looked up here. A bad entry is one failed check naming it.
 */
import type { HeldSys } from "../../store/state.ts";
import { WORKER_NAMES } from "../../workers/names.ts";
import type { Check } from "./doctor.ts";
import { type ContainerHost, hostConfig, remoteDir, sshArgv, type SshHost } from "../core/hosts.ts";
import { engineOf, engineReason } from "../remote/engines.ts";

/**
 * The shell line that reports what the host has: one `name<TAB>first line` each. The tools are
 * asked at once (each a node program taking a second or more to start), their lines in any order;
 * each is one short write, so lines never mix.
 */
export function probeLine(host: SshHost): string {
  const env = Object.entries(host.env).map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`);
  const tools = [
    ["git", "git --version"],
    ["pitroom", `${host.pitroom} --version`],
    ["bwrap", "bwrap --version"],
    ...WORKER_NAMES.map((w) => [w, `${w} --version`]),
  ];
  const each = tools.map(([name, cmd]) =>
    `printf '%s\\t%s\\n' ${name} "$( (${cmd}) 2>/dev/null </dev/null | head -n 1)"`
  );
  return `mkdir -p ${remoteDir(host.dir)} && cd ${remoteDir(host.dir)} && export ${
    env.length ? env.join(" ") : "PITROOM_PROBE=1"
  }; ${each.map((line) => `${line} &`).join(" ")} wait`;
}

function parseProbe(out: string): Map<string, string> {
  return new Map(
    out.split("\n").flatMap((line) => {
      const tab = line.indexOf("\t");
      return tab < 0 ? [] : [[line.slice(0, tab), line.slice(tab + 1).trim()]];
    }),
  );
}

async function sshChecks(sys: HeldSys, host: SshHost): Promise<Check[]> {
  const check = `host ${host.name}`;
  const env = sys.env.toObject();
  const keep = ["HOME", "PATH", "USER", "SSH_AUTH_SOCK"];
  const out = await sys.runner.run(sshArgv(host, probeLine(host)), {
    env: Object.fromEntries(keep.flatMap((k) => env[k] === undefined ? [] : [[k, env[k]!]])),
    stdin: { kind: "null" },
  }).catch((error) => ({ code: 255, stdout: "", stderr: String(error) }));
  if (out.code !== 0) {
    const why = out.stderr.trim().split("\n").at(-1) ?? `ssh exited with ${out.code}`;
    return [{
      check,
      section: "hosts",
      status: "error",
      message: `${host.ssh} cannot be reached: ${why}`,
      hint: `ssh ${host.ssh} true`,
    }];
  }
  const found = parseProbe(out.stdout);
  const checks: Check[] = [{
    check,
    section: "hosts",
    status: "ok",
    message: `${host.ssh} reached`,
  }];
  const tool = (name: string, missing: "error" | "warn", why: string) => {
    const version = found.get(name) ?? "";
    checks.push(
      version === ""
        ? { check: `${check} ${name}`, section: "hosts", status: missing, message: why }
        : { check: `${check} ${name}`, section: "hosts", status: "ok", message: version },
    );
  };
  tool("git", "error", "git is not installed there: runs cannot be shipped");
  tool(
    "pitroom",
    "error",
    `"${host.pitroom}" does not start Pitroom there (the host's "pitroom" setting)`,
  );
  tool("bwrap", "warn", "no bubblewrap there: workers run there without Pitroom's sandbox");
  const workers = WORKER_NAMES.filter((w) => (found.get(w) ?? "") !== "");
  checks.push(
    workers.length === 0
      ? {
        check: `${check} workers`,
        section: "hosts",
        status: "error",
        message: 'no worker CLI there (on the PATH the host\'s "env" gives)',
      }
      : {
        check: `${check} workers`,
        section: "hosts",
        status: "ok",
        message: workers.map((w) => `${w} ${found.get(w)}`).join(", "),
      },
  );
  return checks;
}

async function containerChecks(sys: HeldSys, host: ContainerHost): Promise<Check[]> {
  const check = `host ${host.name}`;
  if (host.engine === "kubernetes") {
    // The cluster path is written, not tested here (docs/hosts.md): only its kubeconfig is looked at.
    const env = sys.env.toObject();
    const file = env.KUBECONFIG?.split(":")[0] ?? (env.HOME ? `${env.HOME}/.kube/config` : "");
    const found = file !== "" && await Deno.stat(file).then(() => true, () => false);
    return [{
      check,
      section: "hosts",
      status: found ? "warn" : "error",
      message: found
        ? `a Kubernetes Job host (kubeconfig ${file}): this path is untested, its image must hold git and the worker CLI`
        : "a Kubernetes Job host with no kubeconfig (KUBECONFIG or ~/.kube/config)",
    }];
  }
  const engine = engineOf(host);
  const env = sys.env.toObject();
  const ask = (args: string[]) =>
    sys.runner.run([engine.program, ...args], { env, stdin: { kind: "null" } }).catch((error) => ({
      code: 127,
      stdout: "",
      stderr: error instanceof Error ? error.message : String(error),
    }));
  const version = await ask(["--version"]);
  if (version.code !== 0) {
    return [{
      check,
      section: "hosts",
      status: "error",
      message: `${engine.program} is not installed here`,
      hint: engine.install,
    }];
  }
  // A daemon that does not answer (docker's) fails every run: said once, in one line.
  const reached = engine.reach === null ? null : await ask(engine.reach.args);
  if (reached !== null && reached.code !== 0) {
    return [{
      check,
      section: "hosts",
      status: "error",
      message: `the ${engine.program} daemon cannot be reached: ${
        engineReason(reached.stderr) || `${engine.program} info exited ${reached.code}`
      }`,
      hint: engine.reach!.hint,
    }];
  }
  const out = await ask(engine.hasImage(host.image));
  const missing = host.mounts.filter((m) => {
    try {
      return !Deno.statSync(m).isDirectory;
    } catch {
      return true;
    }
  });
  return [
    {
      check,
      section: "hosts",
      status: "ok",
      message: version.stdout.trim().split("\n")[0]! +
        (reached === null ? "" : ` (daemon ${reached.stdout.trim()} reached)`),
    },
    {
      check: `${check} image`,
      section: "hosts",
      status: out.code === 0 ? "ok" : "error",
      message: out.code === 0
        ? `${engine.program} has the image ${host.image}`
        : `${engine.program} has no image ${host.image}`,
      ...(out.code === 0 ? {} : { hint: `${engine.program} pull ${host.image}` }),
    },
    ...(missing.length === 0 ? [] : [{
      check: `${check} mounts`,
      section: "hosts" as const,
      status: "error" as const,
      message: `"container.mounts" names folders this machine lacks: ${missing.join(", ")}`,
    }]),
  ];
}

/** The checks of every configured host. */
export async function checkHosts(sys: HeldSys, hosts: unknown): Promise<Check[]> {
  const names = typeof hosts === "object" && hosts !== null ? Object.keys(hosts) : [];
  return (await Promise.all(names.map(async (name): Promise<Check[]> => {
    let host;
    try {
      host = hostConfig(hosts, name);
    } catch (error) {
      return [{
        check: `host ${name}`,
        section: "hosts",
        status: "error",
        message: error instanceof Error ? error.message : String(error),
      }];
    }
    return host.kind === "ssh" ? await sshChecks(sys, host) : await containerChecks(sys, host);
  }))).flat();
}
