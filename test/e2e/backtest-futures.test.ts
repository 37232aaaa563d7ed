// A leveraged futures backtest in this process (test/fixtures/futures-backtest.ts): a long held across two recorded
// funding settlements and then liquidated. trades.csv carries the funding rows the simulator's ledger booked (at the
// recorded rates and the replayed mark, exactly) and the liquidation; report.json's futures section and equity.csv's
// margin rate agree with the simulator. A spot-only run keeps the report it had.
import '../fixtures/backtest-in-jest.js';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import type { LedgerEntry } from '../../src/domain/market.js';
import type { SimLiquidation } from '../../src/exchange/sim/futures-views.js';
import { CRASH_MS, MARK_ABOVE, SETTLEMENTS, SIZE, SYMBOL, definitions, priceAt, writeFuturesScenario } from '../fixtures/futures-backtest.js';

const { loadConfig } = await import('../../src/config/load.js');
const backtest = await import('../../src/app/backtest.js');
const { silentLogger } = await import('../../src/util/logger.js');

const d = (s: string) => Decimal.from(s);

type TradesColumn =
  'ts' | 'symbol' | 'order_id' | 'fill_id' | 'side' | 'price' | 'size' | 'amount' | 'fee' | 'realized_pnl' | 'kind' | 'position_side' | 'rate';
type EquityColumn = 'ts' | 'equity' | 'buy_and_hold' | 'margin_rate' | 'maintenance_rate';

/** A CSV file's rows as objects by header name. */
function csv<C extends string>(file: string): Array<Record<C, string>> {
  const [header, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const names = header!.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i]!, v])) as Record<C, string>);
}

interface FuturesSection {
  funding: {
    paid: string;
    received: string;
    net: string;
    settlements: number;
    bySymbol: Record<string, { paid: string; received: string; net: string; settlements: number }>;
  };
  liquidations: Array<{ atMs: number; symbol: string; side: string; size: string; price: string; mark: string; pnl: string; fee: string; orderId: string }>;
  fees: { maker: string; taker: string; liquidation: string; total: string };
  margin: { samples: number; tightest: { atMs: number; marginRate: string; maintenanceRate: string } | null };
}

describe('a leveraged long held across funding settlements, then liquidated', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-btf-'));
  const scenario = writeFuturesScenario(dir);
  let ledger: LedgerEntry[];
  let liquidations: SimLiquidation[];
  let collateral: Decimal;
  let cumFunding: Decimal;
  let report: { futures: FuturesSection; metrics: Record<string, string | number>; strategies: Array<{ id: string; pnl: { funding: string; pnl: string } }> };
  let trades: Array<Record<TradesColumn, string>>;

  beforeAll(async () => {
    let engine: import('../../src/exchange/sim/engine.js').MatchingEngine | undefined;
    await backtest.runBacktest(loadConfig(scenario.config, {}), silentLogger, { definitions, onVenue: (venue) => (engine = venue.simulator.engine) });
    ledger = engine!.ledgerEntries();
    liquidations = engine!.liquidations();
    collateral = engine!.futuresCollateral();
    cumFunding = engine!.accountView().cumFunding;
    report = JSON.parse(readFileSync(join(scenario.out, 'report.json'), 'utf8')) as typeof report;
    trades = csv<TradesColumn>(join(scenario.out, 'trades.csv'));
  });

  it('trades.csv: the open, a funding row per settlement as the ledger booked it, and the liquidation, in time order', () => {
    expect(trades.map((t) => [t.kind, t.position_side])).toEqual([
      ['fill', 'long'],
      ['funding', 'long'],
      ['funding', 'long'],
      ['funding', 'long'],
      ['liquidation', 'long'],
    ]);
    const booked = ledger.filter((e) => e.kind === 'funding');
    expect(trades.filter((t) => t.kind === 'funding').map((t) => [Number(t.ts), t.symbol, t.amount])).toEqual(
      booked.map((e) => [e.timestampMs, e.symbol, e.amount.toString()]),
    );
  });

  it('each funding row is the recorded rate × the position × the replayed mark at the settlement, paid when positive', () => {
    const rows = trades.filter((t) => t.kind === 'funding');
    expect(rows).toHaveLength(SETTLEMENTS.length);
    SETTLEMENTS.forEach(([atMs, rate], i) => {
      const row = rows[i]!;
      const mark = priceAt(atMs).add(d(MARK_ABOVE));
      expect(Number(row.ts)).toBe(atMs);
      expect(row.rate).toBe(rate);
      expect(d(row.amount).eq(d(rate).mul(d(SIZE)).mul(mark).neg())).toBe(true);
      // Funding is no fee: its amount is what it realised.
      expect([row.fee, row.realized_pnl]).toEqual(['0', row.amount]);
    });
  });

  it("the liquidation row is the simulator's liquidation: its price, size, fee and realised PnL", () => {
    expect(liquidations).toHaveLength(1);
    const l = liquidations[0]!;
    expect(l).toMatchObject({ symbol: SYMBOL, side: 'long', atMs: CRASH_MS });
    expect(l.mark.eq(priceAt(CRASH_MS).add(d(MARK_ABOVE)))).toBe(true);
    const row = trades.find((t) => t.kind === 'liquidation')!;
    expect([Number(row.ts), row.symbol, row.order_id, row.side]).toEqual([l.atMs, SYMBOL, l.orderId, 'sell']);
    expect(d(row.price).eq(l.price) && d(row.size).eq(l.size) && d(row.fee).eq(l.fee)).toBe(true);
    expect(d(row.realized_pnl).eq(l.pnl.sub(l.fee))).toBe(true);
  });

  it('report.json: funding paid and received, the liquidation, fees by kind; all of it moved the collateral', () => {
    const f = report.futures;
    const amounts = trades.filter((t) => t.kind === 'funding').map((t) => d(t.amount));
    const paid = amounts.filter((a) => a.isNegative()).reduce((a, x) => a.sub(x), Decimal.ZERO);
    const received = amounts.filter((a) => !a.isNegative()).reduce((a, x) => a.add(x), Decimal.ZERO);
    expect(paid.isZero() || received.isZero()).toBe(false);
    expect(f.funding).toEqual({
      paid: paid.toString(8),
      received: received.toString(8),
      net: cumFunding.toString(8),
      settlements: 3,
      bySymbol: { [SYMBOL]: { paid: paid.toString(8), received: received.toString(8), net: cumFunding.toString(8), settlements: 3 } },
    });
    const l = liquidations[0]!;
    expect(f.liquidations).toEqual([
      {
        at: new Date(l.atMs).toISOString(),
        atMs: l.atMs,
        symbol: SYMBOL,
        side: 'long',
        size: l.size.toString(),
        price: l.price.toString(),
        mark: l.mark.toString(),
        pnl: l.pnl.toString(8),
        fee: l.fee.toString(8),
        orderId: l.orderId,
      },
    ]);
    const open = trades.find((t) => t.kind === 'fill')!;
    expect(f.fees).toEqual({ maker: '0.00000000', taker: d(open.fee).toString(8), liquidation: l.fee.toString(8), total: d(open.fee).add(l.fee).toString(8) });
    // Collateral: the start, less the fees, plus funding and the realised PnL (what trades.csv's rows realised, all told).
    const realised = trades.reduce((a, t) => a.add(d(t.realized_pnl)), Decimal.ZERO);
    expect(collateral.eq(d('1000').add(realised))).toBe(true);
    // The strategy's own PnL carries the funding of its position.
    expect(report.strategies[0]!.pnl.funding).toBe(cumFunding.toString(8));
    expect(report.metrics.fills).toBe(2);
  });

  it('equity.csv: the margin rate and maintenance rate while the long is held, empty before and after', () => {
    const rows = csv<EquityColumn>(join(scenario.out, 'equity.csv'));
    const held = rows.filter((r) => r.margin_rate !== '');
    expect(rows[0]!.margin_rate).toBe('');
    expect(rows[rows.length - 1]!.margin_rate).toBe('');
    expect(held.length).toBe(report.futures.margin.samples);
    expect(held.length).toBeGreaterThan(100);
    for (const r of held) expect(Number(r.ts)).toBeLessThanOrEqual(CRASH_MS);
    // Held at a 0.2 BTC long on about 1,000 of collateral: equity / value at mark about 5.5 %, the tier's 2.5 % beneath.
    const first = held[0]!;
    expect(Number(first.margin_rate)).toBeCloseTo(0.0549, 3);
    expect(first.maintenance_rate).toBe('0.025');
    expect(report.futures.margin.tightest).toMatchObject({ maintenanceRate: '0.025' });
  });
});

describe('funding files and spot-only runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-btf2-'));

  it('without a funding file the simulator charges its own seeded rates', async () => {
    const scenario = writeFuturesScenario(dir, { funding: false });
    await backtest.runBacktest(loadConfig(scenario.config, {}), silentLogger, { definitions });
    const rates = csv<TradesColumn>(join(scenario.out, 'trades.csv'))
      .filter((t) => t.kind === 'funding')
      .map((t) => t.rate);
    expect(rates).toHaveLength(SETTLEMENTS.length);
    expect(rates).not.toEqual(SETTLEMENTS.map(([, rate]) => rate));
  });

  it('a funding file that is not one, or of a contract the simulator lacks, stops the run before anything is written', async () => {
    const scenario = writeFuturesScenario(join(mkdtempSync(join(dir, 'bad-'))));
    const cfg = loadConfig(scenario.config, {});
    cfg.config.backtest.funding = [scenario.data];
    await expect(backtest.runBacktest(cfg, silentLogger, { definitions })).rejects.toThrow(
      `backtest.funding: ${scenario.data}: not a funding file (it holds ticks of ${SYMBOL})`,
    );
    expect(existsSync(join(scenario.out, 'report.json'))).toBe(false);
  });

  it('a run that trades no futures has no futures section and the equity.csv it had', async () => {
    const cfg = loadConfig('config/backtest.yaml', {});
    cfg.config.strategies = cfg.config.strategies.filter((s) => s.id === 'mm-btc');
    const out = join(dir, 'spot');
    await backtest.runBacktest(cfg, silentLogger, { outDir: out, toMs: Date.parse('2026-01-05T00:01:00Z') });
    expect(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'))).not.toHaveProperty('futures');
    expect(readFileSync(join(out, 'equity.csv'), 'utf8').split('\n')[0]).toBe('ts,equity,buy_and_hold');
    expect(readFileSync(join(out, 'trades.csv'), 'utf8').split('\n')[0]).toBe(
      'ts,symbol,order_id,fill_id,side,price,size,amount,fee,realized_pnl,kind,position_side,rate',
    );
    expect(readFileSync(join(out, 'report.html'), 'utf8')).not.toContain('id="margin"');
  });
});
