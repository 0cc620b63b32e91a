import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Logger } from '../core/log.ts';
import { registerTools } from './mcp-tools.ts';
import { ServiceError, type ServiceClient } from './service-client.ts';

/** The collections an agent may list and read as MCP resources (JSON-LD of each member). */
const RESOURCE_COLLECTIONS = [
  { name: 'models', collection: 'model', description: 'Models the caller may use' },
  { name: 'datasets', collection: 'dataset', description: 'Datasets the caller may read (not the intermediate ones of validations)' },
  { name: 'validations', collection: 'validation', description: 'Validations the caller may read' },
  { name: 'qmrfs', collection: 'reach_report/qmrf', description: 'QMRF reports of models' },
  { name: 'qprfs', collection: 'reach_report/qprf', description: 'QPRF reports of predictions' },
] as const;

const ASSESS_SUBSTANCE = (substance: string) => `Assess the substance ${substance} with this ToxGraph service, step by step, and cite the URI of every resource you use.

1. Identity: find it with search_compounds (by name or identifier, or by SMILES). If it is not there, work from its SMILES. Read the compound with get_resource.
2. Suitable models: list_models. For each endpoint that matters (for example mutagenicity, aquatic toxicity), choose the models with the best validation statistics; say what each model predicts and how it was validated.
3. Predictions: call predict for each chosen model. Report the value with its confidence, or its conformal interval or prediction set and confidence level where the model has one.
4. Applicability domain: report every verdict; a prediction outside the domain is not reliable, so say so plainly.
5. Evidence for a QPRF: predict gives the most similar training structures with their measured and predicted values; compare them with the prediction. make_qprf writes the QPRF of the prediction you rely on. Give its URI.
6. Conclude: what is predicted, how sure, and what is missing (endpoints without a suitable model, predictions outside the domain).`;

/** The MCP server of one request (the endpoint is stateless): every tool, resource and prompt on one caller's view of the service. */
export function createMcpServer(client: ServiceClient, log: Logger): McpServer {
  const server = new McpServer(
    { name: 'toxgraph', title: 'ToxGraph', version: '0.1.0' },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: 'Chemical structures, datasets, validated QSAR models with applicability domains, predictions, QPRF reports and SPARQL over the same data, with the rights of the caller’s token.',
    },
  );
  const onInternal = (e: unknown) => log.error('MCP tool failed', { error: String((e as Error)?.stack ?? e) });
  registerTools(server, client, onInternal);
  for (const r of RESOURCE_COLLECTIONS) {
    server.registerResource(
      r.name,
      new ResourceTemplate(`${client.baseUrl}/${r.collection}/{id}`, {
        list: async () => {
          const listed = await client.request('GET', `/${r.collection}`);
          if (listed.status !== 200) return { resources: [] };
          const uris = listed.text.split(/\r?\n/).filter((u) => u.trim());
          return { resources: uris.map((uri) => ({ uri, name: uri.slice(client.baseUrl.length + 1), mimeType: 'application/ld+json' })) };
        },
      }),
      { description: r.description, mimeType: 'application/ld+json' },
      async (uri) => {
        const got = await client.request('GET', uri.href, { accept: 'application/ld+json' });
        if (got.status !== 200) throw new ServiceError(got.status, `${uri.href}: ${got.status}`);
        return { contents: [{ uri: uri.href, mimeType: 'application/ld+json', text: got.text }] };
      },
    );
  }
  server.registerPrompt(
    'assess_substance',
    {
      title: 'Assess a substance',
      description: 'Identity, predictions from every suitable model, applicability domain, and the evidence that goes into a QPRF',
      argsSchema: { substance: z.string().min(1).max(4000).describe('A name, CAS number or SMILES') },
    },
    ({ substance }) => ({ messages: [{ role: 'user', content: { type: 'text', text: ASSESS_SUBSTANCE(substance) } }] }),
  );
  return server;
}
