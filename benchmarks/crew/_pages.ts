/**
 * The memory a group of processes takes together: their resident pages counted once each (a page
 * of the deno binary that the host, a `watch` and a `wait` all map is one page of RAM, where the
 * sum of their RSS counts it three times). Read from /proc/PID/maps and /proc/PID/pagemap, whose
 * page-frame numbers only root can see; without them it prints `null`. It prints the sum of their
 * proportional set sizes too (/proc/PID/smaps_rollup), `null` when one cannot be read: Deno lets
 * only a script run with `-A` read those files (-P=pitroom gets NotCapable), hence this script.
 *
 *   deno run -A benchmarks/crew/_pages.ts PID...   -> {"distinctKb": N | null, "pssKb": N | null}
 */
const PAGE = 4096;

async function frames(pid: string, into: Set<bigint>): Promise<boolean> {
  const maps = await Deno.readTextFile(`/proc/${pid}/maps`);
  using pagemap = await Deno.open(`/proc/${pid}/pagemap`, { read: true });
  let seen = false;
  for (const line of maps.split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (m === null) continue;
    const start = BigInt(`0x${m[1]}`) / BigInt(PAGE);
    const pages = Number(BigInt(`0x${m[2]}`) / BigInt(PAGE) - start);
    const buffer = new Uint8Array(pages * 8);
    try {
      await pagemap.seek(start * 8n, Deno.SeekMode.Start);
      let read = 0;
      while (read < buffer.length) {
        const n = await pagemap.read(buffer.subarray(read));
        if (n === null || n === 0) break;
        read += n;
      }
    } catch {
      continue; // [vsyscall] and the like cannot be read
    }
    const view = new DataView(buffer.buffer);
    for (let i = 0; i < pages; i++) {
      const entry = view.getBigUint64(i * 8, true);
      if ((entry >> 63n) === 0n) continue; // not present in RAM
      const frame = entry & ((1n << 55n) - 1n);
      if (frame === 0n) continue; // hidden: not root
      into.add(frame);
      seen = true;
    }
  }
  return seen;
}

/** The proportional set size of `pid` in kB: each resident page divided by its mappers. */
async function pss(pid: string): Promise<number | null> {
  const rollup = await Deno.readTextFile(`/proc/${pid}/smaps_rollup`).catch(() => "");
  const kb = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1]);
  return kb > 0 ? kb : null;
}

const all = new Set<bigint>();
let visible = true;
let pssKb: number | null = 0;
for (const pid of Deno.args) {
  visible = (await frames(pid, all)) && visible;
  const kb = await pss(pid);
  pssKb = kb === null || pssKb === null ? null : pssKb + kb;
}
console.log(JSON.stringify({ distinctKb: visible ? all.size * (PAGE / 1024) : null, pssKb }));
