// A leveraged long through a scripted 30 % crash, backtested end to end: the simulator liquidates it at the
// estimated liquidation price of the venue's formula (worked out here from the fills alone, independently of the
// simulator's margin code), and the report, trades.csv and the journal show the liquidation.
import '../fixtures/backtest-in-jest.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';
import { Decimal } from '../../src/domain/decimal.js';
import { defineStrategy, z, type StrategyDefinition } from '../../src/strategy/api.js';

const { loadConfig } = await import('../../src/config/load.js');
const { runBacktest } = await import('../../src/app/backtest.js');
const { silentLogger } = await import('../../src/util/logger.js');

const dir = mkdtempSync(join(tmpdir(), 'sextant-liquidation-'));
const SYMBOL = 'cmt_ethusdt';
/** 01:00 UTC: the run ends before the 08:00 funding settlement, so no funding moves the collateral. */
const T0 = Date.UTC(2026, 0, 5, 1);
const TICK_MS = 5_000;

/** Flat at 3000 for 5 minutes, then down linearly to 2100 (−30 %) over 60 minutes, then flat for 10. */
function crashTicks(): string[] {
  const header = { sextant: 'market-data', version: 1, kind: 'ticks', symbols: [SYMBOL], source: 'scripted crash', fromMs: T0, toMs: T0 + 75 * 60_000 };
  const lines = [JSON.stringify(header)];
  const start = 300_000n; // 3000.00 in cents
  const end = 210_000n;
  const steps = (60 * 60_000) / TICK_MS;
  for (let ts = T0 + TICK_MS, k = 0; ts <= T0 + 75 * 60_000; ts += TICK_MS, k++) {
    const crashK = BigInt(Math.min(Math.max(k - 60, 0), steps));
    const cents = start - ((start - end) * crashK) / BigInt(steps);
    const price = Decimal.of(cents, 2);
    lines.push(
      JSON.stringify({
        ts,
        symbol: SYMBOL,
        price: price.toString(),
        size: '20',
        bid: price.sub(Decimal.from('0.01')).toString(),
        ask: price.toString(),
        buyerMaker: false,
      }),
    );
  }
  return lines;
}

/** Opens one long at market on its first market update, and holds it. */
const openLong = defineStrategy({
  name: 'open-long',
  params: z.strictObject({ size: z.string() }),
  onMarket(ctx) {
    if (ctx.state.opened) return;
    ctx.state.opened = true;
    return [
      {
        kind: 'place',
        surface: 'futures',
        symbol: SYMBOL,
        orders: [{ side: 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from(ctx.params.size), positionSide: 'long' }],
      },
    ];
  },
});

describe('a leveraged long through a 30 % crash', () => {
  it('is liquidated at the formula price, and the report shows it', async () => {
    const data = join(dir, 'crash.jsonl');
    writeFileSync(data, crashTicks().join('\n') + '\n');
    const cfgFile = join(dir, 'crash.yaml');
    writeFileSync(
      cfgFile,
      [
        'mode: backtest',
        `backtest: { data: ${data}, out: ${join(dir, 'out')}, latencyMs: 0 }`,
        'sim:',
        '  accounts: { spot: { USDT: "0" }, futuresCollateral: "1000", leverage: 20 }',
        'execution: { graceMs: 1000, lostAfterChecks: 2 }',
        'risk: { maxNotionalPerOrder: "100000", maxNotionalPerSymbol: "100000", priceBandPct: "5", maxDrawdownPct: "99" }',
        'strategies:',
        `  - { id: crash, name: open-long, symbols: [${SYMBOL}], params: { size: "5" } }`,
        'log: { level: warn }',
      ].join('\n') + '\n',
    );
    const outDir = join(dir, 'out');
    const definitions = new Map([['open-long', openLong as unknown as StrategyDefinition<unknown>]]);
    const result = await runBacktest(loadConfig(cfgFile, {}), silentLogger, { outDir, definitions });
    expect(result.faults).toEqual([]);

    // The long as it was opened, from the journal's fills only.
    const journal = new Database(join(outDir, 'journal.sqlite'), { readonly: true });
    const fills = journal
      .prepare("SELECT f.price, f.size, f.fee FROM fills f JOIN orders o ON o.client_oid = f.client_oid WHERE o.position_side = 'long' AND o.reduce_only = 0")
      .all() as Array<{ price: string; size: string; fee: string }>;
    journal.close();
    expect(fills.length).toBeGreaterThan(0);
    let size = Decimal.ZERO;
    let openValue = Decimal.ZERO;
    let fees = Decimal.ZERO;
    for (const f of fills) {
      size = size.add(Decimal.from(f.size));
      openValue = openValue.add(Decimal.from(f.price).mul(Decimal.from(f.size)));
      fees = fees.add(Decimal.from(f.fee));
    }
    expect(size.toString()).toBe('5');
    // 5 ETH = 5000 contracts of 0.001: the first tier, 2.5 %. The venue's formula for a net long in a cross account
    // (one contract): mark − (equity − maintenance) / (size × (1 − mmr)), which is (open value − collateral) /
    // (size × (1 − mmr)) whatever the mark; on the tick, rounded up (reached sooner).
    const collateral = Decimal.from('1000').sub(fees);
    const mmr = Decimal.from('0.025');
    const exact = openValue.sub(collateral).div(size.mul(Decimal.fromInt(1).sub(mmr)), 12, 'half-up');
    const expected = exact.roundToStep(Decimal.from('0.01'), 'up');

    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as {
      futures?: { liquidations?: Array<{ symbol: string; side: string; price: string; size: string; fee: string; pnl: string }> };
    };
    const liquidations = report.futures?.liquidations ?? [];
    expect(liquidations).toHaveLength(1);
    const liq = liquidations[0]!;
    expect({ symbol: liq.symbol, side: liq.side, size: Decimal.from(liq.size).toString(), price: Decimal.from(liq.price).toString() }).toEqual({
      symbol: SYMBOL,
      side: 'long',
      size: '5',
      price: expected.toString(),
    });
    // Its loss is the close at that price against the entry; its fee the taker rate of its value.
    expect(Decimal.from(liq.pnl).toString()).toBe(expected.mul(size).sub(openValue).toString());
    expect(Decimal.from(liq.fee).toString()).toBe(expected.mul(size).mul(Decimal.from('0.0006')).toString());

    const trades = readFileSync(join(outDir, 'trades.csv'), 'utf8');
    expect(trades).toMatch(/liquidation/);
    const html = readFileSync(join(outDir, 'report.html'), 'utf8');
    expect(html).toContain(expected.toString());
  });
});
