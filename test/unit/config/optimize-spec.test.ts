// The optimize spec file: lists and ranges (counted in exact decimals: text in, text out; numbers in, numbers out),
// defaults, durations, and every problem with its line and path.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, formatIssue } from '../../../src/config/load.js';
import { durationMs, readOptimizeSpec } from '../../../src/config/optimize-spec.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-optimize-spec-'));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function problems(path: string): string[] {
  try {
    readOptimizeSpec(path);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map(formatIssue);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const WF = 'walkForward: { inSample: 10d, outOfSample: 3d }\n';

describe('readOptimizeSpec', () => {
  it('lists as written, ranges expanded exactly, defaults for the rest', () => {
    const path = file(
      'ok.yaml',
      [
        'strategy: ema-eth',
        'params:',
        '  fast: [5, 9]',
        '  slow: { from: 20, to: 40, step: 10 }',
        '  riskQuote: { from: "0.1", to: "0.3", step: "0.1" }',
        '  atrStop: { from: 0.1, to: 0.3, step: 0.1 }',
        WF,
      ].join('\n'),
    );
    const spec = readOptimizeSpec(path);
    expect(spec.params).toEqual({ fast: [5, 9], slow: [20, 30, 40], riskQuote: ['0.1', '0.2', '0.3'], atrStop: [0.1, 0.2, 0.3] });
    expect(spec).toMatchObject({
      strategy: 'ema-eth',
      search: { method: 'grid', seed: 1 },
      halving: { enabled: false },
      objective: { metric: 'strategyPnl', minTrades: 0 },
      walkForward: { mode: 'rolling', inSampleMs: 10 * 86_400_000, outOfSampleMs: 3 * 86_400_000 },
      monteCarlo: { runs: 1000, seed: 1, percentiles: [5, 25, 50, 75, 95] },
      lookahead: { enabled: true, cuts: 3 },
      heatmap: ['fast', 'slow'],
    });
  });

  it('random search, halving, objective, anchored folds, Monte Carlo, lookahead margin and the heatmap params', () => {
    const path = file(
      'full.yaml',
      [
        'strategy: s',
        'params: { a: [1, 2], b: [3, 4], c: [5] }',
        'search: { method: random, samples: 3, seed: 9 }',
        'halving: { eta: 2, minBudget: 2d }',
        'objective: { metric: calmar, minTrades: 5 }',
        'walkForward: { mode: anchored, folds: 4 }',
        'monteCarlo: { runs: 200, seed: 4, percentiles: [10, 90] }',
        'lookahead: { cuts: 2, margin: 5s }',
        'report: { heatmap: [c, a] }',
      ].join('\n'),
    );
    expect(readOptimizeSpec(path)).toMatchObject({
      search: { method: 'random', samples: 3, seed: 9 },
      halving: { enabled: true, eta: 2, minBudget: { ms: 2 * 86_400_000 } },
      objective: { metric: 'calmar', minTrades: 5 },
      walkForward: { mode: 'anchored', folds: 4 },
      monteCarlo: { runs: 200, seed: 4, percentiles: [10, 90] },
      lookahead: { enabled: true, cuts: 2, marginMs: 5000 },
      heatmap: ['c', 'a'],
    });
    expect(readOptimizeSpec(file('share.yaml', `strategy: s\nparams: { a: [1] }\nhalving: { minBudget: 0.5 }\n${WF}`)).halving).toEqual({
      enabled: true,
      eta: 3,
      minBudget: { share: 0.5 },
    });
  });

  it('durations', () => {
    expect([
      durationMs('10d'),
      durationMs('12h'),
      durationMs('90s'),
      durationMs('250ms'),
      durationMs('1w'),
      durationMs('1.5d'),
      durationMs('0d'),
      durationMs('3 d'),
    ]).toEqual([864_000_000, 43_200_000, 90_000, 250, 604_800_000, undefined, undefined, undefined]);
  });

  it('names every problem with its line and path', () => {
    const path = file(
      'bad.yaml',
      [
        'strategy: s',
        'params:',
        '  a: []',
        '  b: { from: 5, to: 1, step: 1 }',
        '  c: { from: "1", to: 2, step: "1" }',
        '  d: { from: 0, to: 1, step: 0 }',
        '  e: { from: 0, to: 100000, step: 1 }',
        'search: { method: random }',
        'objective: { metric: winRate }',
        'walkForward: { inSample: 10 days }',
        'report: { heatmap: [b, z] }',
        'extra: 1',
      ].join('\n'),
    );
    expect(problems(path)).toEqual([
      `${path}:3:6: params.a: expected a non-empty list of values, or a range {from, to, step}`,
      `${path}:8:9: search.samples: random search needs samples: <how many candidates>`,
      `${path}:9:22: objective.metric: Invalid option: expected one of "strategyPnl"|"sharpe"|"sortino"|"calmar"|"profitFactor"`,
      `${path}:10:14: walkForward: give inSample and outOfSample, or folds (with one of them, or alone)`,
      `${path}:10:26: walkForward.inSample: a duration: a whole number and a unit (ms, s, m, h, d, w), e.g. '10d', '12h'`,
      `${path}:12:1: extra: unknown key`,
    ]);
    // Once the shape is right, the ranges and the heatmap are checked.
    const ranges = file(
      'ranges.yaml',
      [
        'strategy: s',
        'params:',
        '  b: { from: 5, to: 1, step: 1 }',
        '  c: { from: "1", to: 2, step: "1" }',
        '  d: { from: 0, to: 1, step: 0 }',
        '  e: { from: 0, to: 100000, step: 1 }',
        'report: { heatmap: [b, z] }',
        WF,
      ].join('\n'),
    );
    expect(problems(ranges)).toEqual([
      `${ranges}:3:21: params.b.to: must not be below from (5)`,
      `${ranges}:4:6: params.c: from, to and step must all be numbers, or all decimals as text ("0.5"): text gives text values, numbers give numbers`,
      `${ranges}:5:30: params.d.step: must be above 0`,
      `${ranges}:6:35: params.e.step: the range has 100001 values, more than 10000: take a larger step`,
      `${ranges}:7:24: report.heatmap[1]: not a param of the space (b, c, d, e)`,
    ]);
  });

  it('an empty file, a YAML syntax error and a missing file are each one problem', () => {
    const empty = file('empty.yaml', '');
    expect(problems(empty)).toEqual([`${empty}: (root): expected {strategy: <id>, params: {...}, walkForward: {...}, ...}`]);
    const broken = file('broken.yaml', 'strategy: [\n');
    expect(problems(broken)).toEqual([expect.stringMatching(new RegExp(`^${broken}:\\d+:\\d+: \\(root\\): YAML: `))]);
    const missing = join(dir, 'missing.yaml');
    expect(problems(missing)).toEqual([`${missing}: (root): cannot read file: ENOENT`]);
  });
});
