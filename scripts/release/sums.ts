/** SHA-256 of release assets, as `sha256sum` writes them. */

/** The hex SHA-256 of a file. */
export async function sha256File(path: string): Promise<string> {
  const data = await Deno.readFile(path);
  const digest = await crypto.subtle.digest("SHA-256", data);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads a `SHA256SUMS` file: asset name -> hex digest. */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const m = /^([0-9a-f]{64}) [ *]?(\S+)$/.exec(line.trim());
    if (!m) throw new Error(`SHA256SUMS: cannot read the line "${line}"`);
    sums.set(m[2]!, m[1]!);
  }
  return sums;
}
