/**
 * Long synchronous loops on the main thread (parsing thousands of structures, preparing a write
 * batch of hundreds of thousands of keys) call `await slices.pause()` once per item: it yields to
 * the event loop when the current slice has run `sliceMs`, so requests keep being answered
 * while the loop runs, at the cost of one clock read per item.
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
}
