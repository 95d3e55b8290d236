/**
 * The release targets and the checks on a compiled binary: what `deno compile` embedded (its
 * printed file tree), the payload's size against the budget, and the permission set written
 * into the binary against deno.json's. Pure, so the tests check the checks.
 */

/** Every platform a release ships, by asset name (`pitroom-<os>-<arch>`). */
export const TARGETS = {
  "linux-x64": { triple: "x86_64-unknown-linux-gnu", exe: false },
  "linux-arm64": { triple: "aarch64-unknown-linux-gnu", exe: false },
  "darwin-x64": { triple: "x86_64-apple-darwin", exe: false },
  "darwin-arm64": { triple: "aarch64-apple-darwin", exe: false },
  "windows-x64": { triple: "x86_64-pc-windows-msvc", exe: true },
} as const;

export type TargetName = keyof typeof TARGETS;

/**
 * What a release ships. Windows compiles but is not released: Pitroom stops a worker and all it
 * started through POSIX process groups and signals, and sandboxes it with bubblewrap or
 * sandbox-exec, none of which Windows has (WSL 2 runs the Linux binary).
 */
export const RELEASE_TARGETS: TargetName[] = [
  "linux-x64",
  "linux-arm64",
  "darwin-x64",
  "darwin-arm64",
];

/** The compiled payload (modules and assets, without the runtime) may not exceed this. */
export const PAYLOAD_BUDGET_BYTES = 4 * 1024 * 1024;

/** What `deno compile` printed about the embedded files. */
export interface CompileOutput {
  /** The top-level entries of the embedded tree that hold something (an empty folder is left out). */
  embedded: string[];
  /** The "Files:" total, in bytes. */
  filesBytes: number;
  /** The "Metadata:" size, in bytes. */
  metadataBytes: number;
}

const UNITS: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

function bytes(text: string): number {
  const m = /^([\d.]+)\s*([KMG]?B)$/.exec(text.trim());
  if (!m) throw new Error(`cannot read the size "${text}"`);
  return Math.round(Number(m[1]) * UNITS[m[2]!]!);
}

/** Reads the embedded tree and the totals from the compiler's output. */
export function parseCompileOutput(text: string): CompileOutput {
  const lines = text.split("\n");
  const files = lines.find((l) => l.startsWith("Files: "));
  const meta = lines.find((l) => l.startsWith("Metadata: "));
  if (!files || !meta) throw new Error("deno compile printed no embedded-files summary");
  const start = lines.findIndex((l) => l.trim() === "Embedded Files");
  const embedded: string[] = [];
  // The tree: a root line, then entries; the first level is drawn with one box character and a space.
  for (const line of lines.slice(start + 1)) {
    const m = /^[├└]─[─┬] (.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (m && m[2] !== "0B") embedded.push(m[1]!);
    if (line.startsWith("Files: ")) break;
  }
  return {
    embedded,
    filesBytes: bytes(files.slice("Files: ".length)),
    metadataBytes: bytes(meta.slice("Metadata: ".length)),
  };
}

/** A permission set as deno.json writes it. */
export type PermissionSet = Record<string, boolean | string[]>;

const KINDS = ["read", "write", "run", "env", "sys", "net", "ffi"] as const;

/** The `"permissions":{...}` object written into a compiled binary. */
export function embeddedPermissions(binary: Uint8Array): Record<string, unknown> | null {
  // The object has no nested braces; the binary is mostly not text, so decode loosely.
  const text = new TextDecoder("latin1").decode(binary);
  const m = /"permissions":(\{[^{}]*\})/.exec(text);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!);
  } catch {
    return null;
  }
}

/** The `"v8_flags":[...]` list written into a compiled binary (the runtime's own first). */
export function embeddedV8Flags(binary: Uint8Array): string[] | null {
  const text = new TextDecoder("latin1").decode(binary);
  const m = /"v8_flags":(\[[^\[\]]*\])/.exec(text);
  if (!m) return null;
  try {
    const list = JSON.parse(m[1]!);
    return Array.isArray(list) && list.every((f) => typeof f === "string") ? list : null;
  } catch {
    return null;
  }
}

/** How the set of deno.json must appear in the binary: `[]` for all, a list, or null for none. */
export function expectedEmbedded(set: PermissionSet): Record<string, string[] | null> {
  const want: Record<string, string[] | null> = {};
  for (const kind of KINDS) {
    const v = set[kind];
    want[`allow_${kind}`] = v === true ? [] : Array.isArray(v) ? [...v] : null;
  }
  return want;
}

/** The result of checking one compiled binary. */
export interface CompileCheck {
  embedded: string[];
  payloadBytes: number;
  permissionsMatch: boolean;
  /** Whether every one of Pitroom's V8 flags (src/sys/real.ts `V8_FLAGS`) is baked into the binary. */
  v8FlagsMatch: boolean;
  problems: string[];
}

/**
 * Checks the embedded file list (the bundle's folder, `bundle` as the compiler names it from the
 * checkout, and nothing else), the size budget, the embedded permissions and V8 flags.
 */
export function checkCompile(
  output: CompileOutput,
  binary: Uint8Array,
  set: PermissionSet,
  bundle: string,
  v8Flags: readonly string[],
): CompileCheck {
  const problems: string[] = [];
  const payloadBytes = output.filesBytes + output.metadataBytes;
  if (output.embedded.length !== 1 || output.embedded[0] !== `${bundle}/*`) {
    problems.push(
      `the payload must be the bundle's folder ${bundle}, found: ${
        output.embedded.join(", ") || "nothing"
      }`,
    );
  }
  if (payloadBytes > PAYLOAD_BUDGET_BYTES) {
    problems.push(`payload ${payloadBytes} bytes is over the budget of ${PAYLOAD_BUDGET_BYTES}`);
  }
  const found = embeddedPermissions(binary);
  let permissionsMatch = false;
  if (found === null) {
    problems.push("no permission set is embedded in the binary");
  } else {
    const want = expectedEmbedded(set);
    const wrong = Object.entries(want).filter(([k, v]) =>
      JSON.stringify(found[k] ?? null) !== JSON.stringify(v)
    ).map(([k, v]) => `${k}: ${JSON.stringify(found[k] ?? null)}, want ${JSON.stringify(v)}`);
    if (found.prompt !== false) wrong.push(`prompt: ${JSON.stringify(found.prompt)}, want false`);
    permissionsMatch = wrong.length === 0;
    for (const w of wrong) problems.push(`embedded permission ${w}`);
  }
  const flags = embeddedV8Flags(binary);
  const missing = v8Flags.filter((f) => !(flags ?? []).includes(f));
  if (missing.length > 0) {
    problems.push(
      `the binary lacks the V8 flag(s) ${missing.join(" ")} (embedded: ${
        flags === null ? "none" : flags.join(" ")
      })`,
    );
  }
  return {
    embedded: output.embedded,
    payloadBytes,
    permissionsMatch,
    v8FlagsMatch: missing.length === 0,
    problems,
  };
}
