/** Plain SVG bar charts (no chart library). */
import { bars } from "../model/chart.ts";

const W = 560;
const H = 140;

/** A bar chart of `values`, each bar titled with its label and formatted value. */
export function BarChart(
  { title, values, format }: {
    title: string;
    values: Array<{ label: string; value: number }>;
    format: (n: number) => string;
  },
) {
  const { bars: bs, max } = bars(values, { width: W, height: H, gap: 3, maxBar: 56 });
  const step = Math.max(1, Math.ceil(values.length / 8));
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`-40 -10 ${W + 50} ${H + 34}`} role="img" aria-label={title}>
        <line x1={0} y1={H} x2={W} y2={H} class="axis" />
        <line x1={0} y1={0} x2={W} y2={0} class="grid" />
        <text x={-6} y={4} class="tick" text-anchor="end">{format(max)}</text>
        <text x={-6} y={H} class="tick" text-anchor="end">0</text>
        {bs.map((b, i) => (
          <g key={b.label}>
            <rect x={b.x} y={b.y} width={b.width} height={b.height} class="bar" rx={2}>
              <title>{`${b.label}: ${format(b.value)}`}</title>
            </rect>
            {i % step === 0 && (
              <text x={b.x + b.width / 2} y={H + 16} class="tick" text-anchor="middle">
                {b.label.length > 12 ? b.label.slice(0, 11) + "…" : b.label}
              </text>
            )}
          </g>
        ))}
      </svg>
    </figure>
  );
}
