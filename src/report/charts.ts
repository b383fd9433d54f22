/**
 * Inline SVG bar and line charts for the HTML reports (no script): nulls show "n/a", text is escaped, and
 * coordinates are rounded to 0.1 px, so the same input gives the same bytes.
 * @module
 */
import { type Html, safeHtml } from "./html.ts";

/** Series colours (Okabe–Ito, without the yellow that vanishes on white). */
export const SERIES_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"] as const;

/** Text colour with enough contrast inside a bar of the same index's colour. */
const SERIES_INK = ["#fff", "#1b1f24", "#1b1f24", "#1b1f24", "#1b1f24", "#1b1f24"] as const;

const AXIS = "#57606a";
const GRID = "#e5e7eb";
const TEXT = "#1b1f24";
const WARN = "#b42318";
const MISSING = "#6e7781";
/** Axis labels and titles: grey, no halo. */
export const AXIS_TEXT = { fill: AXIS, plain: true };
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';

/** One series of values, one per category (or x position); null shows "n/a". */
export interface ChartSeries {
  name: string;
  values: readonly (number | null)[];
  errors?: readonly ({ lo: number; hi: number } | null)[];
}

/** A horizontal line at a value, labelled (e.g. the token ceiling). */
export interface ReferenceLine {
  label: string;
  value: number;
  /** Index of the series whose colour the line takes (default dark grey). */
  series?: number;
  dash?: "dashed" | "dotted";
}

type Fmt = (value: number) => string;

/** What bar and line charts share. */
interface ChartOptions {
  /** Accessible name (also the SVG title). */
  title: string;
  /** Several series make grouped bars; in a line chart, one value per x position (null leaves a gap). */
  series: readonly ChartSeries[];
  format: Fmt;
  yLabel: string;
  /** Fixed top of the y axis (default: a round number above the data). */
  max?: number;
  referenceLines?: readonly ReferenceLine[];
  /** A second line under each category label or x tick, in a warning colour. */
  notes?: readonly (string | null)[];
}

export interface BarChartOptions extends ChartOptions {
  categories: readonly string[];
  /** Default "linear"; a log axis places values ≤ 0 on its floor. */
  scale?: "linear" | "log";
}

export interface LineChartOptions extends ChartOptions {
  /** Ascending. */
  x: readonly number[];
  xTick: (x: number) => string;
  xLabel: string;
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
  /** The values at the plot's bottom and top (beyond them, `y` clamps). */
  lo: number;
  hi: number;
}

/** Rounds a coordinate to 0.1 px for stable, compact output. */
export function c(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** A horizontal line from `x1` to `x2` at `y`, stroked `stroke` (then `extra` attributes). */
export function hline(x1: number, x2: number, y: number, stroke: string, extra: Html | "" = ""): Html {
  return safeHtml`<line x1="${c(x1)}" x2="${c(x2)}" y1="${c(y)}" y2="${c(y)}" stroke="${stroke}"${extra}/>`;
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
    ticks.push({ value, label: String(Number(value.toPrecision(12))) });
  }
  return { y, base: y(0), ticks, lo, hi };
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
  return { y, base: box.bottom, ticks, lo: 10 ** loExp, hi: 10 ** hiExp };
}

function shorten(label: string, maxChars: number): string {
  const limit = Math.max(4, maxChars);
  return label.length <= limit ? label : `${label.slice(0, limit - 1)}…`;
}

/** Text, by default with a white halo so that it stays legible over lines and bars (`plain`: none). */
export function haloText(
  x: number,
  y: number,
  text: string | Html,
  attrs: { anchor?: string; fill?: string; size?: number; vertical?: boolean; plain?: boolean },
): Html {
  const turn = attrs.vertical ? safeHtml` transform="rotate(-90 ${c(x)} ${c(y)})"` : "";
  const halo = attrs.plain ? "" : safeHtml` stroke="#fff" stroke-width="3" paint-order="stroke"`;
  return safeHtml`<text x="${c(x)}" y="${c(y)}"${turn} text-anchor="${attrs.anchor ?? "middle"}" font-size="${
    attrs.size ?? 11
  }" fill="${attrs.fill ?? TEXT}"${halo}>${text}</text>`;
}

/** The value label of a bar: level above it when it fits, else upright inside its top or standing on it. */
function barLabel(
  mid: number,
  top: number,
  bottom: number,
  label: string,
  barWidth: number,
  below: boolean,
  series: number,
): Html {
  const size = barWidth < 30 ? 9.5 : 10.5;
  const textWidth = label.length * size * 0.6;
  if (below) return haloText(mid, bottom + 13, label, { size });
  if (textWidth <= barWidth - 2) return haloText(mid, top - 4, label, { size });
  const x = mid + size / 3;
  return bottom - top >= textWidth + 8
    ? haloText(x, top + 4, label, {
      size,
      anchor: "end",
      vertical: true,
      plain: true,
      fill: SERIES_INK[series % SERIES_INK.length],
    })
    : haloText(x, top - 4, label, { size, anchor: "start", vertical: true });
}

/** An SVG's opening: its size, accessible title and white background (`font`: its font family). */
export function svgOpen(width: number, height: number, title: string, font = FONT): Html {
  return safeHtml`<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${title}" font-family="${font}">
<title>${title}</title>
<rect width="${width}" height="${height}" fill="#fff"/>
`;
}

function marker(series: number, x: number, y: number): Html {
  const fill = color(series);
  return series % 2 === 0
    ? safeHtml`<circle cx="${c(x)}" cy="${c(y)}" r="4.5" fill="${fill}"/>`
    : safeHtml`<rect x="${c(x - 4)}" y="${c(y - 4)}" width="8" height="8" fill="${fill}"/>`;
}

/** An error bar titled `${what} [lo, hi]`; an end beyond the axis is an arrowhead at the plot's edge. */
function errorBar(x: number, axis: Axis, err: { lo: number; hi: number }, what: string, format: Fmt): Html {
  const title = `${what} [${format(err.lo)}, ${format(err.hi)}]`;
  const y1 = axis.y(err.lo);
  const y2 = axis.y(err.hi);
  const below = err.lo < axis.lo - 1e-9 * Math.abs(axis.lo || 1);
  const above = err.hi > axis.hi + 1e-9 * Math.abs(axis.hi || 1);
  const cap = (y: number) => safeHtml`<line x1="${c(x - 4)}" x2="${c(x + 4)}" y1="${c(y)}" y2="${c(y)}"/>`;
  // An arrowhead pointing past the edge: its tip on the edge, 7 px long.
  const arrow = (y: number, dir: 1 | -1) =>
    safeHtml`<path d="M${c(x - 4.5)} ${c(y - 7 * dir)}L${c(x)} ${c(y)}L${c(x + 4.5)} ${
      c(y - 7 * dir)
    }Z" fill="${TEXT}"/>`;
  const clipped = below || above ? " (the interval runs past the axis: arrowhead)" : "";
  return safeHtml`<g stroke="${TEXT}" stroke-width="1.3"><title>${title}${clipped}</title><line x1="${
    c(x)
  }" x2="${c(x)}" y1="${c(y1)}" y2="${c(y2)}"/>${below ? arrow(y1, 1) : cap(y1)}${
    above ? arrow(y2, -1) : cap(y2)
  }</g>`;
}

/** The stroke of a reference line: dashed, or dotted. */
export function dashed(ref: Pick<ReferenceLine, "dash">): Html {
  return safeHtml` stroke-width="1.6" stroke-dasharray="${ref.dash === "dotted" ? "2 4" : "7 5"}"`;
}

/** The legend (series swatches, then references), in rows from `y` that wrap before `maxX`; returns the rows. */
function legend(
  series: readonly ChartSeries[],
  refs: readonly ReferenceLine[],
  x0: number,
  y0: number,
  markers: boolean,
  maxX: number,
): { html: Html; rows: number } {
  let x = x0;
  let y = y0;
  let rows = 1;
  const items: Html[] = [];
  const item = (swatch: (x: number, y: number) => Html, swatchWidth: number, name: string) => {
    const width = swatchWidth + 6 + name.length * 7;
    if (x > x0 && x + width > maxX) {
      x = x0;
      y += LEGEND_ROW;
      rows++;
    }
    const text = safeHtml`<text x="${c(x + swatchWidth + 6)}" y="${
      c(y)
    }" font-size="12" fill="${TEXT}">${name}</text>`;
    items.push(safeHtml`${swatch(x, y)}${text}\n`);
    x += width + 18;
  };
  series.forEach((s, i) => {
    item(
      (x, y) =>
        markers
          ? marker(i, x + 6, y - 4)
          : safeHtml`<rect x="${c(x)}" y="${c(y - 10)}" width="12" height="12" fill="${color(i)}"/>`,
      12,
      s.name,
    );
  });
  for (const r of refs) {
    item((x, y) => hline(x, x + 26, y - 4, color(r.series), dashed(r)), 26, r.label);
  }
  return { html: safeHtml`${items}`, rows };
}

const LEGEND_ROW = 18;

function yAxis(axis: Axis, box: Box, yLabel: string): Html {
  const lines = axis.ticks.map((t) => {
    const y = axis.y(t.value);
    const label = haloText(box.left - 6, y + 4, t.label, { ...AXIS_TEXT, anchor: "end" });
    return safeHtml`${hline(box.left, box.right, y, GRID)}${label}\n`;
  });
  const title = haloText(14, (box.top + box.bottom) / 2, yLabel, { ...AXIS_TEXT, size: 12, vertical: true });
  return safeHtml`${lines}<line x1="${c(box.left)}" x2="${c(box.left)}" y1="${c(box.top)}" y2="${
    c(box.bottom)
  }" stroke="${AXIS}"/>
${title}
`;
}

/** Dashed reference lines; with `labelled`, each also gets its label right of the plot (never overlapping). */
function referenceLines(refs: readonly ReferenceLine[], axis: Axis, box: Box, labelled: boolean): Html {
  const placed = refs.map((r) => ({ r, y: axis.y(r.value), labelY: axis.y(r.value) + 4 }));
  let last = -Infinity;
  for (const p of [...placed].sort((a, b) => a.y - b.y)) {
    p.labelY = Math.max(p.labelY, last + 14);
    last = p.labelY;
  }
  return safeHtml`${
    placed.map((p) => {
      const line = hline(box.left, box.right, p.y, color(p.r.series), dashed(p.r));
      const label = labelled
        ? haloText(box.right + 6, p.labelY, p.r.label, { anchor: "start", fill: color(p.r.series) })
        : "";
      return safeHtml`${line}${label}\n`;
    })
  }`;
}

/** Splits a note into at most two lines of about `maxChars`, at a space when it can. */
function noteLines(note: string, maxChars: number): string[] {
  if (note.length <= maxChars) return [note];
  const cut = note.lastIndexOf(" ", maxChars);
  if (cut <= 0) return [shorten(note, maxChars)];
  return [note.slice(0, cut), shorten(note.slice(cut + 1), maxChars)];
}

/** How many characters of a category label fit in a band `band` pixels wide (12 px text). */
function labelChars(band: number): number {
  return Math.floor(band / 6.6);
}

/** Words in lines of at most `maxChars` (a longer word gets a line of its own, split at `maxChars`). */
function wrapWords(text: string, maxChars: number): string[] {
  const limit = Math.max(4, maxChars);
  const lines: string[] = [];
  let line = "";
  for (let word of text.split(" ")) {
    while (word.length > limit) {
      if (line) lines.push(line);
      lines.push(word.slice(0, limit));
      word = word.slice(limit);
      line = "";
    }
    if (line && line.length + 1 + word.length > limit) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/** How a category label is set in a band: 12 px in up to two lines, else 10.5 px in three, else cut with "…". */
function labelLayout(label: string, band: number): { lines: string[]; size: number } {
  const twelve = wrapWords(label, labelChars(band));
  if (twelve.length <= 2) return { lines: twelve, size: 12 };
  const small = wrapWords(label, Math.floor(band / 5.6));
  if (small.length <= 3) return { lines: small, size: 10.5 };
  return {
    lines: [...small.slice(0, 2), shorten(small.slice(2).join(" "), Math.floor(band / 5.6))],
    size: 10.5,
  };
}

function categoryLabels(
  labels: readonly string[],
  centers: readonly number[],
  band: number,
  y: number,
  notes?: readonly (string | null)[],
): Html {
  const maxChars = labelChars(band);
  return safeHtml`${
    labels.map((label, i) => {
      // Wrapped at spaces and set smaller before it is shortened (the whole label is the tooltip then).
      const { lines, size } = labelLayout(label, band);
      const note = notes?.[i];
      const full = lines.join(" ") !== label ? safeHtml`<title>${label}</title>` : "";
      const text = lines.map((line, k) =>
        safeHtml`${
          haloText(centers[i], y + 14 * k, safeHtml`${k === 0 ? full : ""}${line}`, { size, plain: true })
        }\n`
      );
      const noteY = (k: number) => y + 15 + 14 * (lines.length - 1) + 13 * k;
      const second = note
        ? noteLines(note, maxChars).map((line, k) =>
          safeHtml`${haloText(centers[i], noteY(k), line, { fill: WARN, plain: true })}\n`
        )
        : "";
      return safeHtml`${text}${second}`;
    })
  }`;
}

function missingLabel(x: number, y: number, tooltip: string): Html {
  return safeHtml`<text x="${c(x)}" y="${
    c(y)
  }" text-anchor="middle" font-size="10.5" font-style="italic" fill="${MISSING}"><title>${tooltip}</title>n/a</text>\n`;
}

/** Every value and interval end of `series` (nulls left out). */
function seriesValues(series: readonly ChartSeries[]): number[] {
  return series.flatMap((s) => [...s.values, ...(s.errors ?? []).flatMap((e) => e ? [e.lo, e.hi] : [])])
    .filter((v): v is number => v !== null);
}

/** A bar chart: bars per category and series, value labels, "n/a" for nulls, reference lines, linear or log. */
export function barChart(options: BarChartOptions): Html {
  const bars = options.categories.length * Math.max(1, options.series.length);
  // Wide enough for 30-px bars and a label's longest word at 10.5 px (up to 1,100 px).
  const longestWord = Math.max(
    0,
    ...options.categories.flatMap((label) => label.split(" ").map((w) => w.length)),
  );
  const width = Math.round(
    Math.min(
      1100,
      Math.max(760, 82 + (bars * 30) / 0.76, 82 + options.categories.length * (longestWord * 5.6 + 6)),
    ),
  );
  const height = 330;
  const refs = options.referenceLines ?? [];
  const legendSeries = options.series.length > 1 ? options.series : [];
  const hasLegend = legendSeries.length > 0 || refs.length > 0;
  const key = legend(legendSeries, refs, 66, 22, false, width - 8);
  const noteRoom = options.notes?.some((n) => n) ? 14 : 0;
  // Room for the label lines after the first when a category label wraps (the band is known from the width).
  const labelBand = (width - 16 - 66) / Math.max(1, options.categories.length);
  const labelLines = Math.max(
    1,
    ...options.categories.map((label) => labelLayout(label, labelBand).lines.length),
  );
  const labelRoom = 14 * (labelLines - 1);
  const box: Box = {
    left: 66,
    right: width - 16,
    top: hasLegend ? 46 + LEGEND_ROW * (key.rows - 1) : 24,
    bottom: height - 40 - noteRoom - labelRoom,
  };
  const values = seriesValues(options.series);
  const refValues = refs.map((r) => r.value);
  const axis = options.scale === "log"
    ? logAxis([...values, ...refValues], box)
    : linearAxis([...values, ...refValues], box, options.max);
  const band = (box.right - box.left) / Math.max(1, options.categories.length);
  const groupWidth = band * 0.76;
  const barWidth = groupWidth / Math.max(1, options.series.length);
  const centers = options.categories.map((_, i) => box.left + band * (i + 0.5));
  const drawn: Html[] = [];
  options.categories.forEach((category, i) => {
    options.series.forEach((s, j) => {
      const x = centers[i] - groupWidth / 2 + j * barWidth;
      const mid = x + barWidth / 2;
      const v = s.values[i] ?? null;
      if (v === null) {
        drawn.push(missingLabel(mid, axis.base - 5, `${s.name}, ${category}: n/a`));
        return;
      }
      const top = Math.min(axis.y(v), axis.base);
      const h = Math.abs(axis.y(v) - axis.base);
      const label = options.format(v);
      const rect = safeHtml`<rect x="${c(x + 1)}" y="${c(top)}" width="${
        c(Math.max(1, barWidth - 2))
      }" height="${c(Math.max(h, 0.5))}" fill="${
        color(j)
      }"><title>${s.name}, ${category}: ${label}</title></rect>`;
      const below = v < 0 && options.scale !== "log";
      const err = s.errors?.[i];
      const bar = err ? errorBar(mid, axis, err, `${s.name}, ${category}: ${label}`, options.format) : "";
      drawn.push(safeHtml`${rect}${bar}${barLabel(mid, top, top + h, label, barWidth, below, j)}\n`);
    });
  });
  const baseline = safeHtml`${hline(box.left, box.right, axis.base, AXIS)}\n`;
  return safeHtml`${svgOpen(width, height, options.title)}${hasLegend ? key.html : ""}${
    yAxis(axis, box, options.yLabel)
  }${drawn}${baseline}${referenceLines(refs, axis, box, false)}${
    categoryLabels(options.categories, centers, band, box.bottom + 18, options.notes)
  }</svg>`;
}

/** Baselines of a line chart's value labels: above (even series) or below their point, pushed apart to not overlap. */
function valueLabelPositions(series: readonly ChartSeries[], axis: Axis, box: Box): number[][] {
  const ys = series.map((s, j) =>
    s.values.map((v) => {
      if (v === null) return axis.base - 6;
      const y = axis.y(v);
      return j % 2 === 1 && y + 17 <= box.bottom - 2 ? y + 17 : y - 8;
    })
  );
  const count = Math.max(0, ...series.map((s) => s.values.length));
  for (let i = 0; i < count; i++) {
    const order = series.map((_, j) => j).filter((j) => i < ys[j].length).sort((a, b) => ys[b][i] - ys[a][i]);
    let below = Infinity;
    for (const j of order) {
      ys[j][i] = Math.min(ys[j][i], below - 13);
      below = ys[j][i];
    }
  }
  return ys;
}

/** A line chart over numeric x positions: a polyline per series (gaps at nulls), labels and reference lines. */
export function lineChart(options: LineChartOptions): Html {
  const width = 760;
  const height = 360;
  const refs = options.referenceLines ?? [];
  const key = legend(options.series, [], 66, 22, true, width - 8);
  const box: Box = {
    left: 66,
    right: width - (refs.length > 0 ? 150 : 24),
    top: 46 + LEGEND_ROW * (key.rows - 1),
    bottom: height - 64,
  };
  const values = seriesValues(options.series);
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
  const labelYs = valueLabelPositions(options.series, axis, box);
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
      safeHtml`<polyline points="${seg.join(" ")}" fill="none" stroke="${color(j)}" stroke-width="2.2"/>\n`
    );
    const points = s.values.map((v, i) => {
      if (v === null) return missingLabel(centers[i], labelYs[j][i], `${s.name}: n/a`);
      const label = haloText(centers[i], labelYs[j][i], options.format(v), { fill: color(j), size: 11 });
      const err = s.errors?.[i];
      const bar = err
        ? errorBar(centers[i], axis, err, `${s.name}: ${options.format(v)}`, options.format)
        : "";
      return safeHtml`${bar}${marker(j, centers[i], axis.y(v))}${label}\n`;
    });
    return safeHtml`${lines}${points}`;
  });
  const xAxis = safeHtml`${hline(box.left, box.right, box.bottom, AXIS)}\n`;
  const ticks = centers.map((center) =>
    safeHtml`<line x1="${c(center)}" x2="${c(center)}" y1="${c(box.bottom)}" y2="${
      c(box.bottom + 5)
    }" stroke="${AXIS}"/>\n`
  );
  const xTitle = haloText((box.left + box.right) / 2, height - 8, options.xLabel, { ...AXIS_TEXT, size: 12 });
  return safeHtml`${svgOpen(width, height, options.title)}${key.html}${
    yAxis(axis, box, options.yLabel)
  }${xAxis}${ticks}${referenceLines(refs, axis, box, true)}${drawn}${
    categoryLabels(xs.map(options.xTick), centers, Math.max(band, 60), box.bottom + 19, options.notes)
  }${xTitle}\n</svg>`;
}
