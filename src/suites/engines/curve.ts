/**
 * The engines report's budget curves: an inline SVG line chart, one polyline per engine through (retained
 * tokens, recall %) points. Unlike charts.ts' `lineChart`, every series has its own x positions.
 * @module
 */
import { c, hline, SERIES_COLORS } from "../../report/charts.ts";
import { type Html, safeHtml } from "../../report/html.ts";

/** One engine's curve: points in budget order; a null y (n/a) leaves a gap; `lo`/`hi` draw an error bar. */
export interface CurveSeries {
  name: string;
  points: { x: number; y: number | null; label: string; lo?: number; hi?: number }[];
}

interface CurveChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly CurveSeries[];
  yMax: number;
}

/** Round tick values for an axis from 0 to `max`. */
function ticks(max: number): number[] {
  if (max <= 0) return [0];
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: number[] = [0];
  while (out[out.length - 1] < max - step / 1e6) out.push(Number((out[out.length - 1] + step).toFixed(6)));
  return out;
}

/** A legend name in lines of at most `maxChars`, broken at spaces (a longer word keeps a line of its own). */
function legendLines(name: string, maxChars: number): string[] {
  const lines: string[] = [];
  for (const word of name.split(" ")) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= maxChars) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** A curve chart; an empty chart says there is nothing to draw. */
export function curveChart(options: CurveChartOptions): Html {
  const width = 760;
  const height = 380;
  const box = { left: 66, right: width - 190, top: 40, bottom: height - 56 };
  const xs = options.series.flatMap((s) => s.points.map((p) => p.x));
  const xTicks = ticks(xs.length > 0 ? Math.max(...xs) : 1);
  const xMax = Math.max(xTicks[xTicks.length - 1], 1);
  const px = (x: number) => box.left + (x / xMax) * (box.right - box.left);
  const py = (y: number) => box.bottom - (Math.min(y, options.yMax) / options.yMax) * (box.bottom - box.top);
  const parts: Html[] = [];
  for (const t of ticks(options.yMax)) {
    parts.push(
      safeHtml`${hline(box.left, box.right, py(t), "#e5e7eb")}<text x="${c(box.left - 6)}" y="${
        c(py(t) + 4)
      }" text-anchor="end" font-size="11">${t}</text>`,
    );
  }
  for (const t of xTicks) {
    parts.push(
      safeHtml`<text x="${c(px(t))}" y="${
        c(box.bottom + 16)
      }" text-anchor="middle" font-size="11">${t}</text>`,
    );
  }
  parts.push(
    safeHtml`${hline(box.left, box.right, box.bottom, "#57606a")}<line x1="${c(box.left)}" x2="${
      c(box.left)
    }" y1="${c(box.top)}" y2="${c(box.bottom)}" stroke="#57606a"/>`,
  );
  let legendY = box.top + 6;
  options.series.forEach((series, i) => {
    const color = SERIES_COLORS[i % SERIES_COLORS.length];
    let run: string[] = [];
    const flush = () => {
      if (run.length > 1) {
        parts.push(
          safeHtml`<polyline fill="none" stroke="${color}" stroke-width="2" points="${run.join(" ")}"/>`,
        );
      }
      run = [];
    };
    for (const point of series.points) {
      if (point.y === null) {
        flush();
        parts.push(
          safeHtml`<text x="${c(px(point.x))}" y="${
            c(box.bottom - 6)
          }" font-size="10" fill="#6e7781" text-anchor="middle"><title>${series.name}, ${point.label}: n/a</title>n/a</text>`,
        );
        continue;
      }
      run.push(`${c(px(point.x))},${c(py(point.y))}`);
    }
    flush();
    for (const point of series.points) {
      if (point.y === null || point.lo === undefined || point.hi === undefined) continue;
      const x = c(px(point.x));
      const [y1, y2] = [c(py(point.lo)), c(py(point.hi))];
      const [l, r] = [c(px(point.x) - 4), c(px(point.x) + 4)];
      parts.push(
        safeHtml`<g stroke="${color}" stroke-width="1.3"><title>${series.name}, ${point.label}: 95% CI [${
          point.lo.toFixed(1)
        }, ${
          point.hi.toFixed(1)
        }]</title><line x1="${x}" x2="${x}" y1="${y1}" y2="${y2}"/><line x1="${l}" x2="${r}" y1="${y1}" y2="${y1}"/><line x1="${l}" x2="${r}" y1="${y2}" y2="${y2}"/></g>`,
      );
    }
    for (const point of series.points) {
      if (point.y === null) continue;
      parts.push(
        safeHtml`<circle cx="${c(px(point.x))}" cy="${
          c(py(point.y))
        }" r="4" fill="${color}"><title>${series.name}, ${point.label}: ${
          point.y.toFixed(1)
        }% at ${point.x} tokens</title></circle>`,
      );
    }
    const names = legendLines(series.name, Math.floor((width - box.right - 36) / 7));
    const ly = legendY;
    legendY += 18 + 15 * (names.length - 1);
    parts.push(
      safeHtml`<rect x="${c(box.right + 14)}" y="${c(ly - 9)}" width="12" height="12" fill="${color}"/>${
        names.map((name, k) =>
          safeHtml`<text x="${c(box.right + 32)}" y="${c(ly + 1 + 15 * k)}" font-size="12">${name}</text>`
        )
      }`,
    );
  });
  const empty = options.series.every((s) => s.points.every((p) => p.y === null));
  if (empty) {
    parts.push(
      safeHtml`<text x="${c((box.left + box.right) / 2)}" y="${
        c((box.top + box.bottom) / 2)
      }" text-anchor="middle" font-size="13" fill="#6e7781">n/a: no engine has a value here</text>`,
    );
  }
  return safeHtml`<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${options.title}" font-family="system-ui, sans-serif" fill="#1b1f24"><title>${options.title}</title>
${parts}
<text x="${c((box.left + box.right) / 2)}" y="${
    c(height - 14)
  }" text-anchor="middle" font-size="12">${options.xLabel}</text>
<text transform="translate(16 ${
    c((box.top + box.bottom) / 2)
  }) rotate(-90)" text-anchor="middle" font-size="12">${options.yLabel}</text>
</svg>`;
}
