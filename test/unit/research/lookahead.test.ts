// The lookahead check on decision lists: identical up to the cut less the margin passes; a decision that differs,
// or one missing on either side, before it is the first difference; what happens after it does not count.
import { describe, expect, it } from '@jest/globals';
import type { Decision, JobResult } from '../../../src/research/jobs.js';
import { cutPoints, firstDifference, lookaheadVerdict, paramsForCut } from '../../../src/research/lookahead.js';
import { metrics } from '../../fixtures/research-runs.js';

const d = (ts: number, intent: string, strategy = 's'): Decision => ({ ts, strategy, intent });
const honest = [d(1000, 'buy 1'), d(2000, 'sell 1'), d(3000, 'buy 2'), d(4000, 'sell 2'), d(5000, 'buy 3')];

describe('firstDifference', () => {
  it('the same decisions up to the time: none', () => {
    // The cut run stops at 3500: what the whole run did after it is not compared.
    expect(firstDifference(honest, honest.slice(0, 3), 3500)).toEqual({ compared: 3 });
  });

  it('a decision that differs: its place and both sides', () => {
    const peeking = [d(1000, 'buy 1'), d(2000, 'hold'), d(3000, 'buy 2')];
    expect(firstDifference(honest, peeking, 3500)).toEqual({ compared: 1, difference: { index: 1, full: d(2000, 'sell 1'), cut: d(2000, 'hold') } });
  });

  it('a decision made at another time, by another strategy, or missing on either side', () => {
    expect(firstDifference(honest, [d(1000, 'buy 1'), d(2001, 'sell 1')], 2500).difference).toEqual({
      index: 1,
      full: d(2000, 'sell 1'),
      cut: d(2001, 'sell 1'),
    });
    expect(firstDifference(honest, [d(1000, 'buy 1', 'other')], 1500).difference?.index).toBe(0);
    expect(firstDifference(honest, [d(1000, 'buy 1')], 2500)).toEqual({ compared: 1, difference: { index: 1, full: d(2000, 'sell 1') } });
    expect(firstDifference(honest.slice(0, 1), [d(1000, 'buy 1'), d(1500, 'extra')], 2500)).toEqual({
      compared: 1,
      difference: { index: 1, cut: d(1500, 'extra') },
    });
  });

  it('differences after the time compared are not seen', () => {
    expect(firstDifference(honest, [...honest.slice(0, 3), d(3400, 'panic at the end')], 3000)).toEqual({ compared: 3 });
  });
});

describe('the verdict', () => {
  const run = (decisions: Decision[]): JobResult => ({ id: 'x', metrics: metrics(), events: 1, decisions });

  it('flags the strategy when a cut run decided otherwise before its cut, less the margin', () => {
    const plan = { params: { n: 1 }, marginMs: 600, copies: true };
    // Cut at 4000: compared up to 3400.
    const clean = lookaheadVerdict(plan, [4000], run(honest), [run([...honest.slice(0, 3), d(3600, 'late')])]);
    expect(clean.peeks).toBe(false);
    expect(clean.cuts).toEqual([{ cutMs: 4000, untilMs: 3400, compared: 3 }]);
    const bad = lookaheadVerdict(plan, [4000, 2500], run(honest), [run(honest.slice(0, 3)), run([d(1000, 'buy 1'), d(1900, 'sell early')])]);
    expect(bad.peeks).toBe(true);
    expect(bad.cuts[1]).toMatchObject({ cutMs: 2500, untilMs: 1900, compared: 1, difference: { index: 1, cut: d(1900, 'sell early') } });
    expect(bad.cuts[1]!.difference!.full).toBeUndefined();
    expect(bad.decisions).toBe(5);
  });
});

describe('cuts', () => {
  it('spread evenly inside the span, on whole seconds', () => {
    expect(cutPoints({ fromMs: 0, toMs: 40_000 }, 3)).toEqual([10_000, 20_000, 30_000]);
    expect(cutPoints({ fromMs: 1000, toMs: 1_801_001 }, 2)).toEqual([601_000, 1_201_000]);
  });

  it('a param naming the data file names the cut copy in the cut runs; others stay', () => {
    expect(paramsForCut({ file: 'data/x.jsonl', other: 'data/y.jsonl', n: 3 }, './data/x.jsonl', '/tmp/cut.jsonl')).toEqual({
      file: '/tmp/cut.jsonl',
      other: 'data/y.jsonl',
      n: 3,
    });
  });
});
