// Timers through the clock: a manual clock runs its timers in time order as it is moved past them (ties in the
// order set), a cancelled timer never runs, sleeps resolve; a virtual clock's setTimer sits on its heap; the
// system clock's timer fires on wall time and does not keep the process alive.
import { describe, expect, it } from '@jest/globals';
import { ManualClock, VirtualClock, nextTurn, sleepUnless, stopwatch, systemClock } from '../../../src/util/clock.js';

describe('ManualClock timers', () => {
  it('run in time order as time passes them, each at its own instant, ties in the order set', () => {
    const clock = new ManualClock(1000);
    const seen: string[] = [];
    clock.setTimer(() => seen.push(`b@${clock.now()}`), 300);
    clock.setTimer(() => seen.push(`a@${clock.now()}`), 100);
    clock.setTimer(() => seen.push(`c@${clock.now()}`), 300);
    clock.advance(99);
    expect(seen).toEqual([]);
    clock.advance(1);
    expect(seen).toEqual(['a@1100']);
    clock.set(5000);
    expect(seen).toEqual(['a@1100', 'b@1300', 'c@1300']);
    expect(clock.now()).toBe(5000);
  });

  it('a timer set by a timer runs in the same move when it falls inside it; a cancelled one never runs', () => {
    const clock = new ManualClock(0);
    const seen: number[] = [];
    clock.setTimer(() => {
      seen.push(clock.now());
      clock.setTimer(() => seen.push(clock.now()), 50);
    }, 10);
    const cancelled = clock.setTimer(() => seen.push(-1), 20);
    cancelled.cancel();
    clock.advance(100);
    expect(seen).toEqual([10, 60]);
  });

  it('sleep resolves once time reaches it', async () => {
    const clock = new ManualClock(0);
    let woke = false;
    const p = clock.sleep(500).then(() => (woke = true));
    clock.advance(499);
    await Promise.resolve();
    expect(woke).toBe(false);
    clock.advance(1);
    await p;
    expect(woke).toBe(true);
  });
});

describe('VirtualClock.setTimer', () => {
  it('puts the timer on the heap at now + ms; cancelled, it runs as a no-op', () => {
    const clock = new VirtualClock(1000);
    const seen: number[] = [];
    clock.setTimer(() => seen.push(clock.now()), 250);
    const t = clock.setTimer(() => seen.push(-1), 100);
    t.cancel();
    expect(clock.nextAt()).toBe(1100);
    while (clock.nextAt() < Number.POSITIVE_INFINITY) clock.runNext();
    expect(seen).toEqual([1250]);
  });
});

describe('systemClock', () => {
  it('fires a timer on wall time and a cancelled one never', async () => {
    const seen: string[] = [];
    systemClock.setTimer(() => seen.push('fired'), 5);
    systemClock.setTimer(() => seen.push('cancelled'), 5).cancel();
    await systemClock.sleep(50);
    expect(seen).toEqual(['fired']);
  });

  it('nextTurn lets pending callbacks run; a stopwatch only goes forward', async () => {
    const elapsed = stopwatch();
    let ran = false;
    setImmediate(() => (ran = true));
    await nextTurn();
    expect(ran).toBe(true);
    const a = elapsed();
    expect(elapsed()).toBeGreaterThanOrEqual(a);
  });
});

describe('sleepUnless', () => {
  it('ends when the clock has moved past the wait, or earlier when `until` settles, its timer then canceled', async () => {
    const clock = new ManualClock(0);
    let done = false;
    const full = sleepUnless(clock, 200, new Promise(() => undefined)).then(() => (done = true));
    clock.advance(199);
    await nextTurn();
    expect(done).toBe(false);
    clock.advance(1);
    await full;
    let stop!: () => void;
    const cut = sleepUnless(clock, 200, new Promise<void>((r) => (stop = r)));
    stop();
    await cut;
    expect(clock.now()).toBe(200);
    // Its timer is gone.
    expect((clock as unknown as { timers: unknown[] }).timers).toEqual([]);
  });
});
