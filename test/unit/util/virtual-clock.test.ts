// Virtual time: timers run in time order (same instant: in the order set), periodic timers repeat, sleeps
// wake code waiting on them and are counted while pending.
import { describe, expect, it } from '@jest/globals';
import { VirtualClock } from '../../../src/util/clock.js';

function drain(clock: VirtualClock, untilMs: number): void {
  while (clock.nextAt() <= untilMs) clock.runNext();
}

describe('VirtualClock', () => {
  it('runs timers in time order, ties in the order they were set, and moves time to each', () => {
    const c = new VirtualClock(1000);
    const seen: string[] = [];
    let seed = 3;
    for (let i = 0; i < 200; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const at = 1000 + (seed % 50);
      c.at(at, (tag) => seen.push(`${c.now()}:${tag}`), `${at}/${i}`);
    }
    drain(c, 2000);
    const parsed = seen.map((s) => s.split(':')).map(([now, tag]) => ({ now: Number(now), at: Number(tag!.split('/')[0]), i: Number(tag!.split('/')[1]) }));
    expect(parsed.every((p) => p.now === p.at)).toBe(true);
    for (let k = 1; k < parsed.length; k++) {
      const a = parsed[k - 1]!;
      const b = parsed[k]!;
      expect(a.at < b.at || (a.at === b.at && a.i < b.i)).toBe(true);
    }
    expect(parsed.length).toBe(200);
  });

  it('repeats a periodic timer, and a timer set in the past runs now', () => {
    const c = new VirtualClock(0);
    const ticks: number[] = [];
    c.every(100, 250, () => ticks.push(c.now()));
    drain(c, 1000);
    expect(ticks).toEqual([100, 350, 600, 850]);
    c.at(10, () => ticks.push(-c.now()));
    c.runNext();
    expect(ticks[ticks.length - 1]).toBe(-850);
    expect(() => c.every(0, 0, () => undefined)).toThrow(/above 0/);
  });

  it('a sleep wakes its waiter at its instant; pending sleeps are counted', async () => {
    const c = new VirtualClock(0);
    const woke: number[] = [];
    void c.sleep(30).then(() => woke.push(c.now()));
    void c.sleep(10).then(() => woke.push(c.now()));
    expect(c.sleeping).toBe(2);
    expect(c.runNext()).toBe(true);
    expect(c.sleeping).toBe(1);
    await Promise.resolve();
    expect(woke).toEqual([10]);
    c.runNext();
    await Promise.resolve();
    expect(woke).toEqual([10, 30]);
    expect(c.sleeping).toBe(0);
  });

  it('a wait runs its function with its argument at its instant, counted among the sleeps until then; a plain timer is not', () => {
    const c = new VirtualClock(0);
    const seen: Array<[number, string, number]> = [];
    c.wait(20, (tag: string) => seen.push([c.now(), tag, c.sleeping]), 'second');
    c.at(5, (tag: string) => seen.push([c.now(), tag, c.sleeping]), 'timer');
    c.wait(10, (tag: string) => seen.push([c.now(), tag, c.sleeping]), 'first');
    expect(c.sleeping).toBe(2);
    // A plain timer wakes nobody; a wait's end does, and is no longer counted when its function runs.
    expect(c.runNext()).toBe(false);
    expect(c.runNext()).toBe(true);
    expect(c.runNext()).toBe(true);
    expect(seen).toEqual([
      [5, 'timer', 2],
      [10, 'first', 1],
      [20, 'second', 0],
    ]);
    expect(c.nextAt()).toBe(Number.POSITIVE_INFINITY);
  });
});
