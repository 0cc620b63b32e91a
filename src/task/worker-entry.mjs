// Worker thread entry (see worker-pool.ts). Plain JavaScript so that it starts without a
// loader; it then registers tsx so that the TypeScript modules it is asked to run can load.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();

parentPort.on('message', async (m) => {
  try {
    const mod = await import(m.module);
    const value = await mod[m.fn](...m.args);
    parentPort.postMessage({ id: m.id, ok: true, value });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: e?.message ?? String(e) });
  }
});
