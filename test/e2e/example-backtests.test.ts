// The shipped example backtests (config/examples/*.yaml) run through the whole pipeline in this process: each
// completes without a fault or a hook error, its strategy places orders that fill, and what it was refused stays rare.
import '../fixtures/backtest-in-jest.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const { loadConfig } = await import('../../src/config/load.js');
const { runBacktest } = await import('../../src/app/backtest.js');
const { silentLogger } = await import('../../src/util/logger.js');

const dir = mkdtempSync(join(tmpdir(), 'sextant-examples-'));
const START_MS = Date.parse('2026-01-05T00:00:00Z');
/** Six of the twelve hours each file holds: enough bars for every indicator to trade, and quick. */
const RANGE = { fromMs: START_MS, toMs: START_MS + 6 * 3600_000 };

interface Report {
  strategies: Array<{ id: string; errors: number; pnl: { fills: number } }>;
}

describe('the example backtests', () => {
  it.each(['rsi-reversion', 'ema-cross', 'bollinger-maker'])('%s: runs clean and trades', async (name) => {
    const outDir = join(dir, name);
    const result = await runBacktest(loadConfig(`config/examples/${name}.yaml`, {}), silentLogger, { outDir, ...RANGE });
    expect(result.faults).toEqual([]);
    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as Report;
    expect(report.strategies.map((s) => ({ id: s.id, errors: s.errors }))).toEqual([{ id: expect.any(String), errors: 0 }]);
    const placed = Object.values(result.orders).reduce((a, n) => a + n, 0);
    expect(placed).toBeGreaterThan(4);
    expect(result.metrics.fills).toBeGreaterThan(2);
    expect(report.strategies[0]!.pnl.fills).toBe(result.metrics.fills);
    const refused = [...Object.values(result.rejected), ...Object.values(result.denied)].reduce((a, n) => a + n, 0);
    expect(refused).toBeLessThanOrEqual(placed / 10);
  });
});
