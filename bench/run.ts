import { availableParallelism, cpus } from 'node:os';
import { benchFeatures } from './features.ts';
import { benchSparql } from './sparql.ts';
import { benchCompounds } from './compounds.ts';
import { benchDataset } from './dataset.ts';
import { benchLearners } from './learners.ts';
import { benchEveryLearner } from './every-learner.ts';
import { benchValidation } from './validation.ts';
import { benchFuzz } from './fuzz.ts';
import { benchMemory } from './memory.ts';
import { benchLoad } from './load.ts';
import { benchUpload } from './upload.ts';
import { benchTables } from './tables.ts';
import { benchStandardisation } from './standardisation.ts';
import { benchNames } from './names.ts';
import { benchFirstPrediction } from './first-prediction.ts';
import { benchDenseLearning } from './dense-learning.ts';
import { benchConformal } from './conformal.ts';
import { benchOnnx } from './onnx.ts';
import { benchResources } from './resources.ts';
import { benchSupermodel } from './supermodel.ts';
import { benchReport } from './report.ts';
import { benchRemoteStore } from './remote-store.ts';
import { benchScaleOut } from './scale-out.ts';
import { benchRuntime } from './runtime.ts';
import { benchContainer } from './container.ts';
import { benchMcp } from './mcp.ts';
import { benchSparqlCore } from './sparql-core.ts';
import { benchSparqlHttp } from './sparql-http.ts';
import { benchSparqlEndpoint } from './sparql-endpoint.ts';
import { benchStructureSearch } from './structure-search.ts';
import { benchStructureIndex } from './structure-index.ts';
import { benchReadAcross } from './read-across.ts';
import { benchAssessment } from './assessment.ts';
import { now, type Row } from './util.ts';

/**
 * `npm run bench`. Speeds are printed as ratios against a baseline measured in this same run
 * (raw quadstore writes; bare Comunica over the raw quadstore), never against fixed thresholds.
 */
const cpu = cpus()[0]?.model ?? 'unknown cpu';
console.log(`machine: ${availableParallelism()} cpus (${cpu.trim()}), node ${process.version}, ${process.platform}/${process.arch}`);

const started = now();
const rows: Row[] = [];
const only = process.argv.slice(2);
const benches = [
  ['features', benchFeatures],
  ['sparql', benchSparql],
  ['sparql-core', benchSparqlCore],
  ['sparql-http', benchSparqlHttp],
  ['sparql-endpoint', benchSparqlEndpoint],
  ['compounds', benchCompounds],
  ['structure-search', benchStructureSearch],
  ['structure-index', benchStructureIndex],
  ['dataset', benchDataset],
  ['learners', benchLearners],
  ['every-learner', benchEveryLearner],
  ['validation', benchValidation],
  ['fuzz', benchFuzz],
  ['memory', benchMemory],
  ['upload', benchUpload],
  ['tables', benchTables],
  ['standardisation', benchStandardisation],
  ['names', benchNames],
  ['first-prediction', benchFirstPrediction],
  ['dense-learning', benchDenseLearning],
  ['conformal', benchConformal],
  ['onnx', benchOnnx],
  ['load', benchLoad],
  ['resources', benchResources],
  ['supermodel', benchSupermodel],
  ['report', benchReport],
  ['remote-store', benchRemoteStore],
  ['scale-out', benchScaleOut],
  ['runtime', benchRuntime],
  ['container', benchContainer],
  ['mcp', benchMcp],
  ['read-across', benchReadAcross],
  ['assessment', benchAssessment],
] as const;
for (const [name, bench] of benches.filter(([n]) => only.length === 0 || only.includes(n))) {
  const t = now();
  rows.push(...(await bench()));
  console.log(`${name}: done in ${((now() - t) / 1000).toFixed(1)} s`);
}
printTable(rows);
console.log(`total ${((now() - started) / 1000).toFixed(1)} s`);

function printTable(rows: Row[]): void {
  const headers = ['measure', 'value', 'ratio'];
  const cells = rows.map((r) => [r.measure, r.value, r.ratio ?? '']);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  let current: string | undefined;
  for (const [k, r] of rows.entries()) {
    if (r.bench !== current) {
      current = r.bench;
      console.log(`\n${r.bench}`);
      console.log(line(headers));
      console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    }
    console.log(line(cells[k]));
  }
}
