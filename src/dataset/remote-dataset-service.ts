import type { Config } from '../config.js';
import { badGateway } from '../http/errors.js';
import { checkFetchable } from '../ontology/harvester.js';

const POLL_MS = 500;
/** How long a remote dataset service may take to store a result (its task included). */
const REMOTE_TASK_LIMIT_MS = 10 * 60_000;

/**
 * Store a dataset at another OpenTox dataset service (spec 4.4, 4.11 `dataset_service`): POST
 * it as CSV (structures as SMILES, the columns titled by our feature titles: the format every
 * dataset service reads), with the caller's token as the `subjectid` header, and follow the
 * task it may answer. The URL must be fetchable under the same rules as registration
 * (http(s), the allow-list). Any failure is a 502.
 */
export async function postToDatasetService(service: string, csv: string, config: Config, subjectid?: string): Promise<string> {
  const url = checkFetchable(service, config).href;
  const headers = { Accept: 'text/uri-list', ...(subjectid ? { subjectid } : {}) };
  const call = async (target: string, init: RequestInit): Promise<{ status: number; text: string }> => {
    try {
      const r = await fetch(target, { ...init, headers: { ...headers, ...init.headers }, redirect: 'error', signal: AbortSignal.timeout(config.harvestTimeoutMs) });
      return { status: r.status, text: (await r.text()).trim() };
    } catch (e) {
      throw badGateway(`dataset service ${service} could not be reached: ${(e as Error).message}`);
    }
  };
  const posted = await call(url, { method: 'POST', body: csv, headers: { 'Content-Type': 'text/csv' } });
  if (posted.status === 200 || posted.status === 201) return firstUri(posted.text, service);
  if (posted.status !== 202) throw badGateway(`dataset service ${service} answered HTTP ${posted.status}: ${posted.text.slice(0, 200)}`);
  const task = checkFetchable(firstUri(posted.text, service), config).href;
  const deadline = Date.now() + REMOTE_TASK_LIMIT_MS;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const t = await call(task, { method: 'GET' });
    if (t.status === 200) return firstUri(t.text, service);
    if (t.status !== 202) throw badGateway(`the task ${task} of dataset service ${service} ended with HTTP ${t.status}: ${t.text.slice(0, 200)}`);
  }
  throw badGateway(`the task ${task} of dataset service ${service} did not finish within ${REMOTE_TASK_LIMIT_MS / 1000} s`);
}

function firstUri(text: string, service: string): string {
  const uri = text.split(/\r?\n/)[0]?.trim();
  if (!uri || !/^https?:\/\//.test(uri)) throw badGateway(`dataset service ${service} did not answer a URI: ${text.slice(0, 200)}`);
  return uri;
}
