// Marble tests of the polling timing: no stacking, retries inside, failures skip a cycle, the stream lives.
import { describe, expect, it } from '@jest/globals';
import { TestScheduler } from 'rxjs/testing';
import { Subject } from 'rxjs';
import { inOrder, poll, type Stamped } from '../../../src/data/poll.js';

function scheduler() {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('inOrder', () => {
  it('drops an answer of a poll cycle before the last one let through (duplicated, or overtaken), for each subscriber on its own', () => {
    const src = new Subject<Stamped<string>>();
    const a: string[] = [];
    const b: string[] = [];
    const ordered = src.pipe(inOrder());
    ordered.subscribe((s) => a.push(s.value));
    src.next({ value: 'fresh', atMs: 10 });
    src.next({ value: 'stale', atMs: 5 });
    src.next({ value: 'same instant', atMs: 10 });
    ordered.subscribe((s) => b.push(s.value));
    src.next({ value: 'older than a saw', atMs: 7 });
    src.next({ value: 'newer', atMs: 11 });
    expect(a).toEqual(['fresh', 'same instant', 'newer']);
    expect(b).toEqual(['older than a saw', 'newer']);
  });

  it("goes by the poll's cycle where it is stamped: a wall clock stepped back drops nothing", () => {
    const src = new Subject<Stamped<string>>();
    const seen: string[] = [];
    src.pipe(inOrder()).subscribe((s) => seen.push(s.value));
    src.next({ value: 'first', atMs: 10_000, seq: 1 });
    src.next({ value: 'after the clock stepped back', atMs: 4_000, seq: 2 });
    src.next({ value: 'a stale copy of the first', atMs: 10_000, seq: 1 });
    expect(seen).toEqual(['first', 'after the clock stepped back']);
  });
});

describe('poll', () => {
  it('polls every period and stamps each value', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const clock = { now: () => ts.now() };
      const src = poll(() => cold('-a|', { a: 1 }), { periodMs: 5, retries: 0, retryDelayMs: 1, clock, scheduler: ts });
      expectObservable(src, '^ 12ms !').toBe('-a----b----c', { a: { value: 1, atMs: 1, seq: 0 }, b: { value: 1, atMs: 6, seq: 1 }, c: { value: 1, atMs: 11, seq: 2 } });
    });
  });

  it('a slow poll is not stacked: ticks during it are dropped (exhaustMap)', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const clock = { now: () => ts.now() };
      let n = 0;
      const src = poll(() => cold('-------a|', { a: ++n }), { periodMs: 3, retries: 0, retryDelayMs: 1, clock, scheduler: ts });
      // fetches start at 0 and 9 (the ticks at 3 and 6 come while the first is running)
      expectObservable(src, '^ 17ms !').toBe('-------a--------b', { a: { value: 1, atMs: 7, seq: 0 }, b: { value: 2, atMs: 16, seq: 3 } });
    });
  });

  it('retries a failed fetch with backoff, then skips the cycle and keeps polling', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const clock = { now: () => ts.now() };
      const errors: unknown[] = [];
      let calls = 0;
      const src = poll(() => (++calls <= 3 ? cold('#', undefined, new Error(`fail ${calls}`)) : cold('a|', { a: calls })), {
        periodMs: 10, retries: 2, retryDelayMs: 1, clock, scheduler: ts, onError: (e) => errors.push(e),
      });
      // cycle at 0: fail, retry at 1 (fail), retry at 3 (fail) -> skipped; cycle at 10 succeeds
      expectObservable(src, '^ 15ms !').toBe('----------a', { a: { value: 4, atMs: 10, seq: 1 } });
      ts.flush();
      expect(errors).toHaveLength(1);
    });
  });

  it('errors that are not retryable skip the cycle at once', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      const clock = { now: () => ts.now() };
      let calls = 0;
      const src = poll(() => (++calls === 1 ? cold('#', undefined, new Error('auth')) : cold('a|', { a: calls })), {
        periodMs: 4, retries: 5, retryDelayMs: 1, clock, scheduler: ts, retryable: () => false,
      });
      expectObservable(src, '^ 6ms !').toBe('----a', { a: { value: 2, atMs: 4, seq: 1 } });
    });
  });
});
