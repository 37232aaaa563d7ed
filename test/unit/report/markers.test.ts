// Fill markers on the report's price charts: each on a point of the series, fills of one instant and side
// counted on one marker, and a long run grouped so a chart never carries more than MAX_MARKERS.
import { describe, expect, it } from '@jest/globals';
import { MAX_MARKERS, fillMarkers } from '../../../src/report/html.js';

const points: Array<[number, number]> = Array.from({ length: 5000 }, (_, i) => [1000 + i * 40, 100 + (i % 7)]);
const fill = (time: number, side: 'buy' | 'sell') => ({ symbol: 'X', time, side, price: 1, size: '1' });

describe('fillMarkers', () => {
  it('few fills: one marker per instant and side, on the point at or before the fill, counts written', () => {
    const m = fillMarkers(points, [fill(1000, 'buy'), fill(1050, 'buy'), fill(1079, 'buy'), fill(1079, 'sell'), fill(999, 'sell')]);
    expect(m.map((x) => [x.time, x.shape, x.text ?? ''])).toEqual([
      [1000, 'arrowUp', ''],
      [1000, 'arrowDown', ''],
      [1040, 'arrowUp', '2'],
      [1040, 'arrowDown', ''],
    ]);
  });

  it('many fills: grouped by stretch of time and side, never more than the cap, every fill counted', () => {
    const fills = Array.from({ length: 20_000 }, (_, i) => fill(1000 + i * 10, i % 3 ? 'buy' : 'sell'));
    const m = fillMarkers(points, fills);
    expect(m.length).toBeLessThanOrEqual(MAX_MARKERS);
    expect(m.reduce((a, x) => a + Number(x.text ?? 1), 0)).toBe(fills.length);
    const times = new Set(points.map(([t]) => t));
    expect(m.every((x) => times.has(x.time))).toBe(true);
    for (let i = 1; i < m.length; i++) expect(m[i]!.time).toBeGreaterThanOrEqual(m[i - 1]!.time);
  });
});
