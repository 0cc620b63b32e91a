// Worker thread entry (see worker-pool.ts). Plain JavaScript so that it starts without a
// loader; it then registers tsx so that the TypeScript modules it is asked to run can load.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';
import { setPriority } from 'node:os';

// Jobs are background work: on Linux the nice value is per thread, so this thread yields the
// CPU to the main thread (requests) and to the garbage collector's helpers when cores are busy.
try {
  setPriority(10);
} catch {
  // not allowed here: run at normal priority
}

register();
// matrices that travel as sparse rows get their dense data here (src/learning/sparse-matrix.ts)
const { withDenseMatrices } = await import('../learning/sparse-matrix.ts');

parentPort.on('message', async (m) => {
  try {
    const mod = await import(m.module);
    const value = await mod[m.fn](...withDenseMatrices(m.args));
    parentPort.postMessage({ id: m.id, ok: true, value });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: e?.message ?? String(e) });
  }
});
