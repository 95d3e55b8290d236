/**
 * A result that hands runs over states, in each run's receipt, what was returned of the run, this
 * result included: its own size depends on the figure it prints. `settleHandover` renders the
 * result, measures what it hands over of each run, and renders it again with those figures until
 * they agree (a digit more in a figure is a byte more in the result; two or three rounds). The
 * shares it gives are measured on the result it returns, so they are exact even in the rare case
 * where no round agreed and the printed figure is a token off. Pure.
 */
import type { RunRecord } from "../../store/record.ts";
import { receiptReturned } from "../../store/returned.ts";

/** What was handed over of a run: bytes, in how many results. */
export interface Returned {
  bytes: number;
  handovers: number;
}

/** The run as a result states it: its receipt saying `returned` (unchanged without a receipt). */
export function withReturned(run: RunRecord, returned: Returned): RunRecord {
  if (run.receipt === undefined) return run;
  return { ...run, receipt: receiptReturned(run.receipt, returned.bytes, returned.handovers) };
}

/**
 * `total` bytes split among runs in proportion to their weights (each run's own part of the
 * result), by largest remainder: the shares are whole bytes and sum to `total`.
 */
export function sharesOf(total: number, weights: ReadonlyMap<string, number>): Map<string, number> {
  const ids = [...weights.keys()];
  const sum = ids.reduce((s, id) => s + Math.max(0, weights.get(id)!), 0);
  const exact = ids.map((id) =>
    sum === 0 ? total / ids.length : (total * Math.max(0, weights.get(id)!)) / sum
  );
  const shares = exact.map(Math.floor);
  let left = total - shares.reduce((s, n) => s + n, 0);
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) }))
    .sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    shares[i]! += 1;
    left -= 1;
  }
  return new Map(ids.map((id, i) => [id, shares[i]!]));
}

/** Most rounds `settleHandover` renders before it takes the last. */
const ROUNDS = 8;

function same(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  return a.size === b.size && [...a].every(([id, n]) => b.get(id) === n);
}

/**
 * Renders a result handing `runs` over, each run stating what was handed over of it before (its
 * receipt's `returned`) plus its share of this result; `measure` gives each run's share of a
 * rendered result (bytes). Returns the result and its measured shares.
 *
 * A figure's digits and the compression it gives can make two figures each print the other's
 * size (2,032 bytes printing as 2,034 and back): after half the rounds without agreement the
 * figures only grow, so they stop at one the result does not exceed, and `pad` (where the result
 * can take blank bytes, as a CLI's text can) fills a one-run result up to the figure it prints.
 */
export function settleHandover<R>(
  runs: readonly RunRecord[],
  render: (shown: RunRecord[]) => R,
  measure: (result: R) => Map<string, number>,
  pad?: (result: R, bytes: number) => R,
): { result: R; shares: Map<string, number> } {
  const before = new Map(
    runs.map((r) => [r.id, r.receipt?.returned ?? { bytes: 0, handovers: 0 }] as const),
  );
  let shares = new Map(runs.map((r) => [r.id, 0]));
  let result = render([...runs]);
  let measured = measure(result);
  for (let round = 0; round < ROUNDS && !same(measured, shares); round++) {
    // Half the rounds as measured (where figures agree, they agree there); then only growing.
    const growing = round >= ROUNDS / 2;
    const next = growing
      ? new Map([...measured].map(([id, n]) => [id, Math.max(n, shares.get(id) ?? 0)] as const))
      : measured;
    if (growing && same(next, shares)) break;
    shares = next;
    result = render(runs.map((r) => {
      const was = before.get(r.id)!;
      return withReturned(r, {
        bytes: was.bytes + (shares.get(r.id) ?? 0),
        handovers: was.handovers + 1,
      });
    }));
    measured = measure(result);
  }
  if (pad !== undefined && runs.length === 1 && !same(measured, shares)) {
    const id = runs[0]!.id;
    const missing = (shares.get(id) ?? 0) - (measured.get(id) ?? 0);
    if (missing > 0) {
      result = pad(result, missing);
      measured = measure(result);
    }
  }
  return { result, shares: measured };
}
