import fc from 'fast-check';
import ExcelJS from 'exceljs';
import { catalogue } from '../../src/algorithm/catalogue.ts';
import { HOSTILE_TOKENS, mutated, tokenSoup } from './mutations.ts';
import { spellingsOf } from './path-spellings.ts';
import { taskStatePuts, type ClientTaskFixtures } from './task-states.ts';
import { yamlDocuments } from './yaml-documents.ts';
import { sheetShapeTargets } from './sheet-shapes.ts';
import { chemicalNameTargets } from './chemical-names.ts';
import { openSsoPolicyTargets } from './opensso-policies.ts';
import { entry, QmrfBuilder } from '../../src/qmrf/qmrf-builder.ts';
import { toQmrfXml } from '../../src/qmrf/qmrf-xml.ts';

/** A small valid QMRF: every required element, one author. */
const QMRF = toQmrfXml(
  new QmrfBuilder()
    .text('QSAR_title', 'A fuzzed model')
    .children('qmrf_authors', [entry('author_ref', { idref: 'a1' })])
    .children('model_authors', [entry('author_ref', { idref: 'a1' })])
    .children('Catalogs', [{ name: 'authors_catalog', attributes: {}, children: [entry('author', { id: 'a1', name: 'Fuzz', number: '1' })] }])
    .build(),
);
import { ETHANOL_3D } from '../fixtures.ts';
import { linearClassifierFile, linearRegressionFile } from '../onnx-fixtures.ts';

/** One HTTP request a fuzz target sends. */
export interface FuzzRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  contentType?: string;
  body?: string | Uint8Array;
}

export interface FuzzTarget {
  name: string;
  input: fc.Arbitrary<FuzzRequest>;
  /** `mcp`: the answers are JSON-RPC (a tool result, a tool error, or a protocol error), checked as such. */
  protocol?: 'mcp';
  /** Statuses outside 2xx/4xx that this target may answer with an error report (e.g. 502 for fetches). */
  alsoAllowed?: number[];
  /** Runs of this target as a multiple of the runs per target (targets with many endpoints get more). */
  weight?: number;
}

/** Resources that exist before fuzzing, so that parameters can name real (and almost real) things. */
export interface FuzzContext {
  base: string;
  dataset: string;
  target: string;
  classTarget: string;
  model: string;
  compound: string;
  feature: string;
  /** A cross-validation of the dataset and one of its fold validations (reports are made of them). */
  crossvalidation: string;
  validation: string;
  /** Tasks that other services run (POST /task), ended and running (task-states.ts). */
  clientTasks: ClientTaskFixtures;
  /** A read-across category of the dataset's endpoint around the compound, and a draft assessment of it. */
  category: string;
  assessment: string;
}

const SMARTS = ['c1ccccc1', '[N+](=O)[O-]', '[#6]~[#7;R]', '[Cl,Br,I]', 'C(=O)[OX2H1]', '[$(C=O)]N', '*~*', '[!#1]'];

const SMILES = [
  'CCO',
  'c1ccccc1O',
  'CC(=O)Oc1ccccc1C(=O)O',
  'C[C@H](N)C(=O)O',
  '[Na+].[Cl-]',
  'C1CC2CCC1C2',
  'F/C=C/F',
  '[2H]C([2H])([2H])O',
  'O=[N+]([O-])c1ccccc1',
  'c1ccc2c(c1)[nH]c1ccccc12 carbazole',
];
const SMILES_TOKENS = [
  'C',
  'c',
  'N',
  'n',
  'O',
  'o',
  'S',
  's',
  'P',
  'F',
  'Cl',
  'Br',
  'I',
  'B',
  '[',
  ']',
  '(',
  ')',
  '=',
  '#',
  '$',
  ':',
  '/',
  '\\',
  '@',
  '@@',
  '+',
  '-',
  '1',
  '2',
  '3',
  '9',
  '%12',
  'H',
  '.',
  '*',
  ' ',
  'Na',
  'Fe',
  '[nH]',
  '[O-]',
  '[N+]',
  '0',
  '\n',
];
const INCHI = ['InChI=1S/C6H6/c1-2-4-6-5-3-1/h1-6H', 'InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3', 'InChI=1S/C2H4O2/c1-2(3)4/h1H3,(H,3,4)', 'InChI=1S/C3H7NO2/c1-2(4)3(5)6/h2H,4H2,1H3,(H,5,6)/t2-/m0/s1'];
const ETHANOL = ETHANOL_3D;
const CHARGED = `ion
  hand-made

  2  0  0  0  0  0  0  0  0  0999 V2000
    0.0000    0.0000    0.0000 Na  0  3  0  0  0  0  0  0  0  0  0  0
    2.0000    0.0000    0.0000 Cl  0  5  0  0  0  0  0  0  0  0  0  0
M  CHG  2   1   1   2  -1
M  END
`;
const SDF = `${ETHANOL}> <LC50>\n1.5\n\n> <name>\nethanol\n\n$$$$\n${CHARGED}> <LC50>\n2.25\n\n$$$$\n`;
const CSV = [
  'SMILES,LC50,Class\nCCO,1.5,toxic\nc1ccccc1,2.25,nontoxic\n',
  '"SMILES","name","value"\n"CCO","eth,anol","3"\n"CC(=O)O","acetic ""acid""",\n',
  'InChI;value\nInChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3;3\n',
  'Compound\tx\ty\nCCN\t1\t2\nCCCN\t3\t\n',
  // the dialects of Excel on Windows, and columns known by their headers
  'SMILES;LC50 [mg/L];logP (-)\r\nCCO;1,5;-0,31\r\nc1ccccc1;1.234,5;2,13\r\n',
  'Name,CAS RN,SMILES,Activity (active)\nethanol,64-17-5,CCO,yes\nphenol,108-95-3,Oc1ccccc1,no\n',
  'Molfile,x\n"\n  fuzz\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END",1\n',
];
/** Query parameters of a delimited upload: dialects, some of them not ones. */
const DIALECT_QUERIES = [
  '',
  '?encoding=windows-1252',
  '?encoding=utf-16le',
  '?encoding=utf-16be',
  '?encoding=%00',
  '?delimiter=%3B&decimal=%2C',
  '?delimiter=tab',
  '?delimiter=%2C&decimal=%2C',
  '?decimal=x',
  '?delimiter=%E2%80%A6',
  '?sheet=x',
];

/** A small workbook: a header, numbers, a formula, a date (made once). */
const WORKBOOK = await (async () => {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('data');
  sheet.addRow(['SMILES', 'LC50 [mg/L]', 'Tested']);
  sheet.addRow(['CCO', 1.5, new Date(Date.UTC(2024, 0, 2))]);
  sheet.addRow(['c1ccccc1', { formula: 'B2*2', result: 3 }, null]);
  return new Uint8Array(await book.xlsx.writeBuffer());
})();

/** A workbook's bytes, cut short and with bytes overwritten (its zip structure, its XML). */
const mutatedBytes = (seed: Uint8Array) =>
  fc.tuple(fc.nat(seed.length), fc.array(fc.tuple(fc.nat(seed.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 8 })).map(([keep, writes]) => {
    // a copy (a Buffer's slice would be a view, and the writes would change the seed itself)
    const bytes = new Uint8Array(seed.subarray(0, Math.max(1, keep)));
    for (const [at, value] of writes) if (at < bytes.length) bytes[at] = value;
    return bytes;
  });
const ARFF = ["@relation test\n@attribute SMILES string\n@attribute LC50 numeric\n@attribute Class {toxic,nontoxic}\n@data\n'CCO',1.5,toxic\n'c1ccccc1',2.25,nontoxic\n% comment\n'CCN',?,toxic\n"];
const OT = 'http://www.opentox.org/api/1.1#';
const RDF_SEEDS: Record<string, string[]> = {
  'text/turtle': [`@prefix ot: <${OT}> . @prefix dc: <http://purl.org/dc/elements/1.1/> .\n[] a ot:NumericFeature ; dc:title "LC50 \\"fish\\""@en ; ot:units "mg/L" .\n`],
  'text/n3': [`@prefix ot: <${OT}> .\n<#f> a ot:NominalFeature ; <http://purl.org/dc/elements/1.1/title> """multi\nline""" ; ot:acceptValue "a", "b" .\n`],
  'application/n-triples': [
    `<http://example.org/f> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${OT}NumericFeature> .\n<http://example.org/f> <http://purl.org/dc/elements/1.1/title> "t\\u00e9"^^<http://www.w3.org/2001/XMLSchema#string> .\n`,
  ],
  'application/rdf+xml': [
    `<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ot="${OT}" xmlns:dc="http://purl.org/dc/elements/1.1/">\n<ot:NumericFeature rdf:about="http://example.org/f"><dc:title xml:lang="en">LC50 &amp; more</dc:title><ot:units>mg/L</ot:units></ot:NumericFeature>\n</rdf:RDF>\n`,
  ],
  'application/ld+json': [
    `{"@context": {"ot": "${OT}", "title": "http://purl.org/dc/elements/1.1/title"}, "@id": "http://example.org/f", "@type": "ot:NumericFeature", "title": {"@value": "LC50", "@language": "en"}, "ot:units": "mg/L"}`,
  ],
};
const COMPOUND_RDF = `@prefix ot: <${OT}> .\n[] a ot:Compound ; ot:smiles "CCO" ; <http://www.w3.org/2000/01/rdf-schema#label> "ethanol" .\n`;
const DATASET_METADATA = `@prefix dc: <http://purl.org/dc/elements/1.1/> .\n<> dc:title "fuzzed \\"title\\"" ; dc:license <http://creativecommons.org/licenses/by/4.0/> ; dc:source "x"@en .\n`;
const SPARQL = [
  'SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 5',
  `PREFIX ot: <${OT}> SELECT ?f (COUNT(?v) AS ?n) WHERE { GRAPH ?g { ?f a ot:Feature ; ?p ?v } } GROUP BY ?f ORDER BY DESC(?n) LIMIT 3`,
  'ASK { ?s <http://purl.org/dc/elements/1.1/title> ?t FILTER(REGEX(?t, "^LC", "i")) }',
  'CONSTRUCT { ?s a ?t } WHERE { ?s a ?t OPTIONAL { ?s <urn:x> ?x } } LIMIT 10',
  'DESCRIBE <http://localhost/feature/1>',
  'SELECT * WHERE { VALUES ?x { 1 "a" <urn:b> } BIND(STR(?x) AS ?y) } ',
];
const SPARQL_TOKENS = [
  'SELECT',
  ' ',
  '*',
  'WHERE',
  '{',
  '}',
  '?s',
  '?p',
  '?o',
  'GRAPH',
  '?g',
  'FILTER',
  '(',
  ')',
  'REGEX',
  'OPTIONAL',
  'UNION',
  'LIMIT',
  '10',
  'ORDER BY',
  '.',
  ';',
  ',',
  '<urn:x>',
  '"x"',
  'PREFIX',
  'ot:',
  'CONSTRUCT',
  'ASK',
  'DESCRIBE',
  'VALUES',
  'BIND',
  'AS',
  'COUNT',
  'GROUP BY',
  'HAVING',
  'MINUS',
  'EXISTS',
  'NOT',
  '+',
  '/',
  '|',
  '^',
  '!',
  'a',
  '1e9',
  'SERVICE',
  'FROM',
  'INSERT',
  'DELETE',
  'LOAD',
  '<http://127.0.0.1:1/>',
];

/** Values a form parameter may get: real URIs, almost-real ones, numbers at the edges, hostile text. */
function values(c: FuzzContext): fc.Arbitrary<string> {
  const uris = [c.dataset, c.target, c.classTarget, c.model, c.compound, c.feature, `${c.base}/algorithm/mlr`, `${c.base}/dataset/999999`, `${c.base}/model/0`, `${c.base}/feature/x`];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...uris) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...uris).chain((u) => fc.constantFrom(`${u}?feature_uris[]=${encodeURIComponent(c.feature)}`, `${u}/`, `${u}>`, `${u}#x`, `${u}?page=-1`, u.replace('http', 'ftp'))),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '-5',
        '0',
        '1',
        '2',
        '3',
        '10',
        '1000000000',
        '0.5',
        '1.5',
        '-0.1',
        'NaN',
        'Infinity',
        'true',
        'false',
        'super',
        'yes',
        '',
        ' ',
        'mlr',
        'C=1.0;gamma=x',
        'numTrees=3;maxDepth=2',
        'a=b&c=d',
      ),
    },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TOKENS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );
}

/** The MCP tools and the arguments they take, with values that are right for them. */
function mcpToolArguments(c: FuzzContext): [string, Record<string, unknown>][] {
  return [
    ['search_compounds', { text: 'ethanol' }],
    ['search_compounds', { smiles: 'CCO' }],
    ['search_compounds', { smarts: 'c1ccccc1', limit: 5 }],
    ['search_compounds', { similar_to: 'CCO', threshold: 0.3 }],
    ['get_resource', { uri: c.model }],
    ['list_models', { limit: 3 }],
    ['predict', { model: c.model, smiles: 'CCCCO' }],
    ['predict', { model: c.model, compound: c.compound }],
    ['upload_dataset', { content: 'SMILES,y\nCCO,1\nCCCO,2\n', format: 'csv' }],
    ['train_model', { algorithm: 'mlr', dataset: c.dataset, target: c.target }],
    ['cross_validate', { algorithm: 'mlr', dataset: c.dataset, target: c.target, folds: 2 }],
    ['get_task', { task: `${c.base}/task/x` }],
    ['sparql_query', { query: 'SELECT * WHERE { ?s ?p ?o } LIMIT 2' }],
    ['make_qprf', { model: c.model, compound: c.compound }],
  ];
}

/**
 * MCP tool calls (POST /mcp, JSON-RPC): right arguments with one changed to a value of another
 * kind, removed, or added under a wrong name; now and then a message that is not JSON-RPC.
 */
/** The fields an assessment's form takes (its elements are scenario 2's). */
function assessmentFields(c: FuzzContext): string[] {
  return [
    'title',
    'purpose',
    'regulatory_context',
    'problem_formulation',
    'tolerable_uncertainty',
    'overall_uncertainty',
    'conclusion',
    'structural_hypothesis',
    'score:AE A.1',
    'comment:AE A.1',
    'score:AE E.2',
    `method:${c.target}`,
    `model:${c.target}`,
    `rationale:${c.target}`,
    'remove',
    'remark',
  ];
}

function mcpCalls(c: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const json = fc.oneof(
    { weight: 3, arbitrary: values(c) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
      ),
    },
    { weight: 1, arbitrary: fc.oneof(mutated(SMILES), mutated(SMARTS), mutated(SPARQL)) },
  );
  const call = fc
    .tuple(fc.constantFrom(...mcpToolArguments(c)), fc.nat(), json, fc.constantFrom('change', 'remove', 'add', 'keep'), fc.string({ maxLength: 8 }))
    .map(([[name, args], which, value, how, extra]) => {
      const keys = Object.keys(args);
      const key = keys[which % keys.length];
      const changed: Record<string, unknown> = { ...args };
      if (how === 'change') changed[key] = value;
      if (how === 'remove') delete changed[key];
      if (how === 'add') changed[extra || 'x'] = value;
      return JSON.stringify({ jsonrpc: '2.0', id: which, method: 'tools/call', params: { name, arguments: changed } });
    });
  const broken = fc.oneof(
    fc.constantFrom(
      '{',
      '[]',
      'null',
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}',
    ),
    fc.string({ maxLength: 40 }),
  );
  return fc.oneof({ weight: 9, arbitrary: call }, { weight: 1, arbitrary: broken }).map((body): FuzzRequest => ({ method: 'POST', path: '/mcp', contentType: 'application/json', body }));
}

/**
 * Random parameters (names of this endpoint, now and then an unknown one), each possibly
 * repeated; half of the time on top of a request that would be accepted, so that the checks
 * behind the first refusal are reached too.
 */
function formOf(names: string[], valid: Record<string, string>, c: FuzzContext): fc.Arbitrary<string> {
  const pairs = fc.array(fc.tuple(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }), values(c)), { maxLength: 5 });
  return fc.tuple(fc.boolean(), pairs).map(([onValid, extra]) => {
    const p = new URLSearchParams(onValid ? valid : {});
    for (const [k, v] of extra) onValid && p.has(k) ? p.set(k, v) : p.append(k, v);
    return p.toString();
  });
}

/** A multipart/form-data body of a file part and fields, as a browser's form sends it. */
function multipartBody(file: Uint8Array, fields: [string, string][]): { contentType: string; body: Uint8Array } {
  const boundary = 'fuzz-boundary-7c1e';
  const part = (headers: string) => Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`);
  const chunks = [part('Content-Disposition: form-data; name="file"; filename="model.onnx"\r\nContent-Type: application/onnx'), Buffer.from(file), Buffer.from('\r\n')];
  for (const [name, value] of fields) chunks.push(part(`Content-Disposition: form-data; name="${name.replace(/["\r\n]/g, '_')}"`), Buffer.from(value), Buffer.from('\r\n'));
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: new Uint8Array(Buffer.concat(chunks)) };
}

/** Imports of ONNX files (POST /model): valid files and their variables, files cut short or overwritten, fields wrong, missing or repeated. */
function onnxImports(c: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const regression = linearRegressionFile(1);
  const classifier = linearClassifierFile(['a', 'b']);
  const valid: [Uint8Array, [string, string][]][] = [
    [
      regression,
      [
        ['independent_features', c.feature],
        ['prediction_feature', c.target],
      ],
    ],
    [
      classifier,
      [
        ['independent_features', c.feature],
        ['independent_features', c.target],
        ['prediction_feature', c.classTarget],
      ],
    ],
  ];
  const names = ['independent_features', 'prediction_feature', 'title', 'training_dataset', 'algorithm_description'];
  const field = fc.tuple(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }), values(c));
  const mutatedImports = fc
    .tuple(fc.constantFrom(...valid), fc.oneof(fc.constant(undefined), mutatedBytes(regression), mutatedBytes(classifier)), fc.boolean(), fc.array(field, { maxLength: 3 }))
    .map(([[file, fields], mutatedFile, keepFields, extra]) => multipartBody(mutatedFile ?? file, [...(keepFields ? fields : []), ...extra]));
  // a valid import now and then, so that what a stored import leads to is fuzzed too
  const validImports = fc.constantFrom(...valid).map(([file, fields]) => multipartBody(file, fields));
  return fc.oneof({ weight: 1, arbitrary: validImports }, { weight: 4, arbitrary: mutatedImports }).map((body): FuzzRequest => ({ method: 'POST', path: '/model', ...body }));
}

const post =
  (path: string, contentType: string) =>
  (body: string): FuzzRequest => ({ method: 'POST', path, contentType, body });

export function fuzzTargets(c: FuzzContext): FuzzTarget[] {
  const local = (uri: string) => uri.slice(c.base.length);
  const form = 'application/x-www-form-urlencoded';
  const validationParams = [
    'algorithm_uri',
    'dataset_uri',
    'prediction_feature',
    'algorithm_params',
    'random_seed',
    'split_ratio',
    'bootstrap_percentage',
    'y_scramble',
    'y_scramble_seed',
    'num_folds',
    'stratified',
    'model_uri',
    'test_dataset_uri',
    'test_target_dataset_uri',
    'training_dataset_uri',
    'prediction_dataset_uri',
    'predicted_feature',
  ];
  const learning = { algorithm_uri: `${c.base}/algorithm/mlr`, dataset_uri: c.dataset, prediction_feature: c.target };
  const forms: [string, string[], Record<string, string>][] = [
    ...catalogue().map((a): [string, string[], Record<string, string>] => [
      `/algorithm/${a.id}`,
      ['dataset_uri', 'prediction_feature', 'feature_uris[]', 'result_dataset', 'dataset_service', ...a.parameters.map((p) => p.name)],
      a.kind === 'learner' ? { dataset_uri: c.dataset, prediction_feature: a.types.includes('Classification') ? c.classTarget : c.target } : { dataset_uri: c.dataset },
    ]),
    [local(c.model), ['dataset_uri', 'compound_uri', 'result_dataset', 'dataset_service', 'feature_uris[]'], { dataset_uri: c.dataset }],
    ['/validation/test_set_validation', validationParams, { model_uri: c.model, test_dataset_uri: c.dataset, prediction_feature: c.target }],
    ...['training_test_validation', 'training_test_valdiation'].map((v): [string, string[], Record<string, string>] => [
      `/validation/${v}`,
      validationParams,
      { ...learning, training_dataset_uri: c.dataset, test_dataset_uri: c.dataset, dataset_uri: '' },
    ]),
    ['/validation/training_test_split', validationParams, learning],
    ['/validation/bootstrapping', validationParams, learning],
    ['/validation/validate_datasets', validationParams, { test_dataset_uri: c.dataset, prediction_dataset_uri: c.dataset, prediction_feature: c.target, predicted_feature: c.feature }],
    ['/crossvalidation', validationParams, { ...learning, num_folds: '3' }],
    ['/crossvalidation/loo', validationParams, learning],
    ['/report/validation', ['validation_uris', 'identifier'], { validation_uris: c.validation }],
    ['/reach_report/qmrf', ['model_uri'], { model_uri: c.model }],
    ['/report/crossvalidation', ['validation_uris', 'identifier'], { validation_uris: c.crossvalidation }],
    ['/report/algorithm_comparison', ['validation_uris', 'identifier'], { validation_uris: `${c.crossvalidation},${c.crossvalidation}`, identifier: 'a,b' }],
    ['/dataset', ['dataset_uri', 'compound_uris[]', 'feature_uris[]', 'title', 'associated_features', 'matcher'], { dataset_uri: c.dataset, 'feature_uris[]': c.feature }],
    ['/ontology', ['uri[]', 'query'], { 'uri[]': c.dataset }],
    ['/auth/authenticate', ['username', 'password'], { username: 'nobody', password: 'x' }],
    ['/auth/authorize', ['uri', 'action', 'subjectid'], { uri: c.dataset, action: 'GET' }],
    ['/auth/policy', ['uri', 'public_read', 'group'], { uri: c.dataset, public_read: 'true' }],
    // read-across (issue 56): a category around a compound for the dataset's endpoint
    ['/category', ['target', 'endpoint', 'similarity_threshold', 'max_sources', 'smarts', 'parent', 'member', 'title', 'descriptor_range', 'profile'], { target: c.compound, endpoint: c.target }],
    // read-across assessments (issue 57): made, and a draft written
    ['/assessment', ['category', 'scenario', ...assessmentFields(c)], { category: c.category, scenario: '2' }],
    [local(c.assessment), assessmentFields(c), {}],
  ];
  return [
    { name: 'SMILES', input: fc.oneof(mutated(SMILES), tokenSoup(SMILES_TOKENS)).map(post('/compound', 'chemical/x-daylight-smiles')) },
    { name: 'InChI', input: mutated(INCHI).map(post('/compound', 'chemical/x-inchi')) },
    { name: 'molfile', input: mutated([ETHANOL, CHARGED]).map(post('/compound', 'chemical/x-mdl-molfile')) },
    { name: 'SDF (compounds)', input: mutated([SDF]).map(post('/compound', 'chemical/x-mdl-sdfile')) },
    ...chemicalNameTargets(),
    ...openSsoPolicyTargets(c.dataset),
    { name: 'QMRF XML', input: mutated([QMRF]).map(post('/reach_report/qmrf', 'application/qmrf-xml')) },
    { name: 'SDF (dataset)', input: mutated([SDF]).map(post('/dataset', 'chemical/x-mdl-sdfile')) },
    { name: 'CSV', input: mutated(CSV).map(post('/dataset', 'text/csv')) },
    {
      name: 'CSV dialects',
      input: fc
        .tuple(mutated(CSV), fc.constantFrom(...DIALECT_QUERIES), fc.constantFrom('utf8', 'latin1', 'utf16le') as fc.Arbitrary<BufferEncoding>)
        .map(([text, query, encoding]): FuzzRequest => ({ method: 'POST', path: `/dataset${query}`, contentType: 'text/csv', body: new Uint8Array(Buffer.from(text, encoding)) })),
    },
    {
      name: 'XLSX',
      input: fc
        .oneof(mutatedBytes(WORKBOOK), fc.constant(WORKBOOK))
        .map((body): FuzzRequest => ({ method: 'POST', path: '/dataset', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', body })),
    },
    ...sheetShapeTargets(),
    { name: 'ARFF', input: mutated(ARFF).map(post('/dataset', 'text/arff')) },
    { name: 'YAML with anchors, aliases and tags (dataset)', input: yamlDocuments().map(post('/dataset', 'text/x-yaml')) },
    ...Object.entries(RDF_SEEDS).map(([type, seeds]): FuzzTarget => ({ name: `RDF ${type} (feature)`, input: mutated(seeds).map(post('/feature', type)) })),
    { name: 'RDF text/turtle (compound)', input: mutated([COMPOUND_RDF]).map(post('/compound', 'text/turtle')) },
    {
      name: 'RDF text/turtle (dataset metadata)',
      input: mutated([DATASET_METADATA]).map((body): FuzzRequest => ({ method: 'PUT', path: `${local(c.dataset)}/metadata`, contentType: 'text/turtle', body })),
    },
    {
      name: 'SPARQL query',
      input: fc
        .tuple(fc.oneof(mutated(SPARQL), tokenSoup(SPARQL_TOKENS)), fc.boolean())
        .map(
          ([q, viaGet]): FuzzRequest =>
            viaGet ? { method: 'GET', path: `/ontology?query=${encodeURIComponent(q)}` } : { method: 'POST', path: '/sparql', contentType: 'application/sparql-query', body: q },
        ),
      alsoAllowed: [503],
    },
    {
      name: 'compound search parameters',
      input: fc
        .tuple(fc.constantFrom('search', 'smarts', 'similarity', 'sameas', 'threshold'), fc.oneof(mutated(SMILES), values(c)))
        .map(([k, v]): FuzzRequest => ({ method: 'GET', path: `/compound?${new URLSearchParams({ [k]: v })}` })),
    },
    {
      // a structure search with its paging and limits: SMARTS, a molfile or a name prefix, with hostile numbers
      name: 'structure search with pages and limits',
      input: fc
        .tuple(
          fc.constantFrom('smarts', 'similarity', 'search'),
          fc.oneof(mutated(SMILES), mutated(SMARTS), mutated([ETHANOL]), values(c), fc.constantFrom('*', '[*]', 'C', 'benz*', '*a', '**')),
          fc.array(
            fc.tuple(
              fc.constantFrom('page', 'pagesize', 'threshold', 'top'),
              fc.oneof(fc.constantFrom('0', '1', '-1', '10000', '10001', '1e3', '0.5', 'NaN', '', '99999999999999999999'), fc.nat().map(String)),
            ),
            { maxLength: 3 },
          ),
        )
        .map(([k, v, extra]): FuzzRequest => ({ method: 'GET', path: `/compound?${new URLSearchParams([[k, v], ...extra])}` })),
      alsoAllowed: [503],
    },
    {
      // read-across analogues (issue 56): an endpoint with hostile k, threshold and SMARTS
      name: 'read-across analogue search parameters',
      input: fc
        .tuple(
          fc.oneof(fc.constant(c.target), values(c)),
          fc.array(
            fc.tuple(
              fc.constantFrom('k', 'threshold', 'smarts', 'descriptor_range', 'profile'),
              fc.oneof(fc.constantFrom('0', '1', '-1', '1001', '0.5', 'NaN', '', '1e309', 'CrippenClogP:1', 'amw:-2', 'http://www.opentox.org/profilers/verhaar#Class1'), mutated(SMARTS), values(c)),
            ),
            { maxLength: 3 },
          ),
        )
        .map(([endpoint, extra]): FuzzRequest => ({ method: 'GET', path: `${local(c.compound)}/analogues?${new URLSearchParams([['endpoint', endpoint], ...extra])}` })),
    },
    {
      // a category's matrix and gap filling with hostile rules and descriptors; a compound's profile in any type
      name: 'read-across category views and profiles',
      input: fc
        .tuple(fc.constantFrom('matrix?collapse', 'gap-filling?descriptor', 'profile'), fc.oneof(fc.constantFrom('all', 'mean', 'median', 'min', 'max', 'CrippenClogP', 'amw', '', 'NaN'), values(c)))
        .map(
          ([view, value]): FuzzRequest => ({
            method: 'GET',
            path: view === 'profile' ? `${local(c.compound)}/profile?media=${encodeURIComponent(value)}` : `${local(c.category)}/${view}=${encodeURIComponent(value)}`,
          }),
        ),
    },
    { name: 'ONNX import (multipart)', input: onnxImports(c) },
    {
      // other spellings of resource paths (case, percent-encoding, slashes, dot segments): answered as the canonical path, or 404
      name: 'path spellings',
      input: fc
        .constantFrom(...[c.dataset, c.model, c.compound, c.feature, c.crossvalidation, c.validation].map(local), '/dataset', '/algorithm/mlr', '/sparql')
        .chain((path) => spellingsOf(path))
        .map((spelling): FuzzRequest => ({ method: 'GET', path: spelling.path })),
    },
    taskStatePuts(c.clientTasks, c.base),
    { name: 'MCP tool calls', input: mcpCalls(c), protocol: 'mcp', weight: 2 },
    {
      name: 'form parameters of every POST',
      input: fc.constantFrom(...forms).chain(([path, names, valid]) => formOf(names, valid, c).map((body): FuzzRequest => ({ method: 'POST', path, contentType: form, body }))),
      alsoAllowed: [502],
      weight: 3,
    },
  ];
}
