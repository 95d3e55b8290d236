/**
 * Plain bar charts (no chart library): vertical SVG bars for values over days, whose box is
 * fitted to what it draws once the browser has laid it out (so no label is cut at its edge), and
 * horizontal HTML bars for values per worker and model, whose labels are whole (a model's name
 * wraps rather than being cut).
 */
import { useLayoutEffect, useRef } from "preact/hooks";
import { bars } from "../model/chart.ts";

const W = 560;
const H = 140;
/** About how wide a tick's character is, in the SVG's units (10px labels). */
const CHAR_W = 6.5;

/** A vertical bar chart of `values`, each bar titled with its label and formatted value. */
export function BarChart(
  { title, values, format }: {
    title: string;
    values: Array<{ label: string; value: number }>;
    format: (n: number) => string;
  },
) {
  const { bars: bs, max } = bars(values, { width: W, height: H, gap: 3, maxBar: 56 });
  const step = Math.max(1, Math.ceil(values.length / 8));
  const svg = useRef<SVGSVGElement>(null);
  // A first guess of the box from the labels' lengths, then the box of what was really drawn.
  const left = Math.ceil(Math.max(format(max).length, 1) * CHAR_W) + 12;
  const lastLabel = bs.at(-1)?.label.length ?? 0;
  const right = Math.max(10, Math.ceil(lastLabel * CHAR_W / 2));
  useLayoutEffect(() => {
    const el = svg.current;
    if (el === null) return;
    const box = el.getBBox();
    if (box.width === 0) return;
    const pad = 4;
    el.setAttribute(
      "viewBox",
      `${box.x - pad} ${box.y - pad} ${box.width + 2 * pad} ${box.height + 2 * pad}`,
    );
  });
  return (
    <figure class="chart" data-chart={title}>
      <figcaption>{title}</figcaption>
      <svg
        ref={svg}
        viewBox={`${-left} -10 ${W + left + right} ${H + 34}`}
        role="img"
        aria-label={title}
      >
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
                {b.label}
              </text>
            )}
          </g>
        ))}
      </svg>
    </figure>
  );
}

/** A horizontal bar chart: one row per label, the label whole, the bar, the formatted value. */
export function BarList(
  { title, values, format }: {
    title: string;
    values: Array<{ label: string; value: number }>;
    format: (n: number) => string;
  },
) {
  const max = Math.max(0, ...values.map((v) => v.value));
  return (
    <figure class="chart" data-chart={title}>
      <figcaption>{title}</figcaption>
      {values.length === 0 ? <p class="muted">No runs.</p> : (
        <ul class="bar-list">
          {values.map((v) => (
            <li key={v.label}>
              <span class="bar-label">{v.label}</span>
              <span class="bar-track">
                <span
                  class="bar-fill"
                  style={{ width: `${max > 0 ? (Math.max(0, v.value) / max) * 100 : 0}%` }}
                />
              </span>
              <span class="bar-value">{format(v.value)}</span>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
