import type { Config } from '../core/config.ts';
import { badGateway, HttpError } from '../core/errors.ts';
import { outboundFetch } from '../outbound/outbound-fetch.ts';

const POLL_MS = 500;
/** How long a remote dataset service may take to store a result (its task included). */
const REMOTE_TASK_LIMIT_MS = 10 * 60_000;

/**
 * Store a dataset at another OpenTox dataset service (spec 4.4, 4.11 `dataset_service`): POST
 * it as CSV (structures as SMILES, the columns titled by our feature titles: the format every
 * dataset service reads), with the caller's token as the `subjectid` header, and follow the
 * task it may answer. The URL (and the task URL it answers) must pass the outbound policy
 * of registration (http(s), the allow-list, no internal addresses: 400). Any other failure is a 502.
 */
export async function postToDatasetService(service: string, csv: string, config: Config, subjectid?: string): Promise<string> {
  const headers = { Accept: 'text/uri-list', ...(subjectid ? { subjectid } : {}) };
  const call = async (target: string, method: 'GET' | 'POST', body?: string): Promise<{ status: number; text: string }> => {
    try {
      const r = await outboundFetch(target, { method, body, headers: body === undefined ? headers : { ...headers, 'Content-Type': 'text/csv' } }, config);
      return { status: r.status, text: r.text.trim() };
    } catch (e) {
      if (e instanceof HttpError && e.status === 400) throw e;
      throw badGateway(`dataset service ${service} could not be reached: ${(e as Error).message}`);
    }
  };
  const posted = await call(service, 'POST', csv);
  if (posted.status === 200 || posted.status === 201) return firstUri(posted.text, service);
  if (posted.status !== 202) throw badGateway(`dataset service ${service} answered HTTP ${posted.status}: ${posted.text.slice(0, 200)}`);
  const task = firstUri(posted.text, service);
  const deadline = Date.now() + REMOTE_TASK_LIMIT_MS;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const t = await call(task, 'GET');
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
