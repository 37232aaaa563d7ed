// The shipped example backtests (config/examples/*.yaml) run through the whole pipeline in this process: each
// completes without a fault or a hook error, its strategy places the orders it is meant to and they fill, and refusals
// stay few.
import '../fixtures/backtest-in-jest.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';

const { loadConfig } = await import('../../src/config/load.js');
const { runBacktest } = await import('../../src/app/backtest.js');
const { silentLogger } = await import('../../src/util/logger.js');

const dir = mkdtempSync(join(tmpdir(), 'sextant-examples-'));

interface Report {
  strategies: Array<{ id: string; errors: number; pnl: { fills: number } }>;
}

/** Per example: orders of the journal (a SQL condition) it must have filled, at least once each. */
const FILLED: Record<string, string[]> = {
  'rsi-reversion': ["side = 'buy' AND kind = 'limit'", "side = 'sell' AND kind = 'limit'"],
  'ema-cross': [
    "position_side = 'long' AND reduce_only = 0",
    "position_side = 'short' AND reduce_only = 0",
    'is_trigger = 1',
    'is_trigger = 0 AND reduce_only = 1',
  ],
  'bollinger-maker': ["side = 'buy' AND time_in_force = 'post_only'", "side = 'sell' AND time_in_force = 'post_only'"],
};

describe('the example backtests', () => {
  it.each(Object.keys(FILLED))('%s: runs clean and trades', async (name) => {
    const outDir = join(dir, name);
    const result = await runBacktest(loadConfig(`config/examples/${name}.yaml`, {}), silentLogger, { outDir });
    expect(result.faults).toEqual([]);
    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as Report;
    expect(report.strategies.map((s) => ({ id: s.id, errors: s.errors }))).toEqual([{ id: expect.any(String), errors: 0 }]);
    const placed = Object.values(result.orders).reduce((a, n) => a + n, 0);
    expect(placed).toBeGreaterThan(4);
    expect(result.metrics.fills).toBeGreaterThan(2);
    expect(report.strategies[0]!.pnl.fills).toBe(result.metrics.fills);
    // A quote clamped to the touch may meet a market that moved since the book was read (post-only refused).
    const refused = [...Object.values(result.rejected), ...Object.values(result.denied)].reduce((a, n) => a + n, 0);
    expect(refused).toBeLessThanOrEqual(placed / 5);
    const journal = new Database(join(outDir, 'journal.sqlite'), { readonly: true });
    const filled = (where: string) => (journal.prepare(`SELECT COUNT(*) AS n FROM orders WHERE state = 'filled' AND ${where}`).get() as { n: number }).n;
    const counts = FILLED[name]!.map((where) => ({ where, filled: filled(where) > 0 }));
    journal.close();
    expect(counts).toEqual(FILLED[name]!.map((where) => ({ where, filled: true })));
  });
});
