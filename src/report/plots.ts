import type { TopLevelSpec } from 'vega-lite';
import { loadTextWidth, type TextWidth } from './report-fonts.ts';

/**
 * The plots of reports, drawn as SVG with vega-lite (no canvas: vega renders SVG in Node).
 * A plot is described by plain data (`PlotRequest`) so that drawing runs on the worker pool.
 */

export type PlotRequest =
  /** Predicted against actual values, with the identity line. */
  | { kind: 'scatter'; title: string; xTitle: string; yTitle: string; points: { actual: number; predicted: number }[] }
  /** One ROC curve per class, with the diagonal of chance. */
  | { kind: 'roc'; title: string; curves: { label: string; points: [number, number][] }[] }
  /** A confusion matrix: counts per actual (rows) and predicted (columns) class. */
  | { kind: 'confusion'; title: string; classes: string[]; counts: number[][] }
  /** Bars per group and series (a statistic per fold, per algorithm ...), optionally with error bars. */
  | { kind: 'bars'; title: string; xTitle: string; yTitle: string; bars: { group: string; series?: string; value: number; error?: number }[] }
  /** Read-across: each source's measured value against its similarity to the target, and the value read across for the target (at similarity 1). */
  | { kind: 'similarity'; title: string; yTitle: string; sources: { similarity: number; value: number }[]; target?: number }
  /** Conformal calibration: coverage against confidence level per series (all rows, each class), with the diagonal the guarantee promises. */
  | { kind: 'calibration'; title: string; series: { label: string; points: { level: number; coverage: number }[] }[] };

const FONT = 'DejaVu Sans';
const WIDTH = 420;
const LABEL_SIZE = 11;
/** The space between two labels side by side on an axis. */
const LABEL_GAP = 8;

/**
 * The step between the labels of a band axis (x) and their angle: level, in a step as wide as the
 * widest label (as the PDF sets it) if that is at most `step.most`, else turned 45° (turned labels
 * stand apart by their line height, not their width). Placed at the band's centre, level labels
 * run into each other once they are wider than the band.
 */
function bandAxis(labels: string[], textWidth: TextWidth, step: { least: number; most: number }): { step: number; labelAngle: number } {
  const needed = Math.max(0, ...labels.map((l) => textWidth(l, LABEL_SIZE))) + LABEL_GAP;
  if (needed <= step.most) return { step: Math.max(step.least, needed), labelAngle: 0 };
  return { step: Math.max(step.least, (LABEL_SIZE + LABEL_GAP) * Math.SQRT2), labelAngle: -45 };
}

function specOf(plot: PlotRequest, textWidth: TextWidth): TopLevelSpec {
  const common = { title: plot.title, config: { font: FONT, view: { stroke: '#bbb' }, axis: { labelFontSize: LABEL_SIZE, titleFontSize: 12, labelLimit: 0 } }, background: 'white' };
  switch (plot.kind) {
    case 'scatter': {
      const values = plot.points;
      const all = values.flatMap((p) => [p.actual, p.predicted]);
      const low = Math.min(...all);
      const high = Math.max(...all);
      const pad = (high - low) * 0.05 || 1;
      const domain = [low - pad, high + pad];
      return {
        ...common,
        width: WIDTH,
        height: WIDTH,
        layer: [
          {
            data: { values: [{ v: domain[0] }, { v: domain[1] }] },
            mark: { type: 'line', color: '#888', strokeDash: [4, 3] },
            encoding: { x: { field: 'v', type: 'quantitative', scale: { domain } }, y: { field: 'v', type: 'quantitative', scale: { domain } } },
          },
          {
            data: { values },
            mark: { type: 'point', filled: true, opacity: 0.55, size: 30, color: '#3465a4' },
            encoding: {
              x: { field: 'actual', type: 'quantitative', title: plot.xTitle, scale: { domain } },
              y: { field: 'predicted', type: 'quantitative', title: plot.yTitle, scale: { domain } },
            },
          },
        ],
      } as TopLevelSpec;
    }
    case 'similarity': {
      const values = [...plot.sources.map((s) => ({ ...s, who: 'source (measured)' })), ...(plot.target === undefined ? [] : [{ similarity: 1, value: plot.target, who: 'target (read across)' }])];
      return {
        ...common,
        width: WIDTH,
        height: Math.round(WIDTH * 0.75),
        data: { values },
        mark: { type: 'point', filled: true, size: 60 },
        encoding: {
          x: { field: 'similarity', type: 'quantitative', title: 'Tanimoto similarity to the target', scale: { domain: [0, 1] } },
          y: { field: 'value', type: 'quantitative', title: plot.yTitle, scale: { zero: false } },
          color: { field: 'who', type: 'nominal', title: '', scale: { range: ['#3465a4', '#cc0000'] } },
          shape: { field: 'who', type: 'nominal', title: '', scale: { range: ['circle', 'diamond'] } },
        },
      } as TopLevelSpec;
    }
    case 'roc':
      return {
        ...common,
        width: WIDTH,
        height: WIDTH,
        layer: [
          {
            data: {
              values: [
                { x: 0, y: 0 },
                { x: 1, y: 1 },
              ],
            },
            mark: { type: 'line', color: '#aaa', strokeDash: [4, 3] },
            encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
          },
          {
            data: { values: plot.curves.flatMap((c) => c.points.map(([x, y], order) => ({ class: c.label, x, y, order }))) },
            mark: { type: 'line', interpolate: 'linear' },
            encoding: {
              x: { field: 'x', type: 'quantitative', title: 'false-positive rate', scale: { domain: [0, 1] } },
              y: { field: 'y', type: 'quantitative', title: 'true-positive rate', scale: { domain: [0, 1] } },
              color: { field: 'class', type: 'nominal', title: 'class' },
              order: { field: 'order', type: 'quantitative' },
            },
          },
        ],
      } as TopLevelSpec;
    case 'confusion': {
      const values = plot.classes.flatMap((a, i) => plot.classes.map((p, j) => ({ actual: a, predicted: p, count: plot.counts[i][j] })));
      const max = Math.max(1, ...values.map((v) => v.count));
      // a column as wide as its class name, within twice the plot's width
      const cell = Math.min(WIDTH, 60 * plot.classes.length + 40) / plot.classes.length;
      const x = bandAxis(plot.classes, textWidth, { least: cell, most: Math.max(cell, (2 * WIDTH) / plot.classes.length) });
      return {
        ...common,
        width: x.step * plot.classes.length,
        height: cell * plot.classes.length,
        data: { values },
        encoding: {
          x: { field: 'predicted', type: 'nominal', title: 'predicted class', sort: plot.classes, axis: { labelAngle: x.labelAngle } },
          y: { field: 'actual', type: 'nominal', title: 'actual class', sort: plot.classes },
        },
        layer: [
          { mark: 'rect', encoding: { color: { field: 'count', type: 'quantitative', scale: { scheme: 'blues', domain: [0, max] }, legend: null } } },
          {
            mark: { type: 'text', fontSize: 13 },
            encoding: { text: { field: 'count', type: 'quantitative' }, color: { condition: { test: `datum.count > ${max / 2}`, value: 'white' }, value: 'black' } },
          },
        ],
      } as TopLevelSpec;
    }
    case 'calibration': {
      const values = plot.series.flatMap((c) => c.points.map((p) => ({ series: c.label, ...p })));
      const low = Math.max(0, Math.min(1, ...values.flatMap((v) => [v.level, v.coverage])) - 0.05);
      const domain = [Math.floor(low * 20) / 20, 1];
      return {
        ...common,
        width: WIDTH,
        height: WIDTH,
        layer: [
          {
            data: { values: domain.map((v) => ({ v })) },
            mark: { type: 'line', color: '#888', strokeDash: [4, 3] },
            encoding: { x: { field: 'v', type: 'quantitative', scale: { domain } }, y: { field: 'v', type: 'quantitative', scale: { domain } } },
          },
          {
            data: { values },
            mark: { type: 'line', point: true },
            encoding: {
              x: { field: 'level', type: 'quantitative', title: 'confidence level', scale: { domain } },
              y: { field: 'coverage', type: 'quantitative', title: 'coverage (share of test rows inside)', scale: { domain } },
              color: { field: 'series', type: 'nominal', title: null },
            },
          },
        ],
      } as TopLevelSpec;
    }
    case 'bars': {
      const series = plot.bars.some((b) => b.series !== undefined);
      const groups = [...new Set(plot.bars.map((b) => b.group))];
      const width = Math.min(2 * WIDTH, Math.max(WIDTH / 2, plot.bars.length * (series ? 22 : 36)));
      const x = bandAxis(groups, textWidth, { least: width / groups.length, most: Math.max(width, 2 * WIDTH) / groups.length });
      return {
        ...common,
        width: x.step * groups.length,
        height: 240,
        data: { values: plot.bars.map((b) => ({ ...b, series: b.series ?? '', low: b.value - (b.error ?? 0), high: b.value + (b.error ?? 0) })) },
        encoding: { x: { field: 'group', type: 'nominal', title: plot.xTitle, sort: null, axis: { labelAngle: x.labelAngle } } },
        layer: [
          {
            mark: 'bar',
            encoding: {
              y: { field: 'value', type: 'quantitative', title: plot.yTitle },
              ...(series ? { xOffset: { field: 'series', type: 'nominal' }, color: { field: 'series', type: 'nominal', title: null } } : { color: { value: '#3465a4' } }),
            },
          },
          ...(plot.bars.some((b) => b.error)
            ? [
                {
                  mark: { type: 'rule' as const, color: '#333' },
                  encoding: { y: { field: 'low', type: 'quantitative' as const }, y2: { field: 'high' }, ...(series ? { xOffset: { field: 'series', type: 'nominal' as const } } : {}) },
                },
              ]
            : []),
        ],
      } as TopLevelSpec;
    }
  }
}

/** Draw plots as SVG documents, in order. */
export async function renderPlots(plots: PlotRequest[]): Promise<string[]> {
  // vega is loaded when the first plot is drawn (reports only), not when the server starts
  const [vega, { compile }, textWidth] = await Promise.all([import('vega'), import('vega-lite'), loadTextWidth()]);
  const out: string[] = [];
  for (const plot of plots) {
    const view = new vega.View(vega.parse(compile(specOf(plot, textWidth)).spec), { renderer: 'none' });
    try {
      out.push(await view.toSVG());
    } finally {
      view.finalize();
    }
  }
  return out;
}
