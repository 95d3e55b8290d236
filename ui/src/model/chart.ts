/** Chart geometry (pure): bars in a box, with a scale that ends on a round number. */

/** One bar. */
export interface Bar {
  label: string;
  value: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A round upper bound at or above `max` (1, 2, 2.5, 5 times a power of ten). */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/**
 * Vertical bars for `values` in a `width` x `height` box (gap between bars in pixels), each at
 * most `maxBar` wide, from the left.
 */
export function bars(
  values: Array<{ label: string; value: number }>,
  box: { width: number; height: number; gap?: number; maxBar?: number },
): { bars: Bar[]; max: number } {
  const gap = box.gap ?? 2;
  const max = niceMax(Math.max(0, ...values.map((v) => v.value)));
  const n = Math.max(1, values.length);
  const width = Math.min(box.maxBar ?? Infinity, Math.max(1, (box.width - gap * (n - 1)) / n));
  return {
    max,
    bars: values.map((v, i) => {
      const height = (Math.max(0, v.value) / max) * box.height;
      return {
        label: v.label,
        value: v.value,
        x: i * (width + gap),
        y: box.height - height,
        width,
        height,
      };
    }),
  };
}
