import type * as RDF from '@rdfjs/types';
import type { Learner, ParameterSpec, ParamValue } from '../learning/learner.ts';
import { LEARNERS } from '../learning/learners.ts';
import { CONFORMAL_PARAMETERS } from '../learning/conformal.ts';
import { DOMAIN_METHODS, DOMAIN_OPTION, type DomainMethod } from '../learning/applicability-domain.ts';
import { SELECTION_METHODS, type SelectionMethod } from '../learning/feature-selection.ts';
import { CLEANUP_METHODS, type CleanupMethod } from './cleanup-methods.ts';
import { FREQUENT_SUBSTRUCTURES } from './pattern-mining.ts';
import { STRUCTURE_STANDARDISATION } from './structure-standardisation.ts';
import { DESCRIPTOR_SETS, type DescriptorSet } from './descriptor-sets.ts';
import { df, ot, ota, rdf, dc, owl, literal, xsd } from '../rdf/namespaces.ts';

/**
 * The algorithm catalogue (spec 2.4): every algorithm the service offers, whatever it does.
 * An entry names what runs when it is invoked; new kinds (applicability domain, feature
 * selection, ...) add a `kind` without changing the others.
 */
export type AlgorithmDefinition =
  | (Common & { kind: 'descriptors'; descriptors: DescriptorSet })
  | (Common & { kind: 'learner'; learner: Learner })
  | (Common & { kind: 'domain'; method: DomainMethod })
  | (Common & { kind: 'selection'; method: SelectionMethod })
  | (Common & { kind: 'cleanup'; method: CleanupMethod })
  | (Common & { kind: 'standardisation' })
  | (Common & { kind: 'super' })
  | (Common & { kind: 'mining' })
  | (Common & { kind: 'import' });

/** What the catalogue says of every algorithm, whatever it does. */
export interface AlgorithmInfo {
  /** The id under /algorithm/. */
  id: string;
  title: string;
  description: string;
  /** Local names in the ota: ontology. */
  types: string[];
  /** owl:sameAs: an entry of the Blue Obelisk algorithm ontology, when one exists. */
  sameAs?: string;
  parameters: ParameterSpec[];
}

type Common = AlgorithmInfo;

/** The entry of imported models (`/algorithm/onnx-import`): the algorithm they name, and their learner id in a model's content. */
export const ONNX_IMPORT_ID = 'onnx-import';

/** When the catalogue's current descriptions were written (dc:date of every entry). */
export const CATALOGUE_DATE = '2026-11-22T00:00:00Z';
export const CREATOR = 'ToxGraph';

export function catalogue(): AlgorithmDefinition[] {
  return [
    ...DESCRIPTOR_SETS.map(
      (d): AlgorithmDefinition => ({ kind: 'descriptors', descriptors: d, id: d.id, title: d.title, description: d.description, types: d.types, sameAs: d.sameAs, parameters: d.parameters }),
    ),
    ...LEARNERS.map(
      (l): AlgorithmDefinition => ({
        kind: 'learner',
        learner: l,
        id: l.id,
        title: l.title,
        description: l.description,
        types: ['Supervised', ...l.types.filter((t) => t !== 'Supervised')],
        sameAs: l.sameAs,
        // every supervised learner can be calibrated (conformal.ts)
        parameters: [...l.parameters, ...CONFORMAL_PARAMETERS],
      }),
    ),
    ...DOMAIN_METHODS.map((m): AlgorithmDefinition => ({ kind: 'domain', method: m, id: m.id, title: m.title, description: m.description, types: ['ApplicabilityDomain'], parameters: m.parameters })),
    {
      kind: 'super',
      id: 'superalgorithm',
      title: 'Superalgorithm: descriptors, feature selection, learning and applicability domain in one supermodel',
      description:
        'Chains other algorithms of this service (spec 4.4): structure_standardisation (standardise-structures, optional: the chain learns from QSAR-ready parents, and the supermodel predicts every structure, a salt or a drawn tautomer, from its parent), feature_calculation (descriptor algorithms, one or more), feature_selection (one or more), model_learning (one learning algorithm, required), applicability_domain (at most one); feature_uris[] chooses the starting features; parameter values go to a step as "{URL-encoded algorithm URI or id} {name} {value}". Answers a supermodel, which predicts datasets of bare structures or one compound_uri: it calculates the descriptors itself and answers the applicability-domain estimates with the predictions.',
      types: ['Supervised'],
      parameters: [],
    },
    { kind: 'mining', ...FREQUENT_SUBSTRUCTURES },
    {
      kind: 'import',
      id: ONNX_IMPORT_ID,
      title: 'ONNX model import: a model trained elsewhere (scikit-learn, R, PyTorch), hosted here',
      description:
        "Not run on a dataset: POST the ONNX file to /model (multipart/form-data: file; independent_features, feature URIs repeated in the order of the input columns; prediction_feature; optional title, training_dataset, algorithm_description). The file is checked (one input of [rows, features] floats or doubles, the width, a classifier's labels against the prediction feature's values) and run by onnxruntime; the model it makes predicts, validates and is documented as every other model here.",
      types: ['Supervised'],
      parameters: [],
    },
    ...CLEANUP_METHODS.map((m): AlgorithmDefinition => ({ kind: 'cleanup', method: m, id: m.id, title: m.title, description: m.description, types: ['DataCleanup'], parameters: m.parameters })),
    { kind: 'standardisation', ...STRUCTURE_STANDARDISATION },
    ...SELECTION_METHODS.map(
      (m): AlgorithmDefinition => ({ kind: 'selection', method: m, id: m.id, title: m.title, description: m.description, types: ['FeatureSelection'], parameters: m.parameters }),
    ),
  ];
}

export function algorithmById(id: string): AlgorithmDefinition | undefined {
  return catalogue().find((a) => a.id === id);
}

/** Parameters every invocation takes besides the algorithm's own (listed as mandatory). */
function invocationParameters(def: AlgorithmDefinition): { name: string; description: string }[] {
  const out = [{ name: 'dataset_uri', description: 'URI of the dataset to work on (it may select features with a feature_uris[] query)' }];
  if (def.kind === 'learner')
    out.push({
      name: 'prediction_feature',
      description: `URI of the feature to predict (${def.learner.forTarget ? 'numeric: values, or nominal: classes' : def.learner.task === 'regression' ? 'numeric' : 'nominal'})`,
    });
  if (def.kind === 'super') out.push({ name: 'prediction_feature', description: 'URI of the feature to predict' }, { name: 'model_learning', description: 'URI (or id) of the learning algorithm' });
  if (def.kind === 'selection' && def.method.supervised) out.push({ name: 'prediction_feature', description: 'URI of the target feature the features are ranked against (numeric or nominal)' });
  return out;
}

export function typedValue(spec: ParameterSpec, value: ParamValue): RDF.Literal {
  switch (spec.type) {
    case 'integer':
      return literal(String(value), xsd('int'));
    case 'number':
      return literal(String(value), xsd('double'));
    case 'boolean':
      return literal(String(value), xsd('boolean'));
    default:
      return literal(String(value), xsd('string'));
  }
}

/**
 * The RDF of an algorithm, or of an algorithm instance when `values` are given (the parameter
 * values used, spec 2.4), with one `ot:Parameter` node per parameter under its URI.
 */
export function algorithmQuads(def: AlgorithmDefinition, uri: string, instance?: { of: string; values: Record<string, ParamValue>; date: string }): RDF.Quad[] {
  const a = df.namedNode(uri);
  const quads: RDF.Quad[] = [
    df.quad(a, rdf('type'), ot('Algorithm')),
    ...def.types.map((t) => df.quad(a, rdf('type'), ota(t))),
    df.quad(a, dc('identifier'), literal(uri, xsd('anyURI'))),
    df.quad(a, dc('title'), literal(def.title)),
    df.quad(a, dc('description'), literal(def.description)),
    df.quad(a, dc('creator'), literal(CREATOR)),
    df.quad(a, dc('date'), literal(instance?.date ?? CATALOGUE_DATE, xsd('dateTime'))),
  ];
  if (def.sameAs) quads.push(df.quad(a, owl('sameAs'), df.namedNode(def.sameAs)));
  if (instance) quads.push(df.quad(a, ot('instanceOf'), df.namedNode(instance.of)));
  const param = (name: string, description: string, scope: string, value?: RDF.Literal) => {
    const p = df.namedNode(`${uri}#parameter-${encodeURIComponent(name)}`);
    quads.push(
      df.quad(a, ot('parameters'), p),
      df.quad(p, rdf('type'), ot('Parameter')),
      df.quad(p, dc('title'), literal(name)),
      df.quad(p, dc('description'), literal(description)),
      df.quad(p, ot('paramScope'), literal(scope)),
    );
    if (value) quads.push(df.quad(p, ot('paramValue'), value));
  };
  if (!instance) for (const p of invocationParameters(def)) param(p.name, p.description, 'mandatory');
  // a learner's model carries an applicability domain (training.ts)
  if (!instance && def.kind === 'learner') param(DOMAIN_OPTION.name, DOMAIN_OPTION.description, 'optional', typedValue(DOMAIN_OPTION, DOMAIN_OPTION.default));
  if (!instance && def.kind === 'domain') {
    param('prediction_feature', 'The endpoint: never a feature of the domain (by default the domain uses the descriptors calculated here, not the dataset’s own values)', 'optional');
    param('model_uri', 'The domain of this model: fitted on its independent variables (dataset_uri: its training dataset, or another dataset holding them)', 'optional');
  }
  for (const spec of def.parameters) param(spec.name, spec.description, 'optional', typedValue(spec, instance ? instance.values[spec.name] : spec.default));
  return quads;
}

/** What an algorithm instance's graph says: the algorithm it is an instance of, and the parameter values used (as text). */
export function instanceFrom(quads: RDF.Quad[], uri: string): { of?: string; values: Record<string, string> } {
  const own = quads.filter((q) => q.subject.value === uri);
  const nodeValue = (node: RDF.Term, p: RDF.NamedNode) => quads.find((q) => q.subject.equals(node) && q.predicate.equals(p))?.object.value;
  const values: Record<string, string> = {};
  for (const p of own.filter((q) => q.predicate.equals(ot('parameters')))) {
    const name = nodeValue(p.object, dc('title'));
    const value = nodeValue(p.object, ot('paramValue'));
    if (name !== undefined && value !== undefined) values[name] = value;
  }
  return { of: own.find((q) => q.predicate.equals(ot('instanceOf')))?.object.value, values };
}
