/**
 * The quality/size frontier of a ceiling sweep: EM (95% CI) over mean answer-input tokens, per method.
 * @module
 */
import { AXIS_TEXT, c, dashed, haloText, hline, SERIES_COLORS, svgOpen } from "./charts.ts";
import { type Html, safeHtml } from "./html.ts";

/** One point of a method's curve. */
export interface FrontierPoint {
  cap: number;
  /** The point's label instead of the ceiling (e.g. `3800, 5400` for ceilings giving one point). */
  label?: string;
  /** Mean answer-input tokens (x); null leaves the point out. */
  tokens: number | null;
  em: number;
  lo: number;
  hi: number;
}

export interface FrontierOptions {
  title: string;
  series: { name: string; points: FrontierPoint[] }[];
  /** Full's EM (percent) and mean input tokens, drawn as the reference line. */
  reference?: { label: string; em: number; tokens: number | null };
  yLabel?: string;
}

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const f of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (f * p >= v) return f * p;
  return 10 * p;
}

export function frontierChart(options: FrontierOptions): Html {
  const width = 760;
  const height = 380;
  const box = { left: 66, right: width - 150, top: 46, bottom: height - 56 };
  const points = options.series.flatMap((s) => s.points).filter((p) => p.tokens !== null);
  // Full (usually far above every ceiling) is a horizontal line: its tokens are in its label, not on the axis.
  const xMax = niceMax(Math.max(1, ...points.map((p) => p.tokens!)) * 1.05);
  const x = (v: number) => box.left + (v / xMax) * (box.right - box.left);
  const y = (v: number) => box.bottom - (Math.max(0, Math.min(100, v)) / 100) * (box.bottom - box.top);
  const grid = [0, 20, 40, 60, 80, 100].map((t) =>
    safeHtml`${hline(box.left, box.right, y(t), "#e5e7eb")}${
      haloText(box.left - 6, y(t) + 4, String(t), { ...AXIS_TEXT, anchor: "end" })
    }\n`
  );
  const xTicks = [0, 0.25, 0.5, 0.75, 1].map((f) =>
    safeHtml`${haloText(x(f * xMax), box.bottom + 16, String(Math.round(f * xMax)), AXIS_TEXT)}\n`
  );
  const ref = options.reference;
  const refLine = ref
    ? safeHtml`${hline(box.left, box.right, y(ref.em), "#424a53", dashed({}))}<text x="${
      c(box.right + 6)
    }" y="${c(y(ref.em) + 4)}" font-size="11" fill="#424a53">${ref.label}</text>\n`
    : "";
  const legendStep = Math.min(150, (width - box.left - 10) / Math.max(1, options.series.length));
  const curves = options.series.map((s, j) => {
    const color = SERIES_COLORS[j % SERIES_COLORS.length];
    const pts = s.points.filter((p) => p.tokens !== null).sort((a, b) => a.tokens! - b.tokens!);
    const line = pts.length > 1
      ? safeHtml`<polyline points="${
        pts.map((p) => `${c(x(p.tokens!))},${c(y(p.em))}`).join(" ")
      }" fill="none" stroke="${color}" stroke-width="2"/>\n`
      : "";
    const marks = pts.map((p) =>
      safeHtml`<g><title>${s.name} at ceiling ${p.label ?? p.cap}: ${options.yLabel ? "" : "EM "}${
        p.em.toFixed(1)
      } [${p.lo.toFixed(1)}, ${p.hi.toFixed(1)}], ${Math.round(p.tokens!)} input tokens</title><line x1="${
        c(x(p.tokens!))
      }" x2="${c(x(p.tokens!))}" y1="${c(y(p.lo))}" y2="${
        c(y(p.hi))
      }" stroke="${color}" stroke-width="1.3"/><circle cx="${c(x(p.tokens!))}" cy="${
        c(y(p.em))
      }" r="4.5" fill="${color}"/><text x="${c(x(p.tokens!) + 6)}" y="${
        c(y(p.em) - 6)
      }" font-size="10.5" fill="${color}" stroke="#fff" stroke-width="3" paint-order="stroke">${
        p.label ?? p.cap
      }</text></g>\n`
    );
    const legend = safeHtml`<rect x="${
      c(box.left + j * legendStep)
    }" y="14" width="12" height="12" fill="${color}"/><text x="${
      c(box.left + j * legendStep + 18)
    }" y="24" font-size="12" fill="#1b1f24">${s.name}</text>\n`;
    return safeHtml`${line}${marks}${legend}`;
  });
  const mid = (box.top + box.bottom) / 2;
  const xLabel = "mean answer-input tokens (point labels: ceiling)";
  return safeHtml`${svgOpen(width, height, options.title, "system-ui, sans-serif")}${grid}${xTicks}${
    hline(box.left, box.right, box.bottom, "#57606a")
  }
${haloText((box.left + box.right) / 2, height - 14, xLabel, { ...AXIS_TEXT, size: 12 })}
${haloText(14, mid, options.yLabel ?? "EM (%), bars: 95% CI", { ...AXIS_TEXT, size: 12, vertical: true })}
${refLine}${curves}</svg>`;
}
