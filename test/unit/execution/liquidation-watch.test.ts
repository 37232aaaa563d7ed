// The distance to liquidation of futures positions: the venue's estimate when a position carries one, else the
// cross-margin estimate from the collateral, every position and the marks (domain/margin.ts); the margin rates;
// worked out again whenever positions, balances or tickers update.
import { describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import { Decimal } from '../../../src/domain/decimal.js';
import { DEFAULT_MAINTENANCE_TIERS, crossMargin, liquidationPrice, type MarginPosition } from '../../../src/domain/margin.js';
import type { Balance, Instrument, Position, Ticker } from '../../../src/domain/market.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { closest, liquidationView, watchLiquidation, type LiquidationRules, type LiquidationView } from '../../../src/execution/liquidation-watch.js';

const d = (s: string) => Decimal.from(s);
const inst = (symbol: string): Instrument => toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === symbol)!);
const BTC = inst('cmt_btcusdt');
const ETH = inst('cmt_ethusdt');
const INSTRUMENTS = new Map([BTC, ETH].map((i) => [i.symbol, i]));
const RULES: LiquidationRules = { tiers: DEFAULT_MAINTENANCE_TIERS, trigger: 'maintenance' };

function position(symbol: string, side: 'long' | 'short', size: string, openValue: string, over: Partial<Position> = {}): Position {
  return {
    symbol,
    side,
    size: d(size),
    openValue: d(openValue),
    entryPrice: d(openValue).div(d(size), 12),
    leverage: d('20'),
    marginMode: 'SHARED',
    isolatedMargin: null,
    openFee: null,
    fundingFee: null,
    updatedAtMs: 1,
    ...over,
  };
}
const collateral = (amount: string): Balance => ({ surface: 'futures', asset: 'USDT', available: null, frozen: null, total: d(amount) });
function ticker(symbol: string, last: string | null, mark: string | null = null): Ticker {
  return {
    symbol,
    last: last === null ? null : d(last),
    bestBid: null,
    bestAsk: null,
    markPrice: mark === null ? null : d(mark),
    indexPrice: null,
    high24h: null,
    low24h: null,
    volume24h: null,
    baseVolume24h: null,
    timestampMs: 1,
  };
}
const tickers = (...ts: Ticker[]) => new Map(ts.map((t) => [t.symbol, t]));
const view = (positions: readonly Position[], balances: readonly Balance[], ts: Map<string, Ticker>, rules = RULES) =>
  liquidationView({ positions, balances, tickers: ts, instruments: INSTRUMENTS, rules }, 7);

describe("the distance to liquidation from the venue's estimate", () => {
  it('a long: (mark − liquidation) / mark; a short: (liquidation − mark) / mark; at or past it: 0', () => {
    const v = view(
      [
        position(BTC.symbol, 'long', '0.1', '5000', { liquidationPrice: d('45000') }),
        position(ETH.symbol, 'short', '1', '3000', { liquidationPrice: d('3300') }),
      ],
      [],
      tickers(ticker(BTC.symbol, '50000'), ticker(ETH.symbol, '3000')),
    );
    expect(v.distances.map((x) => [x.symbol, x.side, x.distancePct?.toString(), x.source])).toEqual([
      [BTC.symbol, 'long', '10', 'venue'],
      [ETH.symbol, 'short', '10', 'venue'],
    ]);
    const past = view([position(BTC.symbol, 'long', '0.1', '5000', { liquidationPrice: d('51000') })], [], tickers(ticker(BTC.symbol, '50000')));
    expect(past.distances[0]!.distancePct?.toString()).toBe('0');
    expect(v.atMs).toBe(7);
  });

  it("no liquidation price (null, or the venue's 0: low risk): no distance, and the closest ignores it", () => {
    const v = view(
      [position(BTC.symbol, 'long', '0.1', '5000', { liquidationPrice: null }), position(ETH.symbol, 'short', '1', '3000', { liquidationPrice: d('0') })],
      [],
      tickers(ticker(BTC.symbol, '50000'), ticker(ETH.symbol, '3000')),
    );
    expect(v.distances.map((x) => [x.symbol, x.liquidationPrice, x.distancePct])).toEqual([
      [BTC.symbol, null, null],
      [ETH.symbol, null, null],
    ]);
    expect(closest(v.distances)).toBeUndefined();
  });

  it("the mark is the ticker's mark price, else its last price, else the position's own mark", () => {
    const long = (over: Partial<Position> = {}) => [position(BTC.symbol, 'long', '0.1', '5000', { liquidationPrice: d('40000'), ...over })];
    expect(view(long(), [], tickers(ticker(BTC.symbol, '50000', '40400'))).distances[0]!.distancePct?.toString()).toBe('0.990099');
    expect(view(long(), [], tickers(ticker(BTC.symbol, '50000'))).distances[0]!.mark.toString()).toBe('50000');
    expect(view(long({ markPrice: d('44000') }), [], tickers()).distances[0]!.mark.toString()).toBe('44000');
    expect(view(long(), [], tickers()).distances).toEqual([]);
  });
});

describe('the distance to liquidation worked out from the cross account', () => {
  it("one long: the venue's formula at the tier of its size, rounded up to the tick; the margin rates", () => {
    // 1000 USDT backs 0.1 BTC (1000 contracts: the 2.5 % tier) opened at 50000: maintenance 125;
    // 50000 − (1000 − 125) / (0.1 × 0.975) = 41025.641… → 41025.7 on the tick.
    const v = view([position(BTC.symbol, 'long', '0.1', '5000')], [collateral('1000')], tickers(ticker(BTC.symbol, '50000')));
    expect(v.distances).toEqual([
      { symbol: BTC.symbol, side: 'long', mark: d('50000'), liquidationPrice: d('41025.7'), distancePct: d('17.9486'), source: 'estimate' },
    ]);
    expect([v.marginRate?.toString(), v.maintenanceRate?.toString()]).toEqual(['0.2', '0.025']);
  });

  it('agrees with domain/margin.ts for a book of positions: the net of each contract, every position backed by the same collateral', () => {
    const positions = [position(BTC.symbol, 'long', '0.3', '15300'), position(BTC.symbol, 'short', '0.1', '5050'), position(ETH.symbol, 'short', '2', '6100')];
    const v = view(
      positions,
      [collateral('2500'), { ...collateral('9'), surface: 'spot' }],
      tickers(ticker(BTC.symbol, '49000', '50000'), ticker(ETH.symbol, '3000')),
    );
    const margin = (p: Position, mark: string): MarginPosition => ({
      side: p.side,
      size: p.size,
      openValue: p.openValue,
      mark: d(mark),
      contractValue: INSTRUMENTS.get(p.symbol)!.contractValue!,
    });
    const all = [margin(positions[0]!, '50000'), margin(positions[1]!, '50000'), margin(positions[2]!, '3000')];
    const rules = { ...RULES, closeFeeRate: d('0.0006') };
    const account = crossMargin(d('2500'), all, rules);
    const btc = liquidationPrice(account, all.slice(0, 2), rules)!.roundToStep(BTC.tickSize, 'up');
    const eth = liquidationPrice(account, all.slice(2), rules)!.roundToStep(ETH.tickSize, 'down');
    expect(v.distances.map((x) => [x.symbol, x.side, x.liquidationPrice?.toString()])).toEqual([
      [BTC.symbol, 'long', btc.toString()],
      [ETH.symbol, 'short', eth.toString()],
    ]);
    expect(v.marginRate).toEqual(account.marginRate);
    expect(v.maintenanceRate).toEqual(account.maintenanceRate);
    expect(closest(v.distances)!.distancePct!.lte(closest(v.distances, ETH.symbol)!.distancePct!)).toBe(true);
  });

  it('maintenance-plus-fee counts the taker rate: liquidation comes sooner', () => {
    const args = [[position(BTC.symbol, 'long', '0.1', '5000')], [collateral('1000')], tickers(ticker(BTC.symbol, '50000'))] as const;
    const plain = view(...args).distances[0]!.liquidationPrice!;
    const withFee = view(...args, { ...RULES, trigger: 'maintenance-plus-fee' }).distances[0]!.liquidationPrice!;
    expect(withFee.gt(plain)).toBe(true);
  });

  it("nothing is estimated without the collateral, or while a position has no mark; a position with the venue's estimate keeps it", () => {
    const long = position(BTC.symbol, 'long', '0.1', '5000');
    expect(view([long], [], tickers(ticker(BTC.symbol, '50000')))).toEqual({ distances: [], marginRate: null, maintenanceRate: null, atMs: 7 });
    const venue = position(ETH.symbol, 'short', '1', '3000', { liquidationPrice: d('3300') });
    const noMark = view([long, venue], [collateral('1000')], tickers(ticker(ETH.symbol, '3000')));
    expect(noMark.distances.map((x) => x.source)).toEqual(['venue']);
    expect(noMark.marginRate).toBeNull();
    // Both marks known: the venue's estimate for ETH, an estimate for BTC; the account counts both.
    const both = view([long, venue], [collateral('1000')], tickers(ticker(BTC.symbol, '50000'), ticker(ETH.symbol, '3000')));
    expect(both.distances.map((x) => [x.symbol, x.source])).toEqual([
      [ETH.symbol, 'venue'],
      [BTC.symbol, 'estimate'],
    ]);
    expect(both.marginRate?.toString()).toBe('0.125');
  });

  it('a contract flat net (long and short of the same size): no liquidation price of its own', () => {
    const v = view(
      [position(BTC.symbol, 'long', '0.1', '5000'), position(BTC.symbol, 'short', '0.1', '5000')],
      [collateral('1000')],
      tickers(ticker(BTC.symbol, '50000')),
    );
    expect(v.distances).toEqual([]);
    expect(v.marginRate?.toString()).toBe('0.1');
  });
});

describe('the watch over the streams', () => {
  it('hands a reading of the view once every stream has said something, and again at each update; flat, once', () => {
    const positions$ = new Subject<{ value: Position[]; atMs: number }>();
    const balances$ = new Subject<{ value: Balance[]; atMs: number }>();
    const tickers$ = new Subject<{ value: Map<string, Ticker>; atMs: number }>();
    const seen: LiquidationView[] = [];
    const sub = watchLiquidation({ positions$, balances$, tickers$ }, INSTRUMENTS, RULES, (read) => seen.push(read()));
    positions$.next({ value: [position(BTC.symbol, 'long', '0.1', '5000')], atMs: 10 });
    balances$.next({ value: [collateral('1000')], atMs: 11 });
    expect(seen).toEqual([]);
    tickers$.next({ value: tickers(ticker(BTC.symbol, '50000')), atMs: 12 });
    expect(seen.map((v) => [v.atMs, v.distances[0]?.distancePct?.toString()])).toEqual([[12, '17.9486']]);
    tickers$.next({ value: tickers(ticker(BTC.symbol, '42000')), atMs: 13 });
    balances$.next({ value: [collateral('5000')], atMs: 14 });
    expect(seen.map((v) => v.atMs)).toEqual([12, 13, 14]);
    expect(seen[1]!.distances[0]!.distancePct!.lt(d('3'))).toBe(true);
    sub.unsubscribe();
    tickers$.next({ value: tickers(ticker(BTC.symbol, '50000')), atMs: 15 });
    expect(seen).toHaveLength(3);
  });

  it('works the view out only when it is read, once per update', () => {
    const positions$ = new Subject<{ value: Position[]; atMs: number }>();
    const balances$ = new Subject<{ value: Balance[]; atMs: number }>();
    const tickers$ = new Subject<{ value: Map<string, Ticker>; atMs: number }>();
    const reads: Array<() => LiquidationView> = [];
    const sub = watchLiquidation({ positions$, balances$, tickers$ }, INSTRUMENTS, RULES, (read) => reads.push(read));
    positions$.next({ value: [position(BTC.symbol, 'long', '0.1', '5000')], atMs: 10 });
    balances$.next({ value: [collateral('1000')], atMs: 11 });
    tickers$.next({ value: tickers(ticker(BTC.symbol, '50000')), atMs: 12 });
    tickers$.next({ value: tickers(ticker(BTC.symbol, '42000')), atMs: 13 });
    expect(reads).toHaveLength(2);
    // Each reading is of its own update, the same object when read again.
    expect(reads[0]!()).toBe(reads[0]!());
    expect(reads[0]!().distances[0]!.mark.toString()).toBe('50000');
    expect(reads[1]!().distances[0]!.mark.toString()).toBe('42000');
    // Flat: the empty view once, however often the streams say so.
    positions$.next({ value: [], atMs: 14 });
    tickers$.next({ value: tickers(ticker(BTC.symbol, '43000')), atMs: 15 });
    balances$.next({ value: [collateral('1000')], atMs: 16 });
    expect(reads).toHaveLength(3);
    expect(reads[2]!()).toEqual({ distances: [], marginRate: null, maintenanceRate: null, atMs: 14 });
    sub.unsubscribe();
  });
});
