/**
 * Runs the real program the way users get it: `main.ts` through `deno run` with the permission
 * set the binary is compiled with (`-P=pitroom` from deno.json, defined once there).
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { V8_FLAGS_ARG } from "../../src/sys/real.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The repository root. */
export const REPO_ROOT: string = ROOT;

/**
 * The program under test: main.ts, or the shipped payload when `PITROOM_TEST_PROGRAM` names
 * a bundle (`deno task test` starts dist/pitroom/pitroom.js in every test that starts the program).
 */
function program(): string {
  const bundle = Deno.env.get("PITROOM_TEST_PROGRAM");
  return bundle ? resolve(ROOT, bundle) : join(ROOT, "main.ts");
}

/** The argv that starts pitroom under test. */
export function pitroomArgv(): string[] {
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-prompt",
    `--config=${join(ROOT, "deno.json")}`,
    "-P=pitroom",
    V8_FLAGS_ARG,
    program(),
  ];
}

/**
 * What every program under test gets in its environment: where it finds its npm packages (the
 * test runner's module cache; a child started with a cleared environment has no HOME, so it is
 * told the cache explicitly), and `PITROOM_DASH=0`, so a long run leaves no dashboard behind (a
 * test of the live view sets it back).
 */
export function moduleCacheEnv(): Record<string, string> {
  const dir = Deno.env.get("DENO_DIR") ??
    (Deno.env.get("HOME") ? join(Deno.env.get("HOME")!, ".cache", "deno") : undefined);
  return { PITROOM_DASH: "0", ...(dir === undefined ? {} : { DENO_DIR: dir }) };
}

/** What a pitroom process did. */
export interface PitroomResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs pitroom to completion. */
export async function pitroom(
  args: string[],
  options: { env: Record<string, string>; cwd: string; stdin?: string },
): Promise<PitroomResult> {
  const [cmd, ...rest] = pitroomArgv();
  const child = new Deno.Command(cmd!, {
    args: [...rest, ...args],
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...moduleCacheEnv(), ...options.env },
    clearEnv: true,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(options.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
