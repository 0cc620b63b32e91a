// Worker thread entry (see worker-pool.ts). The TypeScript modules it is asked to run load as
// they are: Node strips their types itself.
import { parentPort, workerData } from 'node:worker_threads';
import { setPriority } from 'node:os';

// Jobs are background work: on Linux the nice value is per thread, so this thread yields the
// CPU to the main thread (requests) and to the garbage collector's helpers when cores are busy.
// A thread that requests wait for (the store's index writer: every write holds the store's
// write queue until the thread has written it) keeps the normal priority: niced, it got a
// tenth of a core beside a busy main thread, and every writer queued behind it.
if (!workerData?.foreground) {
  try {
    setPriority(10);
  } catch {
    // not allowed here: run at normal priority
  }
}

// matrices that travel as sparse rows get their dense data here (src/learning/sparse-matrix.ts)
const { withDenseMatrices } = await import('../learning/sparse-matrix.ts');
// a WebAssembly trap or a stack overflow is told apart from an ordinary error: the pool replaces this thread
const { isWasmCrash } = await import('./worker-pool.ts');

parentPort.on('message', async (m) => {
  try {
    const mod = await import(m.module);
    const value = await mod[m.fn](...withDenseMatrices(m.args));
    parentPort.postMessage({ id: m.id, ok: true, value });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: e?.message ?? String(e), crashed: isWasmCrash(e) });
  }
});
