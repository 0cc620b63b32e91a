import { escapeXml } from '../rdf/xml-text.ts';
import { learnerById } from '../learning/learners.ts';
import { logisticRegression, logitForm } from '../learning/logistic-regression.ts';
import { decodeTree, type Tree } from '../learning/histogram-tree.ts';
import type { ForestState } from '../learning/random-forest.ts';
import { isSvm, svmForm, svmFormMissing, type SvmForm } from '../learning/svm.ts';
import type { StoredModel } from './model-codec.ts';

/**
 * Models as PMML 4.4, for tools that score PMML: linear regression (`RegressionModel`), logistic
 * regression (`RegressionModel`, logit or softmax), random forests (`MiningModel` of
 * `TreeModel` segments, averaged) and SVMs (`SupportVectorMachineModel`). Only models whose
 * variables are all numeric columns have a PMML form here. Fields are named by the feature URIs
 * (their titles as display names), as the dataset columns are; a missing value is replaced by
 * its training mean, as the server does. A forest's document is megabytes: it is written on the
 * worker pool (this module's `modelPmml`).
 */
export const PMML_MODULE = import.meta.url;
export const PMML_MEDIA_TYPES = ['text/xml', 'application/xml'];

const attr = (s: string | number) => escapeXml(String(s));

/** Why a model has no PMML form here (undefined: it has one). */
export function pmmlUnsupported(model: StoredModel): string | undefined {
  if (model.task !== 'regression' && model.task !== 'classification') return `model ${model.uri} does not predict (an applicability-domain or filtering model)`;
  if (model.encodings.some((e) => e.kind !== 'numeric')) return `model ${model.uri} has fingerprint variables: only models of numeric variables have a PMML form here`;
  const id = model.learnerId;
  if (model.task === 'regression' && learnerById(id)?.linearForm?.(model.state)) return undefined;
  if (id === logisticRegression.id || id.startsWith('random-forest')) return undefined;
  if (isSvm(id)) {
    const missing = svmFormMissing(model.state);
    return missing && `the SVM of model ${model.uri} has no PMML form here: ${missing}`;
  }
  return `the learner of model ${model.uri} (${id}) has no PMML form here: linear and logistic regression, random forests and SVMs (two classes at most) do`;
}

/** What a document says of a feature: its title (the display name) and the descriptor algorithm that calculates it. */
export interface PmmlFeature {
  title?: string;
  algorithm?: string;
}

/**
 * Worker-pool entry: a model's PMML document (`pmmlUnsupported` said it has one). Each variable
 * names the descriptor algorithm instance that calculates it (an `Extension`), so that another
 * tool knows which inputs to compute.
 */
export function modelPmml(model: StoredModel, features: Map<string, PmmlFeature>): string {
  const fields = model.encodings.map((e) => e.feature);
  const classification = model.task === 'classification';
  const titleOf = (uri: string) => features.get(uri)?.title ?? uri;
  const dataField = (uri: string) => {
    const algorithm = features.get(uri)?.algorithm;
    const head = `<DataField name="${attr(uri)}" displayName="${attr(titleOf(uri))}" optype="continuous" dataType="double"`;
    return algorithm ? `${head}><Extension name="descriptorAlgorithm" value="${attr(algorithm)}"/></DataField>` : `${head}/>`;
  };
  const target = classification
    ? `<DataField name="${attr(model.dependent)}" displayName="${attr(titleOf(model.dependent))}" optype="categorical" dataType="string">${model.classes.map((c) => `<Value value="${attr(c)}"/>`).join('')}</DataField>`
    : dataField(model.dependent);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4">',
    `  <Header description="${attr(model.title)}"><Application name="ToxGraph"/></Header>`,
    `  <DataDictionary numberOfFields="${fields.length + 1}">`,
    ...fields.map((f) => `    ${dataField(f)}`),
    `    ${target}`,
    '  </DataDictionary>',
    ...modelElement(model),
    '</PMML>',
    '',
  ].join('\n');
}

function modelElement(model: StoredModel): string[] {
  const id = model.learnerId;
  if (id.startsWith('random-forest')) return forestModel(model);
  if (isSvm(id)) return svmModel(model, svmForm(model.state)!);
  if (id === logisticRegression.id) return logisticModel(model);
  const form = learnerById(id)!.linearForm!(model.state)!;
  return [
    `  <RegressionModel modelName="${attr(model.uri)}" functionName="regression" algorithmName="${attr(model.algorithm)}">`,
    ...miningSchema(model),
    `    <RegressionTable intercept="${form.intercept}">`,
    ...model.encodings.map((e, i) => `      <NumericPredictor name="${attr(e.feature)}" exponent="1" coefficient="${form.coefficients[i]}"/>`),
    '    </RegressionTable>',
    '  </RegressionModel>',
  ];
}

/** The model's fields: its variables (a missing value replaced by the training mean) and its target. */
function miningSchema(model: StoredModel, indent = '    ', replace = true): string[] {
  return [
    `${indent}<MiningSchema>`,
    ...model.encodings.map(
      (e) => `${indent}  <MiningField name="${attr(e.feature)}" usageType="active"${replace && e.kind === 'numeric' && Number.isFinite(e.mean) ? ` missingValueReplacement="${e.mean}"` : ''}/>`,
    ),
    `${indent}  <MiningField name="${attr(model.dependent)}" usageType="target"/>`,
    `${indent}</MiningSchema>`,
  ];
}

/** A classifier's outputs: the predicted class and the probability of each class. */
function classOutputs(model: StoredModel): string[] {
  return [
    '    <Output>',
    '      <OutputField name="predicted" optype="categorical" dataType="string" feature="predictedValue"/>',
    ...model.classes.map((c) => `      <OutputField name="probability(${attr(c)})" optype="continuous" dataType="double" feature="probability" value="${attr(c)}"/>`),
    '    </Output>',
  ];
}

/** Logistic regression: one table of the logit of the second class (two classes: its probability is the logit's sigmoid, the first class's the rest), or one per class and the softmax. */
function logisticModel(model: StoredModel): string[] {
  const { intercepts, coefficients } = logitForm(model.state, model.encodings.length);
  const table = (intercept: number, weights: number[] | undefined, category: string) => [
    `    <RegressionTable intercept="${intercept}" targetCategory="${attr(category)}">`,
    ...(weights ?? []).map((w, i) => `      <NumericPredictor name="${attr(model.encodings[i].feature)}" exponent="1" coefficient="${w}"/>`),
    '    </RegressionTable>',
  ];
  const binary = intercepts.length === 1;
  return [
    `  <RegressionModel modelName="${attr(model.uri)}" functionName="classification" algorithmName="${attr(model.algorithm)}" normalizationMethod="${binary ? 'logit' : 'softmax'}">`,
    ...miningSchema(model),
    ...classOutputs(model),
    ...(binary ? [...table(intercepts[0], coefficients[0], model.classes[1]), ...table(0, undefined, model.classes[0])] : model.classes.flatMap((c, k) => table(intercepts[k], coefficients[k], c))),
    '  </RegressionModel>',
  ];
}

/** A forest: its trees as segments whose scores (regression) or class distributions (classification) are averaged. */
function forestModel(model: StoredModel): string[] {
  const state = model.state as ForestState;
  const functionName = model.task === 'classification' ? 'classification' : 'regression';
  const lines = [
    `  <MiningModel modelName="${attr(model.uri)}" functionName="${functionName}" algorithmName="${attr(model.algorithm)}">`,
    ...miningSchema(model),
    ...(functionName === 'classification' ? classOutputs(model) : []),
    '    <Segmentation multipleModelMethod="average">',
  ];
  state.trees.forEach((encoded, t) => {
    const tree = decodeTree(encoded);
    lines.push(
      `      <Segment id="${t + 1}">`,
      '        <True/>',
      `        <TreeModel functionName="${functionName}" splitCharacteristic="binarySplit" missingValueStrategy="none" noTrueChildStrategy="returnNullPrediction">`,
      ...miningSchema(model, '          ', false),
    );
    treeNodes(model, tree, 0, '<True/>', '          ', lines);
    lines.push('        </TreeModel>', '      </Segment>');
  });
  lines.push('    </Segmentation>', '  </MiningModel>');
  return lines;
}

/** A tree's node and its subtree: a row goes to the first child when its value is ≤ the threshold (as the server's trees), else to the second. */
function treeNodes(model: StoredModel, tree: Tree, n: number, predicate: string, indent: string, lines: string[]): void {
  if (tree.feature[n] < 0) {
    const offset = tree.left[n];
    if (model.task === 'regression') {
      lines.push(`${indent}<Node id="${n}" score="${tree.values[offset]}">${predicate}</Node>`);
      return;
    }
    const p = Array.from({ length: tree.width }, (_, k) => tree.values[offset + k]);
    const best = p.indexOf(Math.max(...p));
    lines.push(
      `${indent}<Node id="${n}" score="${attr(model.classes[best])}">${predicate}`,
      ...p.map((v, k) => `${indent}  <ScoreDistribution value="${attr(model.classes[k])}" recordCount="${v}" probability="${v}"/>`),
      `${indent}</Node>`,
    );
    return;
  }
  const field = attr(model.encodings[tree.feature[n]].feature);
  lines.push(`${indent}<Node id="${n}">${predicate}`);
  treeNodes(model, tree, tree.left[n], `<SimplePredicate field="${field}" operator="lessOrEqual" value="${tree.threshold[n]}"/>`, `${indent}  `, lines);
  treeNodes(model, tree, tree.right[n], '<True/>', `${indent}  `, lines);
  lines.push(`${indent}</Node>`);
}

/**
 * An SVM as libsvm predicts it: the varying columns standardised (derived fields), the kernel,
 * the support vectors and coefficients, and the bias −rho. Regression: the decision rescaled to
 * the target (meanY + sdY · decision). Two classes: the first class of libsvm's (its decision is
 * positive) where Platt's probability of it is above one half, that is where the decision is
 * beyond −B/A; PMML has no Platt probabilities, so a PMML scorer gives the class, not them.
 */
function svmModel(model: StoredModel, form: SvmForm): string[] {
  const z = (j: number) => `z.${j + 1}`;
  const p = form.scaler.columns.length;
  const kernel = {
    linear: '<LinearKernelType/>',
    polynomial: `<PolynomialKernelType gamma="${form.gamma}" coef0="${form.coef0}" degree="${form.degree}"/>`,
    rbf: `<RadialBasisKernelType gamma="${form.gamma}"/>`,
    sigmoid: `<SigmoidKernelType gamma="${form.gamma}" coef0="${form.coef0}"/>`,
  }[form.kernel];
  let classes = '';
  let threshold = 0;
  if (form.kind === 'svc') {
    const first = model.classes[form.firstLabel!];
    const second = model.classes[1 - form.firstLabel!];
    // P(first) > 1/2 ⟺ A · decision + B < 0: below the threshold −B/A is the first class when A > 0, the second when A < 0;
    // with A = 0 the probability is the same for every row (first where B < 0)
    const constant = form.probB! < 0 ? first : second;
    threshold = form.probA === 0 ? 0 : -form.probB! / form.probA!;
    const [below, above] = form.probA === 0 ? [constant, constant] : form.probA! > 0 ? [first, second] : [second, first];
    classes = ` targetCategory="${attr(below)}" alternateTargetCategory="${attr(above)}"`;
  }
  const indices = Array.from({ length: p }, (_, j) => j + 1).join(' ');
  return [
    `  <SupportVectorMachineModel modelName="${attr(model.uri)}" functionName="${form.kind === 'svr' ? 'regression' : 'classification'}" algorithmName="${attr(model.algorithm)}" classificationMethod="OneAgainstOne" threshold="${threshold}">`,
    ...miningSchema(model),
    ...(form.kind === 'svr' ? [`    <Targets><Target field="${attr(model.dependent)}" rescaleFactor="${form.sdY}" rescaleConstant="${form.meanY}"/></Targets>`] : []),
    '    <LocalTransformations>',
    ...form.scaler.columns.map(
      (c, j) =>
        `      <DerivedField name="${z(j)}" optype="continuous" dataType="double"><Apply function="/"><Apply function="-"><FieldRef field="${attr(model.encodings[c].feature)}"/><Constant dataType="double">${form.scaler.mean[j]}</Constant></Apply><Constant dataType="double">${form.scaler.sd[j]}</Constant></Apply></DerivedField>`,
    ),
    '    </LocalTransformations>',
    `    ${kernel}`,
    `    <VectorDictionary numberOfVectors="${form.supportVectors.length}">`,
    `      <VectorFields numberOfFields="${p}">${form.scaler.columns.map((_, j) => `<FieldRef field="${z(j)}"/>`).join('')}</VectorFields>`,
    ...form.supportVectors.map(
      (sv, i) => `      <VectorInstance id="${i + 1}"><REAL-SparseArray n="${p}"><Indices>${indices}</Indices><REAL-Entries>${sv.join(' ')}</REAL-Entries></REAL-SparseArray></VectorInstance>`,
    ),
    '    </VectorDictionary>',
    `    <SupportVectorMachine${classes}>`,
    `      <SupportVectors numberOfAttributes="${p}" numberOfSupportVectors="${form.supportVectors.length}">${form.supportVectors.map((_, i) => `<SupportVector vectorId="${i + 1}"/>`).join('')}</SupportVectors>`,
    `      <Coefficients numberOfCoefficients="${form.coefficients.length}" absoluteValue="${-form.rho}">${form.coefficients.map((c) => `<Coefficient value="${c}"/>`).join('')}</Coefficients>`,
    '    </SupportVectorMachine>',
    '  </SupportVectorMachineModel>',
  ];
}
