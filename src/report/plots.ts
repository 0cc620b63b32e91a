import type { TopLevelSpec } from 'vega-lite';

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
  /** Conformal calibration: coverage against confidence level per series (all rows, each class), with the diagonal the guarantee promises. */
  | { kind: 'calibration'; title: string; series: { label: string; points: { level: number; coverage: number }[] }[] };

const FONT = 'DejaVu Sans';
const WIDTH = 420;

function specOf(plot: PlotRequest): TopLevelSpec {
  const common = { title: plot.title, config: { font: FONT, view: { stroke: '#bbb' }, axis: { labelFontSize: 11, titleFontSize: 12 } }, background: 'white' };
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
      const size = Math.min(WIDTH, 60 * plot.classes.length + 40);
      return {
        ...common,
        width: size,
        height: size,
        data: { values },
        encoding: {
          x: { field: 'predicted', type: 'nominal', title: 'predicted class', sort: plot.classes, axis: { labelAngle: 0 } },
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
      const width = Math.min(2 * WIDTH, Math.max(WIDTH / 2, plot.bars.length * (series ? 22 : 36)));
      return {
        ...common,
        width,
        height: 240,
        data: { values: plot.bars.map((b) => ({ ...b, series: b.series ?? '', low: b.value - (b.error ?? 0), high: b.value + (b.error ?? 0) })) },
        encoding: { x: { field: 'group', type: 'nominal', title: plot.xTitle, sort: null, axis: { labelAngle: 0 } } },
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
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const out: string[] = [];
  for (const plot of plots) {
    const view = new vega.View(vega.parse(compile(specOf(plot)).spec), { renderer: 'none' });
    try {
      out.push(await view.toSVG());
    } finally {
      view.finalize();
    }
  }
  return out;
}
