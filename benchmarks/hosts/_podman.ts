/**
 * This machine's podman for the container benchmark: the same three work-arounds as
 * tests/e2e/hosts_container_test.ts (docs/hosts.md says why), in a `podman` wrapper put first on
 * the PATH Pitroom runs with, and the tiny image imported from a local rootfs.
 */
import { join } from "node:path";

/** The image the benchmark's pods run (a root of empty folders; /usr and /etc are mounted). */
export const IMAGE = "localhost/pitroom-base:test";

/** The podman binary, or null when podman is not installed. */
export const PODMAN = ["/usr/bin/podman", "/usr/local/bin/podman"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
}) ?? null;

/** Writes the wrapper into `dir/bin`; returns that folder. */
export async function podmanWrapper(dir: string): Promise<string> {
  if (PODMAN === null) throw new Error("podman is not installed");
  const conf = join(dir, "containers.conf");
  await Deno.writeTextFile(conf, "[containers]\ndefault_ulimits = []\n");
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  const script = [
    "#!/bin/sh",
    `export CONTAINERS_CONF=${conf}`,
    `exec unshare -m sh -c 'umount /sys/fs/cgroup/unified 2>/dev/null; exec ${PODMAN} --cgroup-manager=cgroupfs "$@"' podman "$@"`,
    "",
  ].join("\n");
  await Deno.writeTextFile(join(bin, "podman"), script, { mode: 0o755 });
  return bin;
}

/** Runs the wrapper with `args` (and `stdin`); its code and output. */
export async function podman(bin: string, args: string[], stdin?: Uint8Array) {
  const child = new Deno.Command(join(bin, "podman"), {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const out = await child.output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** Imports the image once (a rootfs of empty folders and usr-merged links). */
export async function ensureImage(bin: string, dir: string): Promise<void> {
  if ((await podman(bin, ["image", "exists", IMAGE])).code === 0) return;
  const root = join(dir, "rootfs");
  for (const d of ["dev", "etc", "proc", "root", "run", "sys", "tmp", "usr", "work"]) {
    await Deno.mkdir(join(root, d), { recursive: true });
  }
  const links = [["bin", "usr/bin"], ["lib", "usr/lib"], ["lib64", "usr/lib64"], [
    "sbin",
    "usr/sbin",
  ]] as const;
  for (const [link, target] of links) await Deno.symlink(target, join(root, link));
  const tar = await new Deno.Command("tar", { args: ["-C", root, "-c", "."], stdout: "piped" })
    .output();
  const imported = await podman(bin, ["import", "-", IMAGE], tar.stdout);
  if (imported.code !== 0) throw new Error(`podman import failed: ${imported.stderr}`);
}

/** The pods podman lists whose name starts with `pitroom-`. */
export async function pitroomPods(bin: string): Promise<string[]> {
  const pods = await podman(bin, ["pod", "ps", "--format", "{{.Name}}"]);
  if (pods.code !== 0) throw new Error(`podman pod ps failed: ${pods.stderr}`);
  return pods.stdout.split("\n").filter((n) => n.startsWith("pitroom-"));
}
