// The heatmap grid: a cell per pair of two params' values, the best candidate of the pair over the others' values;
// pairs no candidate has are empty.
import { describe, expect, it } from '@jest/globals';
import { heatmapGrid } from '../../../src/research/heatmap.js';
import { score } from '../../../src/research/objective.js';
import { metrics } from '../../fixtures/research-runs.js';

describe('heatmapGrid', () => {
  it('holds the best over the third param, by the objective; a pair not drawn is empty', () => {
    const space = { a: [1, 2], b: ['x', 'y'], c: [10, 20] };
    const cands = [
      { index: 0, id: 'c001', params: { a: 1, b: 'x', c: 10 } },
      { index: 1, id: 'c002', params: { a: 1, b: 'x', c: 20 } },
      { index: 2, id: 'c003', params: { a: 2, b: 'x', c: 10 } },
      { index: 3, id: 'c004', params: { a: 1, b: 'y', c: 10 } },
    ];
    const s = (pnl: string, trades = 10) => score({ metrics: metrics({ strategyPnl: pnl, trades }) }, { metric: 'strategyPnl', minTrades: 5 }, 1000);
    const scores = new Map([
      ['c001', s('1')],
      ['c002', s('3')],
      ['c003', s('9', 1)],
      ['c004', s('-2')],
    ]);
    const g = heatmapGrid(space, ['a', 'b'], cands, scores, 'strategyPnl');
    expect([g.x, g.y, g.xs, g.ys]).toEqual(['a', 'b', [1, 2], ['x', 'y']]);
    expect(g.rows.map((row) => row.map((c) => c && `${c.candidate} ${c.score.text}`))).toEqual([
      ['c002 3', 'c003 9'],
      ['c004 -2', null],
    ]);
    expect(g.rows[0]![1]!.score.qualified).toBe(false);
  });
});
