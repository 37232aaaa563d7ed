// The trade list: round trips at average cost per (strategy, symbol, position side): opens and closes, partial
// closes, adds, a flip, shorts, hedged sides, fees split on a flip, MAE/MFE on the price samples, and the CSV line.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Fill, PositionSide } from '../../../src/domain/market.js';
import { roundTripCsvLine, roundTrips, tradeStats, type OwnedFill } from '../../../src/report/round-trips.js';

const d = (s: string) => Decimal.from(s);
let id = 0;
const fill = (
  timestampMs: number,
  side: 'buy' | 'sell',
  price: string,
  size: string,
  fee = '0',
  opts: { symbol?: string; strategy?: string; positionSide?: PositionSide | null } = {},
): OwnedFill => {
  const f: Fill = {
    symbol: opts.symbol ?? 'X',
    orderId: String(++id),
    fillId: String(id),
    side,
    price: d(price),
    size: d(size),
    amount: d(price).mul(d(size)),
    fee: d(fee),
    timestampMs,
  };
  return { fill: f, strategy: opts.strategy ?? 's', positionSide: opts.positionSide ?? null };
};

describe('round trips', () => {
  it('a long opened in two buys and closed in two sells: one trade at average prices, fees included', () => {
    const [t, ...rest] = roundTrips([
      fill(1000, 'buy', '100', '1', '0.1'),
      fill(2000, 'buy', '110', '1', '0.1'),
      fill(3000, 'sell', '120', '0.5', '0.05'),
      fill(61_000, 'sell', '130', '1.5', '0.15'),
    ]);
    expect(rest).toEqual([]);
    // Cost 210 for 2; sold 0.5 at 120 and 1.5 at 130: 60 + 195 - 210 = 45 gross, 0.4 of fees.
    expect(t).toEqual({
      strategy: 's',
      symbol: 'X',
      side: 'long',
      entryMs: 1000,
      entryAt: '1970-01-01T00:00:01.000Z',
      entryPrice: '105.00000000',
      exitMs: 61_000,
      exitAt: '1970-01-01T00:01:01.000Z',
      exitPrice: '127.50000000',
      durationMs: 60_000,
      size: '2',
      pnl: '44.60000000',
      fees: '0.40000000',
      mae: '0.00000000',
      mfe: '0.00000000',
      fills: 4,
    });
  });

  it('a short, then a flip to long: the flip closes one trade and opens the next, its fee split by size', () => {
    const trips = roundTrips([fill(0, 'sell', '100', '2', '0.2'), fill(10, 'buy', '90', '3', '0.3'), fill(20, 'sell', '95', '1', '0.1')]);
    expect(trips.map((t) => [t.side, t.entryPrice, t.exitPrice, t.size, t.pnl, t.fees, t.fills])).toEqual([
      // Short 2 at 100 bought back at 90: 20, less 0.2 and 2/3 of 0.3.
      ['short', '100.00000000', '90.00000000', '2', '19.60000000', '0.40000000', 2],
      // Long 1 at 90 sold at 95: 5, less 1/3 of 0.3 and 0.1.
      ['long', '90.00000000', '95.00000000', '1', '4.80000000', '0.20000000', 2],
    ]);
  });

  it('keeps strategies, symbols and hedged position sides apart; an open trade has no exit', () => {
    const trips = roundTrips([
      fill(0, 'buy', '10', '1', '0', { positionSide: 'long' }),
      fill(1, 'sell', '10', '1', '0', { positionSide: 'short' }),
      fill(2, 'buy', '20', '1', '0', { strategy: 'b' }),
      fill(3, 'sell', '12', '1', '0', { positionSide: 'long' }),
      fill(4, 'buy', '9', '1', '0', { positionSide: 'short' }),
      fill(5, 'buy', '5', '2', '0', { symbol: 'Y' }),
    ]);
    expect(trips.map((t) => [t.strategy, t.symbol, t.side, t.exitMs, t.pnl])).toEqual([
      ['s', 'X', 'long', 3, '2.00000000'],
      ['s', 'X', 'short', 4, '1.00000000'],
      ['b', 'X', 'long', null, '0.00000000'],
      ['s', 'Y', 'long', null, '0.00000000'],
    ]);
    expect(trips[2]).toMatchObject({ exitAt: null, exitPrice: null, durationMs: null });
    expect(tradeStats(trips)).toEqual({ trades: 2, open: 2, winRatePct: '100', profitFactor: 'inf' });
  });

  it('exact decimals: no float drift over many small fills', () => {
    const fills = [
      ...Array.from({ length: 10 }, (_, i) => fill(i, 'buy', '0.1', '0.1', '0.0001')),
      ...Array.from({ length: 10 }, (_, i) => fill(100 + i, 'sell', '0.3', '0.1', '0.0001')),
    ];
    const [t] = roundTrips(fills);
    expect(t).toMatchObject({ size: '1', pnl: '0.19800000', fees: '0.00200000', entryPrice: '0.10000000', exitPrice: '0.30000000' });
  });

  it('MAE and MFE: the worst and best unrealised PnL while open, on the price samples only', () => {
    const marks = {
      X: [
        [500, d('100')],
        [1500, d('90')],
        [2500, d('80')],
        [3500, d('130')],
        [4000, d('125')],
        [5000, d('50')],
      ] as Array<[number, Decimal]>,
      Y: [[2000, d('1')]] as Array<[number, Decimal]>,
    };
    // Long 1 at 100 from 1000; a second unit at 80 at 3000 (cost 180); closed at 4000. The sample at 4000 is after it.
    const [long] = roundTrips([fill(1000, 'buy', '100', '1'), fill(3000, 'buy', '80', '1'), fill(4000, 'sell', '125', '2')], marks);
    // 1500: 90 - 100 = -10; 2500: 80 - 100 = -20; 3500: 260 - 180 = 80.
    expect(long).toMatchObject({ mae: '-20.00000000', mfe: '80.00000000', pnl: '70.00000000' });
    const [short] = roundTrips([fill(1000, 'sell', '100', '2')], marks);
    // Still open at the end: every later sample counts (up to 50: +100; 130: -60).
    expect(short).toMatchObject({ side: 'short', exitMs: null, mae: '-60.00000000', mfe: '100.00000000' });
  });

  it('writes a CSV line per trade', () => {
    const trips = roundTrips([fill(0, 'buy', '10', '1', '0.01'), fill(90_000, 'sell', '11', '1', '0.01'), fill(100_000, 'sell', '11', '1')]);
    expect(trips.map(roundTripCsvLine)).toEqual([
      's,X,long,0,10.00000000,90000,11.00000000,90000,1,0.98000000,0.02000000,0.00000000,0.00000000,2',
      's,X,short,100000,11.00000000,,,,1,0.00000000,0.00000000,0.00000000,0.00000000,1',
    ]);
  });
});
