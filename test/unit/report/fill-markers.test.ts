// Fill markers counted as a run goes are those fillMarkers() gives over all the fills: a fill waits for the point of
// its own second (taken after it) before it is put on one; fills before the first point go on it.
import { describe, expect, it } from '@jest/globals';
import { FillMarkerCounts } from '../../../src/report/fill-markers.js';
import { fillMarkers } from '../../../src/report/html.js';

describe('FillMarkerCounts', () => {
  it('a fill goes on the point of its second even when that point is taken after it', () => {
    const chart: Record<string, Array<[number, number]>> = { X: [], Y: [] };
    const counts = new FillMarkerCounts(chart);
    const fills: Array<{ time: number; side: 'buy' | 'sell' }> = [];
    const fill = (time: number, side: 'buy' | 'sell') => {
      counts.fill('X', time, side);
      fills.push({ time, side });
    };
    fill(8, 'buy'); // before any point: on the first one
    chart.X!.push([9, 100]);
    fill(9, 'sell');
    chart.X!.push([10, 101]);
    fill(12, 'buy');
    fill(12, 'buy');
    fill(12, 'sell');
    chart.X!.push([12, 102]);
    fill(13, 'sell');
    fill(15, 'buy');
    chart.X!.push([20, 103]);
    expect(counts.markers()).toEqual({ X: fillMarkers(chart.X!, fills), Y: [] });
    expect(counts.markers().X!.map((m) => [m.time, m.shape, m.text ?? ''])).toEqual([
      [9, 'arrowUp', ''],
      [9, 'arrowDown', ''],
      [12, 'arrowUp', '3'],
      [12, 'arrowDown', '2'],
    ]);
  });
});
