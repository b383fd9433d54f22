/**
 * Inline SVG charts for the HTML reports, without dependencies or scripts: bar charts (one or several
 * series per category, linear or log-10 axis, dashed reference lines such as a token ceiling) and a line
 * chart (several series over a numeric x axis, with horizontal reference lines labelled at the right).
 *
 * Missing values (null) are written as "n/a" where the bar or point would be, never drawn as 0. Every text
 * is escaped; coordinates are rounded to 0.1 px, so the same input gives the same bytes. Series are told
 * apart by colour (a colour-blind-safe palette) and, in the line chart, by marker shape as well, so that
 * greyscale prints stay readable.
 *
 * @module
 */
import { type Html, html } from "./html.ts";

/** Series colours (Okabe–Ito, without the yellow that vanishes on white). */
export const SERIES_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"] as const;

const AXIS = "#57606a";
const GRID = "#e5e7eb";
const TEXT = "#1b1f24";
const WARN = "#b42318";
const MISSING = "#6e7781";
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';

/** One series of values, one per category (or x position); null means "no value" and shows "n/a". */
export interface ChartSeries {
  name: string;
  values: readonly (number | null)[];
}

/** A horizontal line at a value, labelled (e.g. the token ceiling, or the S and Full baselines). */
export interface ReferenceLine {
  label: string;
  value: number;
  /** Index of the series whose colour the line takes; default: dark grey. */
  series?: number;
  /** Dash style; default "dashed". */
  dash?: "dashed" | "dotted";
}

/** Options of {@link barChart}. */
export interface BarChartOptions {
  /** Accessible name of the chart (also its SVG title). */
  title: string;
  /** Category labels along the x axis. */
  categories: readonly string[];
  /** One or more series; several series make grouped bars. */
  series: readonly ChartSeries[];
  /** Formats a value label above its bar. */
  format: (value: number) => string;
  /** The y axis title. */
  yLabel: string;
  /** Axis scale; default "linear". A log axis places values ≤ 0 on its floor. */
  scale?: "linear" | "log";
  /** Fixed top of a linear axis (e.g. 100 for percentages); default: a round number above the data. */
  max?: number;
  referenceLines?: readonly ReferenceLine[];
  /** A second line under each category label (e.g. "failed"), drawn in a warning colour. */
  notes?: readonly (string | null)[];
  width?: number;
  height?: number;
}

/** Options of {@link lineChart}. */
export interface LineChartOptions {
  /** Accessible name of the chart (also its SVG title). */
  title: string;
  /** The x positions (ascending numbers). */
  x: readonly number[];
  /** Label of one x tick. */
  xTick: (x: number) => string;
  xLabel: string;
  yLabel: string;
  /** One value per x position and series; null leaves a gap and shows "n/a". */
  series: readonly ChartSeries[];
  /** Formats a point's value label. */
  format: (value: number) => string;
  /** Fixed top of the y axis; default: a round number above the data. */
  max?: number;
  referenceLines?: readonly ReferenceLine[];
  /** A second line under each x tick (e.g. "15/15 over budget"), drawn in a warning colour. */
  notes?: readonly (string | null)[];
  width?: number;
  height?: number;
}

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

interface Axis {
  /** Pixel y of a value (clamped into the plot). */
  y: (value: number) => number;
  /** Pixel y where bars start. */
  base: number;
  ticks: { value: number; label: string }[];
}

/** Rounds a coordinate to 0.1 px for stable, compact output. */
function c(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function color(series: number | undefined): string {
  return series === undefined ? "#424a53" : SERIES_COLORS[series % SERIES_COLORS.length];
}

function niceStep(span: number): number {
  if (!(span > 0)) return 1;
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * power;
}

function tickLabel(value: number): string {
  return String(Number(value.toPrecision(12)));
}

function linearAxis(values: readonly number[], box: Box, max?: number): Axis {
  const lo0 = Math.min(0, ...values);
  const hi0 = max ?? Math.max(0, ...values);
  const step = niceStep(hi0 - lo0 || 1);
  const lo = Math.floor(lo0 / step) * step;
  const hi = max ?? Math.max(Math.ceil((hi0 * 1.08) / step) * step, lo + step);
  const y = (v: number) => {
    const clamped = Math.min(hi, Math.max(lo, v));
    return box.bottom - ((clamped - lo) / (hi - lo)) * (box.bottom - box.top);
  };
  const ticks: Axis["ticks"] = [];
  for (let i = 0; lo + i * step <= hi + step * 1e-9; i++) {
    const value = Number((lo + i * step).toPrecision(12));
    ticks.push({ value, label: tickLabel(value) });
  }
  return { y, base: y(0), ticks };
}

function logAxis(values: readonly number[], box: Box): Axis {
  const positive = values.filter((v) => v > 0);
  const loExp = positive.length ? Math.floor(Math.log10(Math.min(...positive))) : 0;
  let hiExp = positive.length ? Math.ceil(Math.log10(Math.max(...positive))) : 1;
  if (hiExp <= loExp) hiExp = loExp + 1;
  const y = (v: number) => {
    const e = v > 0 ? Math.min(hiExp, Math.max(loExp, Math.log10(v))) : loExp;
    return box.bottom - ((e - loExp) / (hiExp - loExp)) * (box.bottom - box.top);
  };
  const ticks: Axis["ticks"] = [];
  for (let e = loExp; e <= hiExp; e++) {
    ticks.push({ value: 10 ** e, label: e < 0 ? (10 ** e).toFixed(-e) : String(10 ** e) });
  }
  return { y, base: box.bottom, ticks };
}

function shorten(label: string, maxChars: number): string {
  const limit = Math.max(4, maxChars);
  return label.length <= limit ? label : `${label.slice(0, limit - 1)}…`;
}

/** Text with a white halo so that it stays legible over lines and bars. */
function haloText(
  x: number,
  y: number,
  text: string,
  attrs: { anchor?: string; fill?: string; size?: number },
): Html {
  return html`
    <text x="${c(x)}" y="${c(y)}" text-anchor="${attrs.anchor ?? "middle"}" font-size="${attrs.size ??
      11}" fill="${attrs.fill ?? TEXT}"
      stroke="#fff" stroke-width="3" paint-order="stroke">${text}</text>
  `;
}

function svgOpen(width: number, height: number, title: string): Html {
  return html`
    <svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"
      viewBox="0 0 ${width} ${height}" role="img" aria-label="${title}" font-family="${FONT}">
      <title>${title}</title>
      <rect width="${width}" height="${height}" fill="#fff" />
  `;
}

function legend(series: readonly ChartSeries[], x0: number, y: number, markers: boolean): Html {
  let x = x0;
  const items: Html[] = [];
  series.forEach((s, i) => {
    const swatch = markers ? marker(i, x + 7, y - 4) : html`
      <rect x="${c(x)}" y="${c(y - 10)}" width="12" height="12" fill="${color(i)}" />
    `;
    items.push(
      html`${swatch}<text x="${c(x + 18)}" y="${c(y)}" font-size="12" fill="${TEXT}">${s.name}</text>\n`,
    );
    x += 18 + s.name.length * 7 + 18;
  });
  return html`${items}`;
}

function marker(series: number, x: number, y: number): Html {
  const fill = color(series);
  return series % 2 === 0
    ? html`
      <circle cx="${c(x)}" cy="${c(y)}" r="4.5" fill="${fill}" />
    `
    : html`
      <rect x="${c(x - 4)}" y="${c(y - 4)}" width="8" height="8" fill="${fill}" />
    `;
}

function yAxis(axis: Axis, box: Box, yLabel: string): Html {
  const lines = axis.ticks.map((t) => {
    const y = axis.y(t.value);
    return html`
      <line x1="${c(box.left)}" x2="${c(box.right)}" y1="${c(y)}" y2="${c(
        y,
      )}" stroke="${GRID}" />${html`<text x="${c(box.left - 6)}" y="${
        c(y + 4)
      }" text-anchor="end" font-size="11" fill="${AXIS}">${t.label}</text>`}\\n
    `;
  });
  const mid = (box.top + box.bottom) / 2;
  return html`
    ${lines}<line x1="${c(box.left)}" x2="${c(box.left)}" y1="${c(box.top)}" y2="${c(
      box.bottom,
    )}" stroke="${AXIS}" />
    <text x="14" y="${c(mid)}" transform="rotate(-90 14 ${c(mid)})" text-anchor="middle" font-size="12"
      fill="${AXIS}">${yLabel}</text>
  `;
}

function referenceLines(
  refs: readonly ReferenceLine[],
  axis: Axis,
  box: Box,
  labelsOutside: boolean,
): Html {
  const placed = refs.map((r) => ({ r, y: axis.y(r.value), labelY: axis.y(r.value) - 4 }));
  if (labelsOutside) {
    // Labels sit right of the plot at the line's height, pushed apart so they never overlap.
    const order = [...placed].sort((a, b) => a.y - b.y);
    let last = -Infinity;
    for (const p of order) {
      p.labelY = Math.max(p.y + 4, last + 13);
      last = p.labelY;
    }
  }
  return html`${
    placed.map((p) => {
      const dash = p.r.dash === "dotted" ? "2 4" : "7 5";
      const line = html`
        <line x1="${c(box.left)}" x2="${c(box.right)}" y1="${c(p.y)}" y2="${c(p.y)}" stroke="${color(
          p.r.series,
        )}"
          stroke-width="1.6" stroke-dasharray="${dash}" />
      `;
      const label = labelsOutside
        ? haloText(box.right + 6, p.labelY, p.r.label, { anchor: "start", fill: color(p.r.series) })
        : haloText(box.right - 4, p.labelY, p.r.label, { anchor: "end", fill: color(p.r.series), size: 12 });
      return html`${line}${label}\n`;
    })
  }`;
}

function categoryLabels(
  labels: readonly string[],
  centers: readonly number[],
  band: number,
  y: number,
  notes?: readonly (string | null)[],
): Html {
  const maxChars = Math.floor(band / 6.6);
  return html`${
    labels.map((label, i) => {
      const short = shorten(label, maxChars);
      const note = notes?.[i];
      return html`
        <text x="${c(centers[i])}" y="${c(y)}" text-anchor="middle" font-size="12"
          fill="${TEXT}">${short !== label ? html`<title>${label}</title>` : ""}${short}</text>
        ${note
          ? html`
            <text x="${c(centers[i])}" y="${c(y + 15)}" text-anchor="middle" font-size="11"
              fill="${WARN}">${shorten(note, maxChars)}</text>\\n
          `
          : ""}
      `;
    })
  }`;
}

/**
 * A bar chart: one bar per category and series (grouped when there are several series), value labels on
 * the bars, "n/a" for null values, optional reference lines and a linear or log-10 axis.
 */
export function barChart(options: BarChartOptions): Html {
  const width = options.width ?? 760;
  const height = options.height ?? 330;
  const hasLegend = options.series.length > 1;
  const box: Box = { left: 66, right: width - 16, top: hasLegend ? 46 : 24, bottom: height - 48 };
  const values = options.series.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const refValues = (options.referenceLines ?? []).map((r) => r.value);
  const axis = options.scale === "log"
    ? logAxis([...values, ...refValues], box)
    : linearAxis([...values, ...refValues], box, options.max);
  const n = Math.max(1, options.categories.length);
  const band = (box.right - box.left) / n;
  const groupWidth = band * 0.76;
  const barWidth = groupWidth / Math.max(1, options.series.length);
  const centers = options.categories.map((_, i) => box.left + band * (i + 0.5));
  const bars: Html[] = [];
  options.categories.forEach((category, i) => {
    options.series.forEach((s, j) => {
      const x = centers[i] - groupWidth / 2 + j * barWidth;
      const mid = x + barWidth / 2;
      const v = s.values[i] ?? null;
      if (v === null) {
        bars.push(html`
          <text x="${c(mid)}" y="${c(
            axis.base - 5,
          )}" text-anchor="middle" font-size="10.5" font-style="italic"
            fill="${MISSING}"><title>${s.name}, ${category}: n/a</title>n/a</text>\\n
        `);
        return;
      }
      const top = Math.min(axis.y(v), axis.base);
      const h = Math.abs(axis.y(v) - axis.base);
      const label = options.format(v);
      const labelY = v < 0 && options.scale !== "log" ? axis.y(v) + 13 : axis.y(v) - 4;
      bars.push(html`
        <rect x="${c(x + 1)}" y="${c(top)}" width="${c(Math.max(1, barWidth - 2))}" height="${c(
          Math.max(h, 0.5),
        )}" fill="${color(j)}">
          <title>${s.name}, ${category}: ${label}</title>
        </rect>
        ${haloText(mid, labelY, label, { size: barWidth < 30 ? 9.5 : 10.5 })}\\n
      `);
    });
  });
  return html`
    ${svgOpen(width, height, options.title)}${hasLegend
      ? legend(options.series, box.left, 22, false)
      : ""}${yAxis(axis, box, options.yLabel)}${bars}<line x1="${c(box.left)}" x2="${c(box.right)}" y1="${c(
        axis.base,
      )}"
      y2="${c(axis.base)}" stroke="${AXIS}" />
    ${referenceLines(options.referenceLines ?? [], axis, box, false)}${categoryLabels(
      options.categories,
      centers,
      band,
      box.bottom + 18,
      options.notes,
    )}</svg>
  `;
}

/**
 * A line chart over numeric x positions: one polyline with markers per series (gaps at null values, which
 * show "n/a"), value labels at the points, and reference lines labelled right of the plot.
 */
export function lineChart(options: LineChartOptions): Html {
  const width = options.width ?? 760;
  const height = options.height ?? 360;
  const refs = options.referenceLines ?? [];
  const box: Box = {
    left: 66,
    right: width - (refs.length > 0 ? 150 : 24),
    top: 46,
    bottom: height - 64,
  };
  const values = options.series.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const axis = linearAxis([...values, ...refs.map((r) => r.value)], box, options.max);
  const xs = options.x;
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const pad = 36;
  const px = (x: number) =>
    xs.length <= 1 || hi === lo
      ? (box.left + box.right) / 2
      : box.left + pad + ((x - lo) / (hi - lo)) * (box.right - box.left - 2 * pad);
  const centers = xs.map(px);
  const band = xs.length <= 1 ? box.right - box.left : (box.right - box.left - 2 * pad) / (xs.length - 1);
  const drawn = options.series.map((s, j) => {
    const segments: string[][] = [];
    let current: string[] = [];
    s.values.forEach((v, i) => {
      if (v === null) {
        if (current.length) segments.push(current);
        current = [];
        return;
      }
      current.push(`${c(centers[i])},${c(axis.y(v))}`);
    });
    if (current.length) segments.push(current);
    const lines = segments.filter((seg) => seg.length > 1).map((seg) =>
      html`
        <polyline points="${seg.join(" ")}" fill="none" stroke="${color(j)}" stroke-width="2.2" />\\n
      `
    );
    const points = s.values.map((v, i) => {
      if (v === null) {
        return html`
          <text x="${c(centers[i])}" y="${c(
            axis.base - 6 - 13 * j,
          )}" text-anchor="middle" font-size="10.5" font-style="italic"
            fill="${MISSING}">n/a</text>\\n
        `;
      }
      const y = axis.y(v);
      const labelY = j % 2 === 0 ? y - 8 : y + 17;
      return html`${marker(j, centers[i], y)}${
        haloText(centers[i], labelY, options.format(v), { fill: color(j), size: 11 })
      }\n`;
    });
    return html`${lines}${points}`;
  });
  const ticks = centers.map((center) =>
    html`
      <line x1="${c(centers[i])}" x2="${c(centers[i])}" y1="${c(box.bottom)}" y2="${c(
        box.bottom + 5,
      )}" stroke="${AXIS}" />\\n
    `
  );
  return html`
    ${svgOpen(width, height, options.title)}${legend(options.series, box.left, 22, true)}${yAxis(
      axis,
      box,
      options.yLabel,
    )}<line x1="${c(box.left)}" x2="${c(box.right)}" y1="${c(box.bottom)}" y2="${c(box.bottom)}"
      stroke="${AXIS}" />
    ${ticks}${referenceLines(refs, axis, box, true)}${drawn}${categoryLabels(
      xs.map(options.xTick),
      centers,
      Math.max(band, 60),
      box.bottom + 19,
      options.notes,
    )}<text x="${c((box.left + box.right) / 2)}" y="${c(height - 8)}" text-anchor="middle"
      font-size="12" fill="${AXIS}">${options.xLabel}</text>
    </svg>
  `;
}
