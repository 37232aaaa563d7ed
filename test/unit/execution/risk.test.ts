// The risk gate: every rule denies with a reason and nothing is clamped; trading states; kill-switch latches
// survive a restart (a new gate on the same journal file) until an operator resets them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { diffTargets, type Intent, type OrderSpec } from '../../../src/domain/intent.js';
import type { Instrument } from '../../../src/domain/market.js';
import type { Order } from '../../../src/domain/order.js';
import { RiskGate, type RiskContext, type RiskLimits } from '../../../src/execution/risk.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';

const d = (s: string) => Decimal.from(s);
const dir = mkdtempSync(join(tmpdir(), 'sextant-risk-'));
const BTC: Instrument = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'BTCUSDT_SPBL')!);
const LIMITS: RiskLimits = {
  maxNotionalPerOrder: d('10000'), maxNotionalPerSymbol: d('25000'), maxOpenOrdersPerSymbol: 3, maxOpenOrdersPerStrategy: 4,
  priceBandPct: d('2'), staleAfterMs: 5000, maxOrdersPerMinute: 6, maxDrawdownPct: d('10'),
};

function ctx(over: Partial<RiskContext> = {}): RiskContext {
  return {
    now: 100_000,
    instrument: (s) => (s === BTC.symbol ? BTC : undefined),
    reference: () => ({ price: d('90000'), atMs: 99_000 }),
    openCount: () => 0,
    openCountByStrategy: () => 0,
    openNotional: () => Decimal.ZERO,
    ...over,
  };
}

const buy = (price: string, size = '0.01'): OrderSpec => ({ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d(price), size: d(size) });
const place = (...orders: OrderSpec[]): Extract<Intent, { kind: 'place' }> => ({ kind: 'place', strategyId: 's1', surface: 'spot', symbol: BTC.symbol, orders });

function gate(file = join(dir, `${Math.random()}.sqlite`)) {
  const journal = new SqliteJournal(file, { clientOidPrefix: 'sx' });
  return { journal, risk: new RiskGate(LIMITS, journal) };
}

describe('risk gate', () => {
  it('denies each rule with its reason, allows the rest of the batch', () => {
    const { risk } = gate();
    const { allowed, denials } = risk.checkPlace(
      place(
        buy('90000.05'), // off the tick
        buy('90000', '0.0000015'), // off the step
        buy('90000', '0.000001'), // below min size
        buy('80000'), // outside the 2 % band
        buy('89000', '0.2'), // 17,800 > max notional per order
        buy('89900'), // fine
      ),
      ctx(),
    );
    expect(denials.map((x) => x.reason)).toEqual(['off-tick', 'off-step', 'below-min-size', 'price-band', 'max-notional-order']);
    expect(allowed.map((o) => o.price!.toString())).toEqual(['89900']);
  });

  it('price band: the tighter of the configured one and the instrument limit ratio', () => {
    const { risk } = gate();
    const tight: Instrument = { ...BTC, buyLimitPriceRatio: d('0.005') };
    const r = risk.checkPlace(place(buy('89000')), ctx({ instrument: () => tight }));
    expect(r.denials[0]!.reason).toBe('price-band');
    expect(r.denials[0]!.detail).toMatch(/band 0.5 %/);
  });

  it('stale or missing reference prices stop new orders', () => {
    const { risk } = gate();
    expect(risk.checkPlace(place(buy('90000')), ctx({ reference: () => ({ price: d('90000'), atMs: 90_000 }) })).denials[0]!.reason).toBe('stale-price');
    expect(risk.checkPlace(place(buy('90000')), ctx({ reference: () => undefined })).denials[0]!.reason).toBe('no-reference-price');
  });

  it('open-order and notional limits count what is already open and what this batch adds', () => {
    const { risk } = gate();
    const r = risk.checkPlace(place(buy('89900'), buy('89900'), buy('89900')), ctx({ openCount: () => 1 }));
    expect(r.allowed).toHaveLength(2);
    expect(r.denials.map((x) => x.reason)).toEqual(['max-open-orders-symbol']);
    const n = risk.checkPlace(place(buy('89900', '0.1'), buy('89900', '0.1')), ctx({ openNotional: () => d('10000') }));
    expect(n.denials.map((x) => x.reason)).toEqual(['max-notional-symbol']);
  });

  it('reducing allows only what shrinks exposure; halted allows nothing new', () => {
    const { risk } = gate();
    risk.setState('reducing');
    const sell: OrderSpec = { side: 'sell', kind: 'limit', timeInForce: 'gtc', price: d('90100'), size: d('0.01') };
    const r = risk.checkPlace(place(buy('89900'), sell), ctx());
    expect(r.denials.map((x) => x.reason)).toEqual(['reducing']);
    expect(r.allowed).toEqual([sell]);
    risk.setState('halted');
    expect(risk.checkPlace(place(sell), ctx()).denials.map((x) => x.reason)).toEqual(['halted']);
  });

  it('the order-rate breaker trips, latches halted, and the latch survives a restart until reset', () => {
    const file = join(dir, 'latch.sqlite');
    const a = gate(file);
    const orders = Array.from({ length: 8 }, () => buy('89900', '0.001'));
    const r = a.risk.checkPlace(place(...orders), ctx({ instrument: () => ({ ...BTC }), openCount: () => 0 }));
    expect(r.allowed).toHaveLength(3); // max open orders per symbol is 3
    const more = a.risk.checkPlace(place(...Array.from({ length: 5 }, () => ({ ...buy('89900', '0.001'), kind: 'market' as const }))), ctx());
    expect(more.denials.map((x) => x.reason)).toContain('order-rate');
    expect(a.risk.state()).toBe('halted');
    a.journal.close();
    const b = gate(file);
    expect(b.risk.state()).toBe('halted');
    expect(b.risk.latchReason()).toMatch(/order-rate/);
    b.risk.reset();
    expect(b.risk.state()).toBe('active');
    b.journal.close();
  });

  it('the drawdown kill switch latches at the configured drawdown from the peak', () => {
    const file = join(dir, 'dd.sqlite');
    const a = gate(file);
    expect(a.risk.onEquity(d('100000'), 1)).toBe(false);
    expect(a.risk.onEquity(d('120000'), 2)).toBe(false);
    expect(a.risk.onEquity(d('108001'), 3)).toBe(false); // 9.999 %
    expect(a.risk.onEquity(d('108000'), 4)).toBe(true); // 10 %
    a.journal.close();
    const b = gate(file);
    expect(b.risk.state()).toBe('halted');
    expect(b.risk.checkPlace(place(buy('89900')), ctx()).denials[0]!.detail).toMatch(/drawdown 10 %/);
    b.journal.close();
  });
});

describe('target orders', () => {
  const open = (price: string, size: string, filled = '0'): Order => ({
    surface: 'spot', symbol: 'X', orderId: price, clientOid: null, side: 'buy', positionSide: null, reduceOnly: false, kind: 'limit', timeInForce: 'gtc',
    price: d(price), size: d(size), filledSize: d(filled), avgFillPrice: null, fee: null, status: 'open', rawStatus: 'open', rawType: 'limit', createdAtMs: 0, updatedAtMs: 0,
  });
  it('keeps matching orders, cancels the rest, places what is missing', () => {
    const r = diffTargets([buy('100', '1'), buy('99', '1'), buy('98', '2')], [open('100', '1'), open('99', '2', '1'), open('97', '1'), open('100', '1')]);
    expect(r.cancel.map((o) => o.orderId).sort()).toEqual(['100', '97']);
    expect(r.place.map((o) => o.price!.toString())).toEqual(['98']);
  });
});
