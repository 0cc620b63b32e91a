import { readFileSync } from 'node:fs';

/** This server's version (package.json): in QMRFs' software catalogue and in exported models. */
export const SERVICE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
