import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncIterator, UnionIterator, wrap } from 'asynciterator';
import { PromisedIterator } from '../../src/store/readable-quadstore.ts';

/** A source that gets its items in batches, like quadstore's LevelDB reader: readable while it holds some. */
class Batches extends AsyncIterator<number> {
  private readonly items: number[] = [];
  private finished = false;
  constructor() {
    super();
    this.readable = false;
  }
  add(...items: number[]): void {
    this.items.push(...items);
    this.readable = true;
  }
  /** No more batches: ends once its items are read. */
  finish(): void {
    this.finished = true;
    if (!this.items.length) this.close();
  }
  override read(): number | null {
    const item = this.items.shift() ?? null;
    if (item === null) this.readable = false;
    if (this.finished && !this.items.length) this.close();
    return item;
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The race that stalled full-store SPARQL scans: the reader drains the source between the
 * source's `readable` and its event, reads the wrapper once more on that event (nothing there),
 * and the source's next batch must still wake it.
 */
async function readerWokenAfterARaceDrain(wrapper: (source: Batches) => AsyncIterator<number>): Promise<boolean> {
  const source = new Batches();
  const it = wrapper(source);
  await tick();
  source.add(1);
  assert.equal(it.read(), 1);
  assert.equal(it.read(), null);
  await tick(); // the source's late `readable` event
  assert.equal(it.read(), null);
  let woken = false;
  it.on('readable', () => {
    woken = true;
  });
  source.add(2);
  await tick();
  await tick();
  return woken;
}

test("asynciterator's WrappingIterator loses the source's next readable event after that race (why PromisedIterator exists)", async () => {
  assert.equal(await readerWokenAfterARaceDrain((source) => wrap(Promise.resolve(source))), false);
});

test('PromisedIterator: readable exactly when its source is, so its reader is woken by the next batch', async () => {
  assert.equal(await readerWokenAfterARaceDrain((source) => new PromisedIterator(Promise.resolve(source))), true);
});

test('PromisedIterator under a UnionIterator reads every batch of a slow source to its end', async () => {
  const slow = new Batches();
  const other = new Batches();
  const union = new UnionIterator<number>([new PromisedIterator(Promise.resolve(slow)), new PromisedIterator(Promise.resolve(other))], { autoStart: false, maxBufferSize: 4 });
  const seen = union.toArray();
  other.add(-1);
  other.finish();
  for (let batch = 0; batch < 20; batch++) {
    slow.add(...Array.from({ length: 7 }, (_, i) => batch * 7 + i));
    await tick();
  }
  slow.finish();
  const items = await seen;
  assert.deepEqual(
    items.filter((x) => x !== -1),
    Array.from({ length: 140 }, (_, i) => i),
  );
  assert.ok(items.includes(-1));
});

test('PromisedIterator: a failed promise is an error; destroying it destroys the source; an ended source ends it', async () => {
  const failed = new PromisedIterator<number>(Promise.reject(new Error('no store')));
  const error = await new Promise<Error>((resolve) => failed.on('error', resolve));
  assert.equal(error.message, 'no store');
  const source = new Batches();
  const it = new PromisedIterator(Promise.resolve(source));
  await tick();
  it.destroy();
  assert.ok(source.done);
  const ended = new Batches();
  ended.add(5);
  const all = new PromisedIterator(Promise.resolve(ended)).toArray();
  await tick();
  ended.finish();
  assert.deepEqual(await all, [5]);
});

test('PromisedIterator: destroyed with a cause, or failing with its source, it reports the error once and lets the source go', async () => {
  const source = new Batches();
  const it = new PromisedIterator(Promise.resolve(source));
  await tick();
  const errors: Error[] = [];
  it.on('error', (e: Error) => errors.push(e));
  it.destroy(new Error('time limit'));
  await tick();
  assert.deepEqual(
    errors.map((e) => e.message),
    ['time limit'],
  );
  assert.ok(source.done, 'the source is destroyed');
  assert.equal(source.listenerCount('readable'), 0, 'and no longer listened to');
  const failing = new Batches();
  const other = new PromisedIterator(Promise.resolve(failing));
  await tick();
  const seen: Error[] = [];
  other.on('error', (e: Error) => seen.push(e));
  failing.emit('error', new Error('disk gone'));
  await tick();
  assert.deepEqual(
    seen.map((e) => e.message),
    ['disk gone'],
  );
  assert.ok(other.done);
});
