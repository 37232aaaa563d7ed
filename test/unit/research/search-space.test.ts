// The search space: the grid in a fixed order, random samples drawn with a seed, distinct, in grid order.
import { describe, expect, it } from '@jest/globals';
import { candidates, gridAt, gridSize, sampleIndices } from '../../../src/research/search-space.js';
import { combinations } from '../../../src/research/sweep.js';
import { Prng } from '../../../src/util/prng.js';

const space = { a: [1, 2, 3], b: ['x', 'y'], c: [true, false] };

describe('grid', () => {
  it('every combination once, the first param slowest (the order a sweep lists them in)', () => {
    expect(gridSize(space)).toBe(12);
    const all = candidates(space, { method: 'grid', seed: 1 });
    expect(all.map((c) => c.params)).toEqual(combinations(space));
    expect(all.map((c) => c.id).slice(0, 3)).toEqual(['c001', 'c002', 'c003']);
    expect(all.map((c) => c.index)).toEqual([...Array(12).keys()]);
    expect(gridAt(space, 0)).toEqual({ a: 1, b: 'x', c: true });
    expect(gridAt(space, 1)).toEqual({ a: 1, b: 'x', c: false });
    expect(gridAt(space, 11)).toEqual({ a: 3, b: 'y', c: false });
  });

  it('keys stay in the space order', () => {
    expect(Object.keys(gridAt(space, 5))).toEqual(['a', 'b', 'c']);
  });
});

describe('random', () => {
  it('the same seed draws the same candidates, distinct and in grid order; another seed others', () => {
    const big = { p: [...Array(50).keys()], q: [...Array(40).keys()] };
    const one = candidates(big, { method: 'random', samples: 25, seed: 7 });
    const again = candidates(big, { method: 'random', samples: 25, seed: 7 });
    expect(again).toEqual(one);
    expect(one).toHaveLength(25);
    const keys = one.map((c) => `${c.params.p as number}/${c.params.q as number}`);
    expect(new Set(keys).size).toBe(25);
    const flat = one.map((c) => (c.params.p as number) * 40 + (c.params.q as number));
    expect(flat).toEqual([...flat].sort((x, y) => x - y));
    expect(candidates(big, { method: 'random', samples: 25, seed: 8 })).not.toEqual(one);
  });

  it('indices drawn sparsely (rejecting repeats) and densely (a partial shuffle) are distinct and within the grid', () => {
    for (const [total, samples] of [
      [1000, 10],
      [20, 15],
      [7, 7],
    ] as const) {
      const picked = sampleIndices(total, samples, 3);
      expect(picked).toHaveLength(samples);
      expect(new Set(picked).size).toBe(samples);
      expect(picked.every((i) => i >= 0 && i < total)).toBe(true);
      expect(picked).toEqual([...picked].sort((x, y) => x - y));
    }
    // Asking for more than the grid holds gives the whole grid.
    expect(sampleIndices(5, 9, 1)).toEqual([0, 1, 2, 3, 4]);
  });

  it('the seeded stream is fixed (the same on every machine) and bounded', () => {
    const r = new Prng(42);
    const draws = Array.from({ length: 5 }, () => r.u32());
    expect(draws).toEqual(
      Array.from(
        { length: 5 },
        (
          (s) => () =>
            s.u32()
        )(new Prng(42)),
      ),
    );
    const b = new Prng(1);
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[b.uniformBelow(3)]!++;
    expect(counts.every((n) => n > 900 && n < 1100)).toBe(true);
    const wide = new Prng(5);
    for (let i = 0; i < 100; i++) {
      const x = wide.uniformBelow(2 ** 40 + 3);
      expect(Number.isSafeInteger(x) && x >= 0 && x < 2 ** 40 + 3).toBe(true);
    }
  });
});
