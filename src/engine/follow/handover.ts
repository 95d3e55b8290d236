/**
 * A result that hands runs over states, in each run's receipt, what was returned of the run, this
 * result included: its own size depends on the figure it prints. `settleHandover` renders the
 * result, measures it, and renders it again with the figures that size gives until they agree (a
 * digit more in a figure is a byte more in the result; two or three rounds). The result's size is
 * split among its runs by the size of each run's own part, taken once, from the result before
 * any figure of it is printed: the one number to settle is the whole size, whatever the number
 * of runs. The shares it gives are measured on the result it returns, so they are exact even in
 * the rare case where no round agreed and the printed figures are a few bytes off. Pure.
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

/** How a result that hands runs over is made and measured (the CLI's output, an MCP result). */
export interface Handing<R> {
  /** The result for the runs as shown (each run's receipt saying what was returned of it). */
  render(shown: RunRecord[]): R;
  /** The bytes the result hands over. */
  size(result: R): number;
  /** Each run's own part of a result, bytes: the weights its size is split by. */
  parts(result: R): ReadonlyMap<string, number>;
  /**
   * The result with `bytes` blank bytes more, where nobody reads them (the end of a CLI's text,
   * of an MCP result's text); none when the result cannot take them.
   */
  pad?(result: R, bytes: number): R;
}

/**
 * Renders a result handing `runs` over, each run stating what was handed over of it before (its
 * receipt's `returned`) plus its share of this result. Returns the result and each run's share
 * of it (bytes; they add up to its size).
 *
 * A figure's digits and the compression it gives can make two sizes each print the other (2,032
 * bytes printing as 2,034 and back): after half the rounds without agreement the size only
 * grows, so it stops at one the result does not exceed, and the result is padded up to it.
 */
export function settleHandover<R>(
  runs: readonly RunRecord[],
  handing: Handing<R>,
): { result: R; shares: Map<string, number> } {
  const before = new Map(
    runs.map((r) => [r.id, r.receipt?.returned ?? { bytes: 0, handovers: 0 }] as const),
  );
  let result = handing.render([...runs]);
  const parts = handing.parts(result);
  const split = (size: number) => sharesOf(size, parts);
  let made = handing.size(result);
  let printed: number | undefined;
  for (let round = 0; round < ROUNDS && made !== printed; round++) {
    // Half the rounds as measured (where sizes agree, they agree there); then only growing.
    const next = round >= ROUNDS / 2 ? Math.max(made, printed ?? 0) : made;
    if (next === printed) break;
    printed = next;
    const shares = split(printed);
    result = handing.render(runs.map((r) => {
      const was = before.get(r.id)!;
      return withReturned(r, {
        bytes: was.bytes + (shares.get(r.id) ?? 0),
        handovers: was.handovers + 1,
      });
    }));
    made = handing.size(result);
  }
  if (handing.pad !== undefined && printed !== undefined && made < printed) {
    result = handing.pad(result, printed - made);
    made = handing.size(result);
  }
  return { result, shares: split(made) };
}
