import { escapeHtml } from '../rdf/html.ts';
import type { StoredModel } from './model-codec.ts';

/**
 * A linear regression model as PMML 4.4 (`RegressionModel`), for tools that score PMML. Only
 * models whose variables are all numeric columns have a PMML form here; the fields are named
 * by the feature URIs (with their titles as display names), as the dataset columns are.
 */
export function regressionPmml(model: StoredModel, form: { intercept: number; coefficients: number[] }, titles: Map<string, string>): string | undefined {
  if (model.task !== 'regression' || model.encodings.some((e) => e.kind !== 'numeric')) return undefined;
  const attr = (s: string) => escapeHtml(s);
  const fields = model.encodings.map((e) => e.feature);
  const field = (uri: string) => `<DataField name="${attr(uri)}" displayName="${attr(titles.get(uri) ?? uri)}" optype="continuous" dataType="double"/>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<PMML xmlns="http://www.dmg.org/PMML-4_4" version="4.4">',
    `  <Header description="${attr(model.title)}"><Application name="ToxGraph"/></Header>`,
    `  <DataDictionary numberOfFields="${fields.length + 1}">`,
    ...fields.map((f) => `    ${field(f)}`),
    `    ${field(model.dependent)}`,
    '  </DataDictionary>',
    `  <RegressionModel modelName="${attr(model.uri)}" functionName="regression" algorithmName="${attr(model.algorithm)}">`,
    '    <MiningSchema>',
    ...model.encodings.map((e) => `      <MiningField name="${attr(e.feature)}" usageType="active" missingValueReplacement="${e.kind === 'numeric' ? e.mean : 0}"/>`),
    `      <MiningField name="${attr(model.dependent)}" usageType="target"/>`,
    '    </MiningSchema>',
    `    <RegressionTable intercept="${form.intercept}">`,
    ...fields.map((f, i) => `      <NumericPredictor name="${attr(f)}" exponent="1" coefficient="${form.coefficients[i]}"/>`),
    '    </RegressionTable>',
    '  </RegressionModel>',
    '</PMML>',
    '',
  ].join('\n');
}
