import { DOMParser, type Element } from '@xmldom/xmldom';

/**
 * A small PMML 4.4 scorer written from the specification, for the tests: it scores the documents
 * the server writes (RegressionModel, MiningModel of TreeModels averaged, SupportVectorMachineModel)
 * on rows of values, so that a test can compare them with the server's own predictions. It
 * implements what those documents use and throws on anything else.
 */
export type PmmlScore = { value: number | string; probabilities?: Map<string, number> };

const children = (e: Element, name?: string): Element[] => Array.from(e.childNodes).filter((n): n is Element => n.nodeType === 1 && (!name || (n as Element).localName === name));
const child = (e: Element, name: string): Element | undefined => children(e, name)[0];
const num = (e: Element, name: string, fallback?: number): number => {
  const v = e.getAttribute(name);
  if (v === null || v === '') {
    if (fallback === undefined) throw new Error(`${e.localName}: no ${name}`);
    return fallback;
  }
  return Number(v);
};

export function scorePmml(xml: string): (row: Map<string, number>) => PmmlScore {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const root = doc.documentElement!;
  const model = children(root).find((e) => ['RegressionModel', 'MiningModel', 'SupportVectorMachineModel'].includes(e.localName ?? ''));
  if (!model) throw new Error('no model element the scorer knows');
  return (row) => scoreModel(model, prepared(model, row));
}

/** The row after the model's MiningSchema (missing values replaced) and LocalTransformations (derived fields). */
function prepared(model: Element, row: Map<string, number>): Map<string, number> {
  const out = new Map(row);
  for (const field of children(child(model, 'MiningSchema')!, 'MiningField')) {
    const name = field.getAttribute('name')!;
    const replacement = field.getAttribute('missingValueReplacement');
    if ((!out.has(name) || Number.isNaN(out.get(name))) && replacement !== null) out.set(name, Number(replacement));
  }
  const local = child(model, 'LocalTransformations');
  for (const derived of local ? children(local, 'DerivedField') : []) out.set(derived.getAttribute('name')!, expression(children(derived)[0], out));
  return out;
}

function expression(e: Element, row: Map<string, number>): number {
  switch (e.localName) {
    case 'Constant':
      return Number(e.textContent);
    case 'FieldRef':
      return row.get(e.getAttribute('field')!) ?? Number.NaN;
    case 'Apply': {
      const [a, b] = children(e).map((c) => expression(c, row));
      const f = e.getAttribute('function');
      if (f === '+') return a + b;
      if (f === '-') return a - b;
      if (f === '*') return a * b;
      if (f === '/') return a / b;
      throw new Error(`Apply ${f}`);
    }
    default:
      throw new Error(`expression ${e.localName}`);
  }
}

function scoreModel(model: Element, row: Map<string, number>): PmmlScore {
  switch (model.localName) {
    case 'RegressionModel':
      return regression(model, row);
    case 'MiningModel':
      return mining(model, row);
    case 'SupportVectorMachineModel':
      return svm(model, row);
    case 'TreeModel':
      return tree(model, row);
    default:
      throw new Error(`model ${model.localName}`);
  }
}

function regression(model: Element, row: Map<string, number>): PmmlScore {
  const tables = children(model, 'RegressionTable').map((t) => ({
    category: t.getAttribute('targetCategory') ?? '',
    y: num(t, 'intercept') + children(t, 'NumericPredictor').reduce((s, p) => s + num(p, 'coefficient') * (row.get(p.getAttribute('name')!) ?? Number.NaN) ** num(p, 'exponent', 1), 0),
  }));
  if (model.getAttribute('functionName') === 'regression') return { value: tables[0].y };
  const method = model.getAttribute('normalizationMethod');
  let p: number[];
  if (method === 'logit' && tables.length === 2) {
    const first = 1 / (1 + Math.exp(-tables[0].y));
    p = [first, 1 - first];
  } else if (method === 'softmax') {
    const top = Math.max(...tables.map((t) => t.y));
    const e = tables.map((t) => Math.exp(t.y - top));
    const sum = e.reduce((a, b) => a + b, 0);
    p = e.map((v) => v / sum);
  } else throw new Error(`normalizationMethod ${method}`);
  return classified(new Map(tables.map((t, i) => [t.category, p[i]])));
}

function classified(probabilities: Map<string, number>): PmmlScore {
  let best = '';
  let top = -1;
  for (const [c, p] of probabilities) if (p > top) [best, top] = [c, p];
  return { value: best, probabilities };
}

function mining(model: Element, row: Map<string, number>): PmmlScore {
  const segmentation = child(model, 'Segmentation')!;
  if (segmentation.getAttribute('multipleModelMethod') !== 'average') throw new Error('only average');
  const scores = children(segmentation, 'Segment').map((s) => {
    if (!child(s, 'True')) throw new Error('only segments with <True/>');
    return scoreModel(children(s).find((e) => e.localName !== 'True')!, row);
  });
  if (model.getAttribute('functionName') === 'regression') return { value: scores.reduce((a, s) => a + (s.value as number), 0) / scores.length };
  const sums = new Map<string, number>();
  for (const s of scores) for (const [c, p] of s.probabilities!) sums.set(c, (sums.get(c) ?? 0) + p / scores.length);
  return classified(sums);
}

function predicate(node: Element, row: Map<string, number>): boolean {
  const p = children(node).find((e) => ['True', 'False', 'SimplePredicate'].includes(e.localName ?? ''))!;
  if (p.localName === 'True') return true;
  if (p.localName === 'False') return false;
  const x = row.get(p.getAttribute('field')!) ?? Number.NaN;
  const v = num(p, 'value');
  switch (p.getAttribute('operator')) {
    case 'lessOrEqual':
      return x <= v;
    case 'lessThan':
      return x < v;
    case 'greaterThan':
      return x > v;
    case 'greaterOrEqual':
      return x >= v;
    default:
      throw new Error(`operator ${p.getAttribute('operator')}`);
  }
}

function tree(model: Element, row: Map<string, number>): PmmlScore {
  let node = child(model, 'Node')!;
  for (;;) {
    const next = children(node, 'Node').find((n) => predicate(n, row));
    if (!next) break;
    node = next;
  }
  if (model.getAttribute('functionName') === 'regression') return { value: num(node, 'score') };
  const distribution = children(node, 'ScoreDistribution');
  return { value: node.getAttribute('score')!, probabilities: new Map(distribution.map((d) => [d.getAttribute('value')!, num(d, 'probability')])) };
}

function svm(model: Element, row: Map<string, number>): PmmlScore {
  const kernel = children(model).find((e) => e.localName?.endsWith('KernelType'))!;
  const dictionary = child(model, 'VectorDictionary')!;
  const fields = children(child(dictionary, 'VectorFields')!, 'FieldRef').map((f) => f.getAttribute('field')!);
  const z = fields.map((f) => row.get(f) ?? Number.NaN);
  const vectors = new Map(
    children(dictionary, 'VectorInstance').map((v) => {
      const sparse = child(v, 'REAL-SparseArray')!;
      const values = new Array<number>(num(sparse, 'n')).fill(0);
      const indices = child(sparse, 'Indices')!.textContent!.trim().split(/\s+/).map(Number);
      const entries = child(sparse, 'REAL-Entries')!.textContent!.trim().split(/\s+/).map(Number);
      indices.forEach((i, k) => {
        values[i - 1] = entries[k];
      });
      return [v.getAttribute('id')!, values];
    }),
  );
  const dot = (a: number[]) => a.reduce((s, v, j) => s + v * z[j], 0);
  const k = (sv: number[]): number => {
    switch (kernel.localName) {
      case 'LinearKernelType':
        return dot(sv);
      case 'PolynomialKernelType':
        return (num(kernel, 'gamma') * dot(sv) + num(kernel, 'coef0')) ** num(kernel, 'degree');
      case 'RadialBasisKernelType':
        return Math.exp(-num(kernel, 'gamma') * sv.reduce((s, v, j) => s + (v - z[j]) ** 2, 0));
      case 'SigmoidKernelType':
        return Math.tanh(num(kernel, 'gamma') * dot(sv) + num(kernel, 'coef0'));
      default:
        throw new Error(`kernel ${kernel.localName}`);
    }
  };
  const machine = child(model, 'SupportVectorMachine')!;
  const ids = children(child(machine, 'SupportVectors')!, 'SupportVector').map((s) => s.getAttribute('vectorId')!);
  const coefficients = child(machine, 'Coefficients')!;
  const f = children(coefficients, 'Coefficient').reduce((s, c, i) => s + num(c, 'value') * k(vectors.get(ids[i])!), num(coefficients, 'absoluteValue', 0));
  if (model.getAttribute('functionName') === 'regression') {
    const target = child(model, 'Targets') && child(child(model, 'Targets')!, 'Target');
    return { value: target ? f * num(target, 'rescaleFactor', 1) + num(target, 'rescaleConstant', 0) : f };
  }
  return { value: f < num(model, 'threshold', 0) ? machine.getAttribute('targetCategory')! : machine.getAttribute('alternateTargetCategory')! };
}
