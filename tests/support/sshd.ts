/**
 * A real OpenSSH server for one test: its own host and user keys, config and log in a temp dir,
 * listening on 127.0.0.1 (tests that use it run in a loopback-only network namespace). Logs in
 * as the user running the tests. `sshd` absent: `SSHD` is null, and the test says why it skips
 * (CI installs openssh-server, where a missing one fails: `requireOrSkip`).
 */
import { join } from "node:path";
import { tempDir, waitFor } from "./temp.ts";

/** The server binary, or null when openssh-server is not installed. */
export const SSHD: string | null = (() => {
  try {
    return Deno.statSync("/usr/sbin/sshd").isFile ? "/usr/sbin/sshd" : null;
  } catch {
    return null;
  }
})();

/** A running sshd. */
export interface Sshd extends AsyncDisposable {
  port: number;
  /** The user's private key. */
  key: string;
  /** `user@127.0.0.1`. */
  destination: string;
  /** The ssh options a client needs (known hosts off: the host key is fresh). */
  options: string[];
  pid: number;
  /** The server's log. */
  log(): Promise<string>;
}

async function keygen(path: string): Promise<void> {
  const out = await new Deno.Command("ssh-keygen", {
    args: ["-q", "-t", "ed25519", "-N", "", "-f", path],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(new TextDecoder().decode(out.stderr));
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts sshd on a free loopback port. */
export async function startSshd(): Promise<Sshd> {
  if (SSHD === null) throw new Error("openssh-server is not installed");
  const dir = await tempDir("pitroom-sshd-");
  await Deno.chmod(dir.path, 0o700);
  await Deno.mkdir("/run/sshd", { recursive: true });
  const hostKey = join(dir.path, "host_key");
  const key = join(dir.path, "user_key");
  await keygen(hostKey);
  await keygen(key);
  await Deno.copyFile(`${key}.pub`, join(dir.path, "authorized_keys"));
  const port = freePort();
  const config = join(dir.path, "sshd_config");
  const pidFile = join(dir.path, "sshd.pid");
  await Deno.writeTextFile(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir.path, "authorized_keys")}`,
      `PidFile ${pidFile}`,
      "StrictModes no",
      "UsePAM no",
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "",
    ].join("\n"),
  );
  const logFile = join(dir.path, "sshd.log");
  // -D: stays in the foreground, so the test owns the process; -E: the log file.
  const child = new Deno.Command(SSHD, {
    args: ["-D", "-f", config, "-E", logFile],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  // Ready once it accepts a connection.
  try {
    await waitFor(async () => {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        return true;
      } catch {
        return false;
      }
    }, { timeoutMs: 10_000, what: "sshd to listen" });
  } catch (error) {
    child.kill("SIGKILL");
    await child.status;
    throw error;
  }
  const user = Deno.env.get("USER") ?? (Deno.uid() === 0 ? "root" : "");
  return {
    port,
    key,
    destination: `${user}@127.0.0.1`,
    options: ["StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null", "LogLevel=ERROR"],
    pid: child.pid,
    log: () => Deno.readTextFile(logFile).catch(() => ""),
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone already */ }
      await child.status;
      await dir[Symbol.asyncDispose]();
    },
  };
}
