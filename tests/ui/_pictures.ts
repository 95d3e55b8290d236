/**
 * The README's picture of the dashboard (docs/dashboard.png) stays true (issue 26 item 6): the
 * browser test takes it from a real run (light theme, a crew and a run panel with a diff), and
 * docs/dashboard.json names the digest of the page's sources it was taken of. When the page's
 * sources change, tests/ui/pictures_test.ts fails until the picture is taken again:
 * `deno task docs:pictures` runs the browser test with `PITROOM_UPDATE_PICTURES=1`, which copies
 * its shot over docs/dashboard.png and writes the new digest.
 */
import { join, relative } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
/** What the picture shows: the page's own sources (the UI and the page around it). */
const SOURCES = ["ui/src", "src/server/dash/page.html"];
const PICTURE = join(ROOT, "docs", "dashboard.png");
const RECORD = join(ROOT, "docs", "dashboard.json");

async function files(path: string): Promise<string[]> {
  const info = await Deno.stat(path);
  if (info.isFile) return [path];
  const out: string[] = [];
  for await (const entry of Deno.readDir(path)) out.push(...await files(join(path, entry.name)));
  return out;
}

/** SHA-256 over the page's sources (their paths and bytes, in path order). */
export async function pageDigest(): Promise<string> {
  const all = (await Promise.all(SOURCES.map((s) => files(join(ROOT, s))))).flat().sort();
  const parts: Uint8Array[] = [];
  const encoder = new TextEncoder();
  for (const file of all) {
    parts.push(
      encoder.encode(`${relative(ROOT, file)}\0`),
      await Deno.readFile(file),
      Uint8Array.of(0),
    );
  }
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The digest docs/dashboard.json names (null when there is none). */
export async function recordedDigest(): Promise<string | null> {
  try {
    return JSON.parse(await Deno.readTextFile(RECORD)).pageDigest ?? null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Makes `shot` the README's picture of the page as it is now (`deno task docs:pictures`). */
export async function takePicture(shot: string): Promise<void> {
  await Deno.copyFile(shot, PICTURE);
  const record = {
    pageDigest: await pageDigest(),
    shot: "tests/ui/browser_test.ts",
    sources: SOURCES,
  };
  await Deno.writeTextFile(RECORD, JSON.stringify(record, null, 2) + "\n");
}
