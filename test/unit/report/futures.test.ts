// The futures figures of a backtest report from a fixed state of the venue (ledger entries, liquidations, fill
// kinds, margin samples): funding in all and per contract, the rate and side of each funding row where certain,
// fees by kind, the tightest margin, trades.csv's rows in time order, and the ledger read page by page as a run goes.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { LedgerEntry } from '../../../src/domain/market.js';
import {
  FundingCollector,
  fundingRows,
  futuresReport,
  tradeCsvRows,
  type FillKind,
  type LedgerReader,
  type LiquidationRecord,
} from '../../../src/report/futures.js';
import { realize, type EquityPoint } from '../../../src/report/metrics.js';

const d = (s: string) => Decimal.from(s);
const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 5);
let bill = 900000000000000001n;
const funding = (symbol: string, timestampMs: number, amount: string): LedgerEntry => ({
  billId: (bill++).toString(),
  asset: 'USDT',
  symbol,
  kind: 'funding',
  rawKind: 'position_funding',
  amount: d(amount),
  balance: null,
  fee: d('0'),
  timestampMs,
});
const fill = (fillId: string, symbol: string, side: 'buy' | 'sell', price: string, size: string, fee: string, timestampMs: number) => ({
  symbol,
  orderId: `o-${fillId}`,
  fillId,
  side,
  price: d(price),
  size: d(size),
  amount: d(price).mul(d(size)),
  fee: d(fee),
  timestampMs,
});

// A long of 0.2 BTC opened as taker, a take-profit resting as maker, a short of ETH, a spot fill (not futures), the
// BTC long liquidated; funding at three settlements (the last one booked late, after a gap in the data).
const fills = [
  fill('f1', 'cmt_btcusdt', 'buy', '90000', '0.2', '10.8', T0 + 1000),
  fill('f2', 'BTCUSDT_SPBL', 'buy', '90000', '0.01', '0.9', T0 + 2000),
  fill('f3', 'cmt_ethusdt', 'sell', '3000', '1', '0.6', T0 + 3000),
  fill('f4', 'cmt_btcusdt', 'sell', '91000', '0.1', '1.82', T0 + 4 * H),
  fill('f5', 'cmt_btcusdt', 'sell', '87250', '0.1', '5.235', T0 + 20 * H),
  fill('f6', 'cmt_ethusdt', 'buy', '3010', '1', '0.602', T0 + 21 * H),
];
const kinds = new Map<string, FillKind>([
  ['f1', { taker: true, liquidation: false, positionSide: 'long' }],
  ['f3', { taker: true, liquidation: false, positionSide: 'short' }],
  ['f4', { taker: false, liquidation: false, positionSide: 'long' }],
  ['f5', { taker: true, liquidation: true, positionSide: 'long' }],
]);
const ledger = [
  // 08:00: the BTC long pays, the ETH short receives (one entry each contract).
  funding('cmt_btcusdt', T0 + 8 * H, '-1.8'),
  funding('cmt_ethusdt', T0 + 8 * H, '0.3'),
  // 16:00 on BTC: a long and a short of one contract, opposite signs: one settlement.
  funding('cmt_btcusdt', T0 + 16 * H, '0.9'),
  funding('cmt_btcusdt', T0 + 16 * H, '-0.4'),
  // ETH's data lapsed over two settlements: both booked at its next tick, each at the rate of its own settlement.
  funding('cmt_ethusdt', T0 + 24 * H + 5000, '0.1'),
  funding('cmt_ethusdt', T0 + 24 * H + 5000, '0.2'),
];
const liquidation: LiquidationRecord = {
  symbol: 'cmt_btcusdt',
  side: 'long',
  atMs: T0 + 20 * H,
  size: d('0.1'),
  price: d('87250'),
  mark: d('87240.5'),
  pnl: d('-275'),
  fee: d('5.235'),
  orderId: 'o-f5',
};
const rates: Record<string, string> = { cmt_btcusdt: '0.0001', cmt_ethusdt: '0.00005' };
const rateAt = (symbol: string) => d(rates[symbol]!);

describe('funding rows', () => {
  it('carry the signed amount, the rate where one settlement explains them, and the side the sign implies', () => {
    const rows = fundingRows([...ledger].reverse(), rateAt);
    expect(
      rows.map((r) => (r.kind === 'funding' ? [r.symbol, (r.timestampMs - T0) / H, r.amount.toString(), r.rate?.toString() ?? null, r.positionSide] : null)),
    ).toEqual([
      ['cmt_btcusdt', 8, '-1.8', '0.0001', 'long'],
      ['cmt_ethusdt', 8, '0.3', '0.00005', 'short'],
      ['cmt_btcusdt', 16, '0.9', '0.0001', 'short'],
      ['cmt_btcusdt', 16, '-0.4', '0.0001', 'long'],
      // Two settlements at one instant, of one sign: which rate belongs to which is not certain.
      ['cmt_ethusdt', 24 + 5000 / H, '0.1', null, null],
      ['cmt_ethusdt', 24 + 5000 / H, '0.2', null, null],
    ]);
  });

  it('sit among the executions in time order in trades.csv, liquidations marked as such', () => {
    const rows = tradeCsvRows(realize(fills), kinds, fundingRows(ledger, rateAt));
    expect(
      rows.map((r) => [
        r.kind,
        r.kind === 'funding' ? r.timestampMs : r.trade.timestampMs,
        r.kind === 'funding' ? r.amount.toString() : r.trade.fillId,
        r.positionSide,
      ]),
    ).toEqual([
      ['fill', T0 + 1000, 'f1', 'long'],
      ['fill', T0 + 2000, 'f2', null],
      ['fill', T0 + 3000, 'f3', 'short'],
      ['fill', T0 + 4 * H, 'f4', 'long'],
      ['funding', T0 + 8 * H, '-1.8', 'long'],
      ['funding', T0 + 8 * H, '0.3', 'short'],
      ['funding', T0 + 16 * H, '0.9', 'short'],
      ['funding', T0 + 16 * H, '-0.4', 'long'],
      ['liquidation', T0 + 20 * H, 'f5', 'long'],
      ['fill', T0 + 21 * H, 'f6', null],
      ['funding', T0 + 24 * H + 5000, '0.1', null],
      ['funding', T0 + 24 * H + 5000, '0.2', null],
    ]);
  });
});

describe('the futures section of report.json', () => {
  const margin = (ts: number, rate: string | null, maintenance: string | null): EquityPoint => ({
    ts,
    equity: d('1000'),
    hold: d('1000'),
    marginRate: rate ? d(rate) : null,
    maintenanceRate: maintenance ? d(maintenance) : null,
  });
  const equity = [
    margin(T0, null, null),
    margin(T0 + H, '0.055', '0.025'),
    margin(T0 + 2 * H, '0.031', '0.025'),
    margin(T0 + 3 * H, '0.04', '0.03'),
    margin(T0 + 4 * H, null, null),
  ];
  const report = futuresReport({
    futures: new Set(['cmt_btcusdt', 'cmt_ethusdt']),
    funding: ledger,
    liquidations: [liquidation],
    trades: realize(fills),
    kinds,
    equity,
  });

  it('funding paid and received, in all and per contract', () => {
    expect(report.funding).toEqual({
      paid: '2.20000000',
      received: '1.50000000',
      net: '-0.70000000',
      settlements: 6,
      bySymbol: {
        cmt_btcusdt: { paid: '2.20000000', received: '0.90000000', net: '-1.30000000', settlements: 3 },
        cmt_ethusdt: { paid: '0.00000000', received: '0.60000000', net: '0.60000000', settlements: 3 },
      },
    });
  });

  it('fees by kind over futures executions only: maker, taker, liquidation; one without a kind is unclassified', () => {
    // f1 10.8 + f3 0.6 taker; f4 1.82 maker; f5 5.235 liquidation; f6 0.602 has no kind; the spot fill f2 is not counted.
    expect(report.fees).toEqual({ maker: '1.82000000', taker: '11.40000000', liquidation: '5.23500000', total: '19.05700000', unclassified: '0.60200000' });
    const classified = futuresReport({ futures: new Set(['cmt_btcusdt']), funding: [], liquidations: [], trades: realize(fills), kinds, equity: [] });
    expect(classified.fees).toEqual({ maker: '1.82000000', taker: '10.80000000', liquidation: '5.23500000', total: '17.85500000' });
  });

  it('each liquidation as the venue recorded it', () => {
    expect(report.liquidations).toEqual([
      {
        at: '2026-01-05T20:00:00.000Z',
        atMs: T0 + 20 * H,
        symbol: 'cmt_btcusdt',
        side: 'long',
        size: '0.1',
        price: '87250',
        mark: '87240.5',
        pnl: '-275.00000000',
        fee: '5.23500000',
        orderId: 'o-f5',
      },
    ]);
  });

  it('the margin rate at its least headroom over the maintenance rate, among the samples with a position', () => {
    // Headroom 0.03, 0.006, 0.01: the second sample with a position is the tightest (not the lowest rate alone).
    expect(report.margin).toEqual({
      samples: 3,
      tightest: { at: '2026-01-05T02:00:00.000Z', atMs: T0 + 2 * H, marginRate: '0.031', maintenanceRate: '0.025' },
    });
    expect(futuresReport({ futures: new Set(), funding: [], liquidations: [], trades: [], kinds: new Map(), equity: [margin(T0, null, null)] }).margin).toEqual(
      { samples: 0, tightest: null },
    );
  });
});

describe('collecting funding from the ledger as a run goes', () => {
  /** A ledger as F30 answers: the window's entries newest first, `limit` of them, `hasMore` when more match. */
  function ledgerOf(entries: LedgerEntry[], endInclusive: boolean): { read: LedgerReader; queries: Array<{ startMs?: number; endMs?: number }> } {
    const queries: Array<{ startMs?: number; endMs?: number }> = [];
    const read: LedgerReader = (q) => {
      queries.push({ ...(q.startMs !== undefined ? { startMs: q.startMs } : {}), ...(q.endMs !== undefined ? { endMs: q.endMs } : {}) });
      const match = entries
        .filter(
          (e) =>
            e.kind === q.kind &&
            e.timestampMs >= (q.startMs ?? -Infinity) &&
            (endInclusive ? e.timestampMs <= (q.endMs ?? Infinity) : e.timestampMs < (q.endMs ?? Infinity)),
        )
        .reverse();
      return { entries: match.slice(0, q.limit), hasMore: match.length > q.limit };
    };
    return { read, queries };
  }

  it.each([true, false])('reads every entry once, page by page, whatever the end bound means (inclusive: %s)', (endInclusive) => {
    // 300 entries, three an instant (pages of 100 end inside an instant), plus a non-funding entry.
    const entries: LedgerEntry[] = [];
    for (let k = 0; k < 100; k++) for (let j = 0; j < 3; j++) entries.push(funding(`c${j}`, T0 + k * 60_000, `0.${k}${j}`));
    entries.push({ ...funding('c0', T0, '1'), kind: 'fee' });
    const shown: LedgerEntry[] = [];
    const { read, queries } = ledgerOf(shown, endInclusive);
    const collector = new FundingCollector(read);
    // Half booked, a collection; the rest, another: the second asks from the first's time on.
    shown.push(...entries.slice(0, 150));
    collector.collect(T0 + 50 * 60_000 - 1);
    expect(collector.entries).toHaveLength(150);
    queries.length = 0;
    shown.push(...entries.slice(150));
    collector.collect(T0 + 100 * 60_000);
    expect(queries[0]).toEqual({ startMs: T0 + 50 * 60_000 - 1 });
    expect(collector.entries.map((e) => e.billId).sort()).toEqual(
      entries
        .filter((e) => e.kind === 'funding')
        .map((e) => e.billId)
        .sort(),
    );
  });
});
