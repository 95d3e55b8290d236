/**
 * This machine's podman for the container benchmark: the wrapper with the same work-arounds as
 * the container tests (tests/e2e/_containers.ts; docs/hosts.md says why), put first on the PATH
 * Pitroom runs with, and the tiny image imported from a local rootfs.
 */
import { join } from "node:path";
import { engine, ensureImage as ensureImageOf } from "../../tests/e2e/_containers.ts";

export { IMAGE, PODMAN, podmanWrapper } from "../../tests/e2e/_containers.ts";

/** Imports the image once, through the wrapper in `bin` (a rootfs made in `dir`). */
export async function ensureImage(bin: string, dir: string): Promise<void> {
  await ensureImageOf(join(bin, "podman"), dir);
}

/** The pods podman lists whose name starts with `pitroom-`. */
export async function pitroomPods(bin: string): Promise<string[]> {
  const pods = await engine(join(bin, "podman"), ["pod", "ps", "--format", "{{.Name}}"]);
  if (pods.code !== 0) throw new Error(`podman pod ps failed: ${pods.stderr}`);
  return pods.stdout.split("\n").filter((n) => n.startsWith("pitroom-"));
}
