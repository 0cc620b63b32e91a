/**
 * Long synchronous loops on the main thread (parsing thousands of structures, preparing a write
 * batch of hundreds of thousands of keys, writing a dataset of thousands of columns) call
 * `await slices.pause()` once per item: it yields to the event loop when the current slice has
 * run `sliceMs`, so requests keep being answered while the loop runs, at the cost of one clock
 * read per item.
 */
export class TimeSlices {
  private started = performance.now();

  private readonly sliceMs: number;
  constructor(sliceMs = 10) {
    this.sliceMs = sliceMs;
  }

  /** Yield when the slice is used up (cheap otherwise). */
  async pause(): Promise<void> {
    if (performance.now() - this.started < this.sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }

  /**
   * `f` of every item in order, pausing every `every` items: for loops whose items are too
   * cheap for a clock read each (the cells of a row of thousands of columns).
   */
  async map<T, U>(items: readonly T[], f: (item: T, index: number) => U, every = 256): Promise<U[]> {
    const out = new Array<U>(items.length);
    for (let i = 0; i < items.length; i++) {
      out[i] = f(items[i], i);
      if (i % every === every - 1) await this.pause();
    }
    return out;
  }
}
