// The risk gate: every rule denies with a reason and nothing is clamped; malformed, oversized and non-positive
// orders and untrusted or stale references are refused; trading states; kill-switch latches survive a restart
// (a new gate on the same journal file) until an operator resets them, and a reset from another process reaches
// a running gate.
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
const ETH: Instrument = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'cmt_ethusdt')!);
const LIMITS: RiskLimits = {
  maxNotionalPerOrder: d('10000'),
  maxNotionalPerSymbol: d('25000'),
  maxOpenOrdersPerSymbol: 3,
  maxOpenOrdersPerStrategy: 4,
  priceBandPct: d('2'),
  staleAfterMs: 5000,
  maxOrdersPerMinute: 6,
  maxDrawdownPct: d('10'),
  maxOrdersPerIntent: 10,
  outlierPct: d('20'),
};

function ctx(over: Partial<RiskContext> = {}): RiskContext {
  return {
    now: 100_000,
    instrument: (s) => (s === BTC.symbol ? BTC : s === ETH.symbol ? ETH : undefined),
    reference: () => ({ price: d('90000'), atMs: 99_000 }),
    openCount: () => 0,
    openCountByStrategy: () => 0,
    openNotional: () => Decimal.ZERO,
    ...over,
  };
}

const buy = (price: string, size = '0.01'): OrderSpec => ({ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d(price), size: d(size) });
const place = (...orders: OrderSpec[]): Extract<Intent, { kind: 'place' }> => ({
  kind: 'place',
  strategyId: 's1',
  surface: 'spot',
  symbol: BTC.symbol,
  orders,
});

const futures = (...orders: OrderSpec[]): Extract<Intent, { kind: 'place' }> => ({
  kind: 'place',
  strategyId: 's1',
  surface: 'futures',
  symbol: ETH.symbol,
  orders,
});
const ethLong = (price: string, size = '0.01'): OrderSpec => ({
  side: 'buy',
  kind: 'limit',
  timeInForce: 'gtc',
  price: d(price),
  size: d(size),
  positionSide: 'long',
});
const at =
  (price: string, atMs = 99_000, sourceAdvancedAtMs?: number) =>
  () => ({ price: d(price), atMs, ...(sourceAdvancedAtMs === undefined ? {} : { sourceAdvancedAtMs }) });
const reasons = (r: { denials: Array<{ reason: string }> }) => r.denials.map((x) => x.reason);

let files = 0;
function gate(file = join(dir, `gate-${files++}.sqlite`), limits: RiskLimits = LIMITS) {
  const journal = new SqliteJournal(file, { clientOidPrefix: 'sx' });
  return { journal, risk: new RiskGate(limits, journal) };
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
    const market = () => ({ ...buy('89900', '0.001'), kind: 'market' as const });
    a.risk.recordSent(5, 99_000);
    const more = a.risk.checkPlace(place(market(), market()), ctx());
    expect(reasons(more)).toEqual(['order-rate']);
    expect(more.allowed).toHaveLength(1); // the 6th order of the minute; the 7th trips the breaker
    expect(a.risk.state()).toBe('halted');
    a.journal.close();
    const b = gate(file);
    expect(b.risk.state()).toBe('halted');
    expect(b.risk.latchReason()).toMatch(/order-rate/);
    b.risk.reset();
    expect(b.risk.state()).toBe('active');
    b.journal.close();
  });

  it('the order-rate breaker counts orders reported sent, not orders checked; the window is a minute', () => {
    const { risk } = gate();
    const market = () => ({ ...buy('89900', '0.001'), kind: 'market' as const });
    // Checked again and again (denied by the venue, or never sent): nothing counts.
    for (let k = 0; k < 10; k++) expect(risk.checkPlace(place(market(), market(), market()), ctx()).allowed).toHaveLength(3);
    expect(risk.state()).toBe('active');
    risk.recordSent(4, 50_000);
    risk.recordSent(0, 60_000);
    expect(reasons(risk.checkPlace(place(market(), market()), ctx()))).toEqual([]);
    expect(reasons(risk.checkPlace(place(market(), market(), market()), ctx()))).toEqual(['order-rate']);
    risk.reset();
    risk.recordSent(6, 40_000);
    // A minute after those were sent they no longer count.
    expect(reasons(risk.checkPlace(place(market()), ctx({ now: 100_000 })))).toEqual([]);
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

describe('risk gate: what an adversarial strategy or market sends (K1, K2, K5, K6, K7)', () => {
  it('a missing, zero or negative reference price means no order: fat fingers do not pass a disabled band', () => {
    const { risk } = gate();
    // ETH near 3,000 with its reference negated: 5,000 and 30,000 USDT orders.
    const fat = risk.checkPlace(futures(ethLong('5000'), ethLong('30000')), ctx({ reference: at('-3000') }));
    expect(fat.allowed).toEqual([]);
    expect(reasons(fat)).toEqual(['no-reference-price', 'no-reference-price']);
    expect(fat.denials[0]!.detail).toMatch(/not positive/);
    // A spot order priced off a negated reference.
    const neg = risk.checkPlace(place(buy('-92406.7')), ctx({ reference: at('-92406.7') }));
    expect(neg.allowed).toEqual([]);
    expect(reasons(neg)).toEqual(['no-reference-price']);
    expect(reasons(risk.checkPlace(place(buy('90000')), ctx({ reference: at('0') })))).toEqual(['no-reference-price']);
    expect(reasons(risk.checkPlace(place(buy('90000')), ctx({ reference: () => undefined })))).toEqual(['no-reference-price']);
  });

  it('non-positive prices and sizes are refused, whatever the kind; trigger and execute prices too', () => {
    const { risk } = gate();
    const market = (price: string | undefined, size = '0.01'): OrderSpec => ({
      side: 'buy',
      kind: 'market',
      timeInForce: 'ioc',
      ...(price ? { price: d(price) } : {}),
      size: d(size),
    });
    const r = risk.checkPlace(
      place(buy('-90000'), buy('0'), buy('90000', '0'), buy('90000', '-0.01'), market('-1'), market(undefined, '-0.01'), market(undefined)),
      ctx(),
    );
    expect(reasons(r)).toEqual([
      'non-positive-price',
      'non-positive-price',
      'non-positive-size',
      'non-positive-size',
      'non-positive-price',
      'non-positive-size',
    ]);
    expect(r.allowed).toHaveLength(1);
    const trigger = (triggerPrice: string, executePrice?: string): Extract<Intent, { kind: 'place-trigger' }> => ({
      kind: 'place-trigger',
      strategyId: 's1',
      symbol: ETH.symbol,
      positionSide: 'long',
      reduceOnly: true,
      size: d('0.01'),
      triggerPrice: d(triggerPrice),
      ...(executePrice ? { executePrice: d(executePrice) } : {}),
    });
    const eth = ctx({ reference: at('3000') });
    expect(risk.checkTrigger(trigger('-2950', '2950'), eth).map((x) => x.reason)).toEqual(['non-positive-price']);
    expect(risk.checkTrigger(trigger('0', '2950'), eth).map((x) => x.reason)).toEqual(['non-positive-price']);
    expect(risk.checkTrigger(trigger('2950', '-2950'), eth).map((x) => x.reason)).toEqual(['non-positive-price']);
    expect(risk.checkTrigger(trigger('2950', '2950'), eth)).toEqual([]);
  });

  it('a market order is valued at the reference price, not at a price it carries (the venue ignores that)', () => {
    const { risk } = gate();
    const cheap: OrderSpec = { side: 'buy', kind: 'market', timeInForce: 'ioc', price: d('1'), size: d('0.5') }; // 45,000 USDT at 90,000
    expect(reasons(risk.checkPlace(place(cheap), ctx()))).toEqual(['max-notional-order']);
  });

  it('malformed orders (unknown kind, side, time in force, position side; numbers for decimals) are denied', () => {
    const { risk } = gate();
    const bad = (over: Record<string, unknown>) => ({ ...buy('89900'), ...over }) as unknown as OrderSpec;
    const r = risk.checkPlace(
      place(
        bad({ kind: 'stop' }),
        bad({ side: 'hold' }),
        bad({ timeInForce: 'day' }),
        bad({ positionSide: 'both' }),
        bad({ price: 89900 }),
        bad({ size: '0.01' }),
        bad({ reduceOnly: 'yes' }),
        null as unknown as OrderSpec,
        buy('89900'),
      ),
      ctx(),
    );
    expect(reasons(r)).toEqual(Array(8).fill('malformed-order'));
    expect(r.denials[0]!.detail).toMatch(/kind "stop"/);
    expect(r.allowed).toEqual([buy('89900')]);
    // null for an optional field is taken as absent.
    const nulls = bad({ kind: 'market', timeInForce: 'ioc', price: null, positionSide: null, reduceOnly: null });
    expect(risk.checkPlace(place(nulls), ctx()).allowed).toEqual([nulls]);
    const futuresWrong = risk.checkPlace(futures({ ...ethLong('3000'), positionSide: 'both' as unknown as 'long' }), ctx({ reference: at('3000') }));
    expect(reasons(futuresWrong)).toEqual(['malformed-order']);
    // A place intent on the wrong surface, or without a list of orders: one denial for the intent.
    expect(reasons(risk.checkPlace({ ...place(buy('89900')), surface: 'futures' }, ctx()))).toEqual(['malformed-order']);
    const noList = risk.checkPlace({ ...place(), orders: 'all of them' as unknown as OrderSpec[] }, ctx());
    expect(noList.denials).toEqual([{ order: null, reason: 'malformed-order', detail: expect.stringMatching(/not a list/) }]);
    const trigger = {
      kind: 'place-trigger',
      strategyId: 's1',
      symbol: ETH.symbol,
      positionSide: 'long',
      reduceOnly: 'no',
      size: d('0.01'),
      triggerPrice: d('2950'),
    } as unknown as Extract<Intent, { kind: 'place-trigger' }>;
    expect(risk.checkTrigger(trigger, ctx({ reference: at('3000') })).map((x) => x.reason)).toEqual(['malformed-order']);
  });

  it('an intent with more orders than maxOrdersPerIntent is denied whole, with one denial', () => {
    const { risk } = gate();
    const orders = Array.from({ length: 10_000 }, () => buy('89900', '0.001'));
    const r = risk.checkPlace(place(...orders), ctx());
    expect(r.allowed).toEqual([]);
    expect(r.denials).toEqual([{ order: null, reason: 'too-many-orders', detail: '10000 orders in one intent (limit 10)' }]);
    expect(reasons(risk.checkPlace(place(...orders.slice(0, 10)), ctx())).every((x) => x !== 'too-many-orders')).toBe(true);
  });

  it('a reference whose venue timestamp stopped advancing is stale, however fresh the poll', () => {
    const { risk } = gate();
    // Polled a second ago; the venue's own timestamp last moved 40 s ago (local clock).
    const frozen = risk.checkPlace(place(buy('90000')), ctx({ reference: at('90000', 99_000, 60_000) }));
    expect(reasons(frozen)).toEqual(['stale-price']);
    expect(frozen.denials[0]!.detail).toMatch(/has not advanced for 40000 ms/);
    expect(reasons(risk.checkPlace(place(buy('90000')), ctx({ reference: at('90000', 99_000, 96_000) })))).toEqual([]);
    expect(reasons(risk.checkPlace(place(buy('90000')), ctx({ reference: at('90000', 90_000, 99_000) })))).toEqual(['stale-price']);
  });

  it('a reset by another process (the CLI) reaches the running gate: no re-latch from a fake equity peak', () => {
    const file = join(dir, 'reset.sqlite');
    const daemon = gate(file);
    expect(daemon.risk.onEquity(d('100000'), 1)).toBe(false);
    expect(daemon.risk.onEquity(d('1000000'), 2)).toBe(false); // a spike
    expect(daemon.risk.onEquity(d('100000'), 3)).toBe(true);
    expect(daemon.risk.state()).toBe('halted');
    // `sextant risk reset`: its own journal connection, its own gate.
    const cli = gate(file);
    cli.risk.reset();
    cli.journal.close();
    // The next equity readings start a new peak: nothing latches again (the gate noticed without a state() call).
    for (let k = 0; k < 20; k++) expect(daemon.risk.onEquity(d('100000'), 10 + k)).toBe(false);
    expect(daemon.risk.state()).toBe('active');
    expect(daemon.risk.onEquity(d('89999'), 40)).toBe(true); // the new peak is the real one
    daemon.journal.close();
  });

  it("a reset by another process also clears the running gate's order-rate window", () => {
    const file = join(dir, 'reset-rate.sqlite');
    const daemon = gate(file);
    const market = () => ({ ...buy('89900', '0.001'), kind: 'market' as const });
    daemon.risk.recordSent(6, 99_000);
    expect(reasons(daemon.risk.checkPlace(place(market()), ctx()))).toEqual(['order-rate']);
    const cli = gate(file);
    cli.risk.reset();
    cli.journal.close();
    expect(daemon.risk.state()).toBe('active');
    expect(reasons(daemon.risk.checkPlace(place(market()), ctx()))).toEqual([]);
    daemon.journal.close();
  });
});

describe('trading-state changes', () => {
  const told = (risk: RiskGate) => {
    const seen: Array<{ atMs: number; state: string; reason: string }> = [];
    risk.tradingStates$.subscribe((e) => seen.push({ atMs: e.atMs, state: e.state, reason: e.reason }));
    return seen;
  };

  it('a trip is told once, with its latch and reason; a reset by another process is told when the gate notices it', () => {
    const file = join(dir, 'told-rate.sqlite');
    const daemon = gate(file);
    const seen = told(daemon.risk);
    const market = () => ({ ...buy('89900', '0.001'), kind: 'market' as const });
    daemon.risk.recordSent(6, 99_000);
    expect(reasons(daemon.risk.checkPlace(place(market(), market()), ctx()))).toEqual(['order-rate', 'order-rate']);
    expect(reasons(daemon.risk.checkPlace(place(market()), ctx()))).toEqual(['halted']);
    expect(seen).toEqual([{ atMs: 100_000, state: 'halted', reason: 'kill-switch:order-rate: more than 6 orders in a minute' }]);
    const cli = gate(file);
    cli.risk.reset();
    cli.journal.close();
    expect(seen).toHaveLength(1); // not noticed yet
    expect(daemon.risk.onEquity(d('1000'), 120_000)).toBe(false);
    expect(seen.slice(1)).toEqual([{ atMs: 120_000, state: 'active', reason: 'kill-switch:order-rate reset' }]);
    daemon.risk.state();
    expect(seen).toHaveLength(2);
    daemon.journal.close();
  });

  it('the drawdown trip, a latch left by an earlier run, and an in-process reset are told', () => {
    const file = join(dir, 'told-drawdown.sqlite');
    const first = gate(file);
    const seen = told(first.risk);
    first.risk.onEquity(d('1000'), 1);
    expect(first.risk.onEquity(d('800'), 2)).toBe(true);
    expect(seen).toEqual([{ atMs: 2, state: 'halted', reason: 'kill-switch:drawdown: drawdown 20 % from peak 1000' }]);
    first.journal.close();
    // A restart: the new gate tells the latch it finds, with the clock's time.
    const journal = new SqliteJournal(file, { clientOidPrefix: 'sx' });
    const restarted = new RiskGate(LIMITS, journal, { now: () => 5000 });
    const after = told(restarted);
    expect(restarted.state()).toBe('halted');
    expect(after).toEqual([{ atMs: 5000, state: 'halted', reason: 'kill-switch:drawdown: drawdown 20 % from peak 1000' }]);
    restarted.reset();
    expect(after.slice(1)).toEqual([{ atMs: 5000, state: 'active', reason: 'kill-switch:drawdown reset' }]);
    restarted.setState('reducing');
    expect(after.slice(2)).toEqual([{ atMs: 5000, state: 'reducing', reason: 'operator set reducing' }]);
    restarted.state();
    expect(after).toHaveLength(3);
    journal.close();
  });
});

describe('target orders', () => {
  const open = (price: string, size: string, filled = '0'): Order => ({
    surface: 'spot',
    symbol: 'X',
    orderId: price,
    clientOid: null,
    side: 'buy',
    positionSide: null,
    reduceOnly: false,
    kind: 'limit',
    timeInForce: 'gtc',
    price: d(price),
    size: d(size),
    filledSize: d(filled),
    avgFillPrice: null,
    fee: null,
    status: 'open',
    rawStatus: 'open',
    rawType: 'limit',
    createdAtMs: 0,
    updatedAtMs: 0,
  });
  it('keeps matching orders, cancels the rest, places what is missing', () => {
    const r = diffTargets([buy('100', '1'), buy('99', '1'), buy('98', '2')], [open('100', '1'), open('99', '2', '1'), open('97', '1'), open('100', '1')]);
    expect(r.cancel.map((o) => o.orderId).sort()).toEqual(['100', '97']);
    expect(r.place.map((o) => o.price!.toString())).toEqual(['98']);
  });
});
