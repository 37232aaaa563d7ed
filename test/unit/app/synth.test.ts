// Synthetic data files: a range-bound market (`data synth --revert`) stays near where it started where the same
// seed's plain walk wanders off, draws the same random numbers (the seed's moves are its own), and a malformed
// half-life is refused with the flag named.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { synthesize } from '../../../src/app/synth.js';
import { DEFAULT_INSTRUMENTS } from '../../../src/exchange/sim/instruments.js';
import { runCli } from '../../fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-synth-'));
const BTC = DEFAULT_INSTRUMENTS.filter((s) => s.symbol === 'BTCUSDT_SPBL');
const FROM = Date.parse('2026-01-05T00:00:00Z');
const TO = FROM + 12 * 3_600_000;

function prices(name: string, revertHalfLifeMs?: number): number[] {
  const out = join(dir, name);
  synthesize(BTC, { fromMs: FROM, toMs: TO, intervalMs: 5000, seed: 23, out, ...(revertHalfLifeMs ? { revertHalfLifeMs } : {}) });
  return readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => Number((JSON.parse(line) as { price: string }).price));
}

/** The farthest a price went from the first, in percent of it. */
const farthestPct = (xs: number[]) => (Math.max(...xs.map((x) => Math.abs(x - xs[0]!))) / xs[0]!) * 100;

describe('data synth --revert', () => {
  it('keeps the price in a range the plain walk of the same seed leaves', () => {
    const walk = prices('walk.jsonl');
    const range = prices('range.jsonl', 600_000);
    expect(walk.length).toBe(8640);
    expect(range.length).toBe(8640);
    expect(farthestPct(walk)).toBeGreaterThan(3);
    expect(farthestPct(range)).toBeLessThan(1);
    // The same first move: the pull adds to the seed's draws, it takes none of them.
    expect(range[0]).toBe(walk[0]);
  });

  it('names the seed and the half-life in the file header', () => {
    prices('named.jsonl', 600_000);
    const header = JSON.parse(readFileSync(join(dir, 'named.jsonl'), 'utf8').split('\n')[0]!) as { source: string };
    expect(header.source).toBe('synth seed 23 revert 600000 ms');
  });

  it('refuses a half-life that is not a positive duration', async () => {
    const run = await runCli(
      [
        'data',
        'synth',
        '--symbol',
        'BTCUSDT_SPBL',
        '--from',
        '2026-01-05T00:00:00Z',
        '--to',
        '2026-01-05T01:00:00Z',
        '--revert',
        '0m',
        '--out',
        join(dir, 'x.jsonl'),
      ],
      {},
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--revert: expected a half-life above 0');
  });
});
