// Walk-forward windows: rolling and anchored, from durations or a number of folds, to the millisecond.
import { describe, expect, it } from '@jest/globals';
import { foldShape, jobRange, walkForwardFolds, WalkForwardError } from '../../../src/research/walk-forward.js';

const D = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const span = { fromMs: T0, toMs: T0 + 30 * D };
const days = (folds: ReturnType<typeof walkForwardFolds>) =>
  folds.map((f) => [(f.inSample.fromMs - T0) / D, (f.inSample.toMs - T0) / D, (f.outOfSample.fromMs - T0) / D, (f.outOfSample.toMs - T0) / D]);

describe('walk-forward folds', () => {
  it('rolling, 10 d in and 3 d out over 30 d: six folds ending at the data end, 2 d left out at the start', () => {
    expect(days(walkForwardFolds(span, { mode: 'rolling', inSampleMs: 10 * D, outOfSampleMs: 3 * D }))).toEqual([
      [2, 12, 12, 15],
      [5, 15, 15, 18],
      [8, 18, 18, 21],
      [11, 21, 21, 24],
      [14, 24, 24, 27],
      [17, 27, 27, 30],
    ]);
  });

  it('anchored: every in-sample window starts at the data start and grows', () => {
    expect(days(walkForwardFolds(span, { mode: 'anchored', inSampleMs: 10 * D, outOfSampleMs: 3 * D }))).toEqual([
      [0, 12, 12, 15],
      [0, 15, 15, 18],
      [0, 18, 18, 21],
      [0, 21, 21, 24],
      [0, 24, 24, 27],
      [0, 27, 27, 30],
    ]);
  });

  it('folds with one length: the other from the span; folds alone: in-sample `ratio` times out-of-sample', () => {
    expect(days(walkForwardFolds(span, { mode: 'rolling', folds: 4, inSampleMs: 10 * D }))).toEqual([
      [0, 10, 10, 15],
      [5, 15, 15, 20],
      [10, 20, 20, 25],
      [15, 25, 25, 30],
    ]);
    expect(days(walkForwardFolds(span, { mode: 'anchored', folds: 2, outOfSampleMs: 5 * D }))).toEqual([
      [0, 20, 20, 25],
      [0, 25, 25, 30],
    ]);
    expect(days(walkForwardFolds(span, { mode: 'rolling', folds: 3, ratio: 2 }))).toEqual([
      [0, 12, 12, 18],
      [6, 18, 18, 24],
      [12, 24, 24, 30],
    ]);
    expect(foldShape(30 * D, { mode: 'rolling', folds: 3 })).toEqual({ inSampleMs: 15 * D, outOfSampleMs: 5 * D, folds: 3 });
  });

  it('lengths that do not divide evenly: the windows still meet exactly, the remainder left out at the start', () => {
    const odd = { fromMs: 1000, toMs: 1000 + 1001 };
    const folds = walkForwardFolds(odd, { mode: 'rolling', folds: 3, inSampleMs: 400 });
    // (1001 - 400) / 3 = 200.33: 200 ms each, 1 ms unused at the start.
    expect(folds.map((f) => [f.inSample.fromMs, f.inSample.toMs, f.outOfSample.fromMs, f.outOfSample.toMs])).toEqual([
      [1001, 1401, 1401, 1601],
      [1201, 1601, 1601, 1801],
      [1401, 1801, 1801, 2001],
    ]);
    for (let i = 1; i < folds.length; i++) expect(folds[i]!.outOfSample.fromMs).toBe(folds[i - 1]!.outOfSample.toMs);
    expect(folds[2]!.outOfSample.toMs).toBe(odd.toMs);
  });

  it('a job replays both ends of its range: a window [from, to) is the range from .. to - 1', () => {
    expect(jobRange({ fromMs: 10, toMs: 20 })).toEqual({ fromMs: 10, toMs: 19 });
  });

  it('data too short for the windows asked is an error saying so', () => {
    expect(() => walkForwardFolds(span, { mode: 'rolling', inSampleMs: 28 * D, outOfSampleMs: 3 * D })).toThrow(WalkForwardError);
    expect(() => walkForwardFolds(span, { mode: 'rolling', folds: 5, outOfSampleMs: 6 * D })).toThrow(/too short for out-of-sample 518400000 ms, 5 folds/);
  });
});
