// The trading loop: each strategy sees the orders it placed at once (resting journal rows merged with the polled
// list); equity and reference prices come from trusted prices only (a negated or ×10 sample latches nothing and
// prices no order); a ticker whose own timestamp froze is stale however often the poll succeeds.
import { describe, expect, it } from '@jest/globals';
import { Subject } from 'rxjs';
import type { Stamped } from '../../../src/data/poll.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { Intent, OrderSpec } from '../../../src/domain/intent.js';
import type { Balance, Instrument, Position, Ticker } from '../../../src/domain/market.js';
import type { Order } from '../../../src/domain/order.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import type { Executor } from '../../../src/execution/executor.js';
import { RiskGate, type RiskLimits } from '../../../src/execution/risk.js';
import type { JournalOrder, OrderState } from '../../../src/journal/journal.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { defineStrategy, z, type MarketUpdate, type StrategyDefinition } from '../../../src/strategy/api.js';
import { StrategyRunner } from '../../../src/strategy/runner.js';
import { LatestTickers, startTradingLoop } from '../../../src/app/trading-loop.js';
import { ManualClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { journalRow } from '../../fixtures/journal-row.js';

const d = (s: string) => Decimal.from(s);
const instruments: Map<string, Instrument> = new Map(DEFAULT_INSTRUMENTS.map((s) => [s.symbol, toInstrument(s)]));
const BTC = 'BTCUSDT_SPBL';
const ETH = 'cmt_ethusdt';
const LIMITS: RiskLimits = {
  maxNotionalPerOrder: d('100000'),
  maxNotionalPerSymbol: d('1000000'),
  maxOpenOrdersPerSymbol: 100,
  maxOpenOrdersPerStrategy: 100,
  priceBandPct: d('5'),
  staleAfterMs: 10_000,
  maxOrdersPerMinute: 1000,
  maxDrawdownPct: d('10'),
  maxOrdersPerIntent: 50,
  outlierPct: d('20'),
};

const ticker = (symbol: string, last: string, venueMs: number): Ticker => ({
  symbol,
  last: d(last),
  bestBid: null,
  bestAsk: null,
  markPrice: null,
  indexPrice: null,
  high24h: null,
  low24h: null,
  volume24h: null,
  baseVolume24h: null,
  timestampMs: venueMs,
});

/** A journal row as the executor writes it. */
function row(journal: SqliteJournal, strategyId: string, over: Partial<JournalOrder>): JournalOrder {
  const [clientOid] = journal.nextClientOids(strategyId, 1);
  return journalRow(clientOid!, { strategyId, symbol: BTC, timeInForce: 'post_only', price: '89000', size: '0.01', createdAtMs: 0, updatedAtMs: 0, ...over });
}

/** The venue's record of a journal row. */
function polled(r: JournalOrder, over: Partial<Order> = {}): Order {
  return {
    surface: r.surface,
    symbol: r.symbol,
    orderId: r.orderId ?? '1',
    clientOid: r.clientOid,
    side: r.side,
    positionSide: null,
    reduceOnly: false,
    kind: 'limit',
    timeInForce: 'post_only',
    price: d(r.price!),
    size: d(r.size),
    filledSize: Decimal.ZERO,
    avgFillPrice: null,
    fee: null,
    status: 'open',
    rawStatus: 'live',
    rawType: 'limit',
    createdAtMs: 0,
    updatedAtMs: 0,
    ...over,
  };
}

const erase = <P>(def: StrategyDefinition<P>) => def as unknown as StrategyDefinition<unknown>;

function setup(o: {
  strategies: Array<{ id: string; symbols: string[]; def: StrategyDefinition<unknown> }>;
  submit?: (intent: Intent) => Promise<void>;
  executor?: Executor;
  yieldAfterIntent?: () => Promise<void>;
  accountFirst?: boolean;
}) {
  const journal = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
  const clock = new ManualClock(1_000_000);
  const risk = new RiskGate(LIMITS, journal);
  const runner = new StrategyRunner({
    instances: o.strategies.map((s) => ({ cfg: { id: s.id, name: s.def.name, symbols: s.symbols, params: {} }, def: s.def })),
    instruments,
    logger: silentLogger,
    maxErrors: 3,
  });
  const events$ = new Subject<ExecutionEvent>();
  const executor = o.executor ?? ({ events$, submit: async (intent: Intent) => (await o.submit?.(intent), []) } as unknown as Executor);
  const streams = {
    tickers$: new Subject<Stamped<Map<string, Ticker>>>(),
    openOrders$: new Subject<Stamped<Order[]>>(),
    balances$: new Subject<Stamped<Balance[]>>(),
    positions$: new Subject<Stamped<Position[]>>(),
  };
  const latest = new LatestTickers(LIMITS.outlierPct);
  const loop = startTradingLoop({
    streams,
    latest,
    runner,
    executor,
    journal,
    risk,
    clock,
    logger: silentLogger,
    instruments,
    ...(o.yieldAfterIntent ? { yieldAfterIntent: o.yieldAfterIntent } : {}),
    ...(o.accountFirst ? { accountFirst: true } : {}),
  });
  const tick = (tickers: Ticker[]) => streams.tickers$.next({ value: new Map(tickers.map((t) => [t.symbol, t])), atMs: clock.now() });
  return { journal, clock, risk, streams, latest, loop, tick, runner };
}

/** A strategy that records what it sees. */
function watcher(seen: MarketUpdate[]) {
  return erase(defineStrategy({ name: 'watcher', params: z.object({}), onMarket: (_ctx, u) => void seen.push(u) }));
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('trading loop: a strategy sees its own orders at once', () => {
  it("resting journal rows show until the venue lists or closes them; the polled record wins; lost rows and other strategies' rows do not show", () => {
    const a: MarketUpdate[] = [];
    const b: MarketUpdate[] = [];
    const t = setup({
      strategies: [
        { id: 'a', symbols: [BTC, ETH], def: watcher(a) },
        { id: 'b', symbols: [BTC], def: watcher(b) },
      ],
    });
    const at = (state: OrderState, over: Partial<JournalOrder> = {}) => row(t.journal, 'a', { state, ...over });
    const sending = at('sending');
    const unknown = at('unknown', { price: '88000' });
    const open = at('open', { orderId: '101', price: '88500' });
    const canceling = at('canceling', { orderId: '102', price: '87000', filledSize: '0.004', avgPrice: '87000' });
    const trigger = at('untriggered', {
      orderId: '103',
      surface: 'futures',
      symbol: ETH,
      side: 'sell',
      timeInForce: 'gtc',
      price: null,
      positionSide: 'long',
      reduceOnly: true,
      isTrigger: true,
      triggerPrice: '2900',
    });
    const lost = at('lost', { price: '86000' });
    const otherSymbol = at('open', { orderId: '104', symbol: 'ETHUSDT_SPBL' });
    const listedOpen = at('open', { orderId: '105', price: '88800' });
    const finalButListed = at('canceled', { orderId: '106', price: '88900' });
    t.journal.insertOrders([sending, unknown, open, canceling, trigger, lost, otherSymbol, listedOpen, finalButListed]);

    // The venue lists two of them (one the journal already holds as final: the venue says it rests).
    t.streams.openOrders$.next({ value: [polled(listedOpen, { filledSize: d('0.003') }), polled(finalButListed)], atMs: t.clock.now() });
    t.tick([ticker(BTC, '90000', 1), ticker(ETH, '3000', 1)]);
    const seen = a[0]!.openOrders;
    const byOid = new Map(seen.map((x) => [x.clientOid, x]));
    expect(seen).toHaveLength(7);
    expect([...byOid.keys()].sort()).toEqual([sending, unknown, open, canceling, trigger, listedOpen, finalButListed].map((r) => r.clientOid).sort());
    expect(byOid.get(listedOpen.clientOid)!.filledSize.toString()).toBe('0.003'); // the polled record, with its fills
    expect(byOid.get(sending.clientOid)).toMatchObject({ status: 'pending', orderId: '', side: 'buy', kind: 'limit', timeInForce: 'post_only' });
    expect(byOid.get(sending.clientOid)!.price!.toString()).toBe('89000');
    expect(byOid.get(unknown.clientOid)!.status).toBe('pending');
    expect(byOid.get(open.clientOid)).toMatchObject({ status: 'open', orderId: '101' });
    expect(byOid.get(canceling.clientOid)).toMatchObject({ status: 'canceling', orderId: '102' });
    expect(byOid.get(canceling.clientOid)!.filledSize.toString()).toBe('0.004');
    expect(byOid.get(canceling.clientOid)!.avgFillPrice!.toString()).toBe('87000');
    expect(byOid.get(trigger.clientOid)).toMatchObject({ status: 'untriggered', positionSide: 'long', reduceOnly: true, price: null, symbol: ETH });
    expect(b[0]!.openOrders).toEqual([]);

    // The venue closes one: the journal says so (the tracker's write), it no longer shows.
    t.journal.updateOrder(open.clientOid, { state: 'filled', filledSize: '0.01' }, 'filled', t.clock.now());
    t.journal.updateOrder(sending.clientOid, { state: 'open', orderId: '107' }, 'accepted', t.clock.now());
    t.tick([ticker(BTC, '90001', 2), ticker(ETH, '3000', 2)]);
    const again = new Map(a[1]!.openOrders.map((x) => [x.clientOid, x]));
    expect(again.has(open.clientOid)).toBe(false);
    expect(again.get(sending.clientOid)).toMatchObject({ status: 'open', orderId: '107' });
    t.loop.stop();
  });

  it('a market maker that quotes when it sees no quotes places one pair, not one per update', async () => {
    const places: Intent[] = [];
    const maker = erase(
      defineStrategy({
        name: 'maker',
        params: z.object({}),
        onMarket: (ctx, u) => {
          if (u.openOrders.length > 0) return [];
          const quote = (side: 'buy' | 'sell', price: string): OrderSpec => ({
            side,
            kind: 'limit',
            timeInForce: 'post_only',
            price: d(price),
            size: d('0.001'),
          });
          return [{ kind: 'place', surface: 'spot', symbol: ctx.symbols[0]!, orders: [quote('buy', '89990'), quote('sell', '90010')] }];
        },
      }),
    );
    let journal: SqliteJournal | undefined;
    const t = setup({
      strategies: [{ id: 'mm', symbols: [BTC], def: maker }],
      // Written down and accepted, as the executor does; the venue's open-order list is not polled again.
      submit: async (intent) => {
        if (intent.kind !== 'place') return;
        places.push(intent);
        const rows = intent.orders.map((o) => row(journal!, intent.strategyId, { side: o.side, price: o.price!.toString(), size: o.size.toString() }));
        journal!.insertOrders(rows);
        for (const [i, r] of rows.entries()) journal!.updateOrder(r.clientOid, { state: 'open', orderId: String(500 + i) }, 'accepted', 0);
      },
    });
    journal = t.journal;
    t.streams.openOrders$.next({ value: [], atMs: t.clock.now() });
    for (let k = 0; k < 5; k++) {
      t.tick([ticker(BTC, '90000', k + 1)]);
      await settle();
    }
    expect(places).toHaveLength(1);
    expect(t.journal.activeOrders()).toHaveLength(2);
    t.loop.stop();
  });
});

describe('trading loop: what a strategy is handed, and when', () => {
  it('with accountFirst, no update before open orders, balances and positions have each been read once', () => {
    const seen: MarketUpdate[] = [];
    const { streams, tick, clock } = setup({ strategies: [{ id: 'w', symbols: [BTC], def: watcher(seen) }], accountFirst: true });
    tick([ticker(BTC, '90000', 1)]);
    streams.openOrders$.next({ value: [], atMs: clock.now() });
    streams.balances$.next({ value: [], atMs: clock.now() });
    tick([ticker(BTC, '90000', 2)]);
    expect(seen).toHaveLength(0);
    streams.positions$.next({ value: [], atMs: clock.now() });
    tick([ticker(BTC, '90000', 3)]);
    expect(seen).toHaveLength(1);
  });

  it('without it (a backtest: an account it knows), the first tickers update is handed at once', () => {
    const seen: MarketUpdate[] = [];
    const { tick } = setup({ strategies: [{ id: 'w', symbols: [BTC], def: watcher(seen) }] });
    tick([ticker(BTC, '90000', 1)]);
    expect(seen).toHaveLength(1);
  });

  it('a strategy whose intents wait behind the one in flight (not written down yet) gets no update until they are', async () => {
    let updates = 0;
    const bidder = erase(
      defineStrategy({
        name: 'bidder',
        params: z.object({}),
        onMarket: () => {
          updates++;
          return [
            { kind: 'place', surface: 'spot', symbol: BTC, orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('89000'), size: d('0.01') }] },
          ];
        },
      }),
    );
    const seen: MarketUpdate[] = [];
    const releases: Array<() => void> = [];
    const sent: Intent[] = [];
    const { tick } = setup({
      strategies: [
        { id: 'b', symbols: [BTC], def: bidder },
        { id: 'w', symbols: [BTC], def: watcher(seen) },
      ],
      submit: (intent) => (sent.push(intent), new Promise<void>((resolve) => releases.push(resolve))),
    });
    tick([ticker(BTC, '90000', 1)]); // its first intent goes out at once (in flight)
    tick([ticker(BTC, '90000', 2)]); // its second waits behind it
    tick([ticker(BTC, '90000', 3)]); // skipped: its second intent is not written yet
    tick([ticker(BTC, '90000', 4)]);
    expect(updates).toBe(2);
    expect(seen).toHaveLength(4); // the other strategy is not held up
    releases.shift()!();
    await settle();
    expect(sent).toHaveLength(2); // the second is on its way now (written as it starts)
    tick([ticker(BTC, '90000', 5)]);
    expect(updates).toBe(3);
  });
});

describe('trading loop: trusted prices for equity and references', () => {
  const spot = (usdt: string, btc: string): Balance[] => [
    { surface: 'spot', asset: 'USDT', available: null, frozen: null, total: d(usdt) },
    { surface: 'spot', asset: 'BTC', available: null, frozen: null, total: d(btc) },
  ];

  for (const bad of ['900000', '-90000', '0']) {
    it(`one bad sample (${bad}) neither latches the drawdown kill switch nor gives the executor a reference`, () => {
      const t = setup({ strategies: [] });
      const poll = (last: string, venueMs: number) => {
        t.clock.advance(1000);
        t.tick([ticker(BTC, last, venueMs)]);
        t.streams.balances$.next({ value: spot('100000', '1'), atMs: t.clock.now() });
      };
      poll('90000', 1);
      expect(t.latest.reference(BTC)!.price.toString()).toBe('90000');
      poll(bad, 2);
      expect(t.latest.reference(BTC)).toBeUndefined();
      // The gate denies what the executor would price off it.
      const intent = {
        kind: 'place' as const,
        strategyId: 'mm',
        surface: 'spot' as const,
        symbol: BTC,
        orders: [{ side: 'buy' as const, kind: 'limit' as const, timeInForce: 'gtc' as const, price: d('89000'), size: d('0.001') }],
      };
      const ctx = {
        now: t.clock.now(),
        instrument: (s: string) => instruments.get(s),
        reference: t.latest.reference,
        openCount: () => 0,
        openCountByStrategy: () => 0,
        openNotional: () => Decimal.ZERO,
      };
      expect(t.risk.checkPlace(intent, ctx).denials.map((x) => x.reason)).toEqual(['no-reference-price']);
      poll('90010', 3);
      poll('90020', 4);
      expect(t.risk.state()).toBe('active');
      expect(t.latest.reference(BTC)!.price.toString()).toBe('90020');
      expect(t.risk.checkPlace(intent, { ...ctx, now: t.clock.now() }).allowed).toHaveLength(1);
      t.loop.stop();
    });
  }

  it('a real drawdown still latches the kill switch', () => {
    const t = setup({ strategies: [] });
    t.tick([ticker(BTC, '90000', 1)]);
    t.streams.balances$.next({ value: spot('100000', '1'), atMs: t.clock.now() });
    t.streams.balances$.next({ value: spot('70000', '1'), atMs: t.clock.now() }); // 190,000 -> 160,000: 15.8 %
    expect(t.risk.state()).toBe('halted');
    t.loop.stop();
  });

  it('a ticker whose own timestamp froze for 40 s is stale, though every poll succeeded', () => {
    const t = setup({ strategies: [] });
    for (let k = 0; k <= 40; k++) {
      t.tick([ticker(ETH, '3000', 5_000_000)]); // the venue's timestamp never moves
      if (k < 40) t.clock.advance(1000);
    }
    const intent = {
      kind: 'place' as const,
      strategyId: 'g',
      surface: 'futures' as const,
      symbol: ETH,
      orders: [{ side: 'buy' as const, kind: 'limit' as const, timeInForce: 'gtc' as const, price: d('2990'), size: d('0.01'), positionSide: 'long' as const }],
    };
    const ctx = {
      now: t.clock.now(),
      instrument: (s: string) => instruments.get(s),
      reference: t.latest.reference,
      openCount: () => 0,
      openCountByStrategy: () => 0,
      openNotional: () => Decimal.ZERO,
    };
    const r = t.risk.checkPlace(intent, ctx);
    expect(r.denials.map((x) => x.reason)).toEqual(['stale-price']);
    // The venue moves again: fresh.
    t.clock.advance(1000);
    t.tick([ticker(ETH, '3000', 5_000_001)]);
    expect(t.risk.checkPlace(intent, { ...ctx, now: t.clock.now() }).allowed).toHaveLength(1);
    t.loop.stop();
  });
});

describe('trading loop: a strategy that answers every denial with a new intent', () => {
  it('does not keep the event loop in promise continuations: timers (polls, /health, signals) still run', async () => {
    let submitted = 0;
    const events$ = new Subject<ExecutionEvent>();
    const executor = {
      events$,
      submit: async (intent: Intent) => {
        submitted++;
        // Denied at once (fenced, halted, stale): the event reaches the strategy before the submit resolves.
        if (submitted < 100_000)
          events$.next({ type: 'denied', strategyId: intent.strategyId, surface: 'spot', symbol: BTC, atMs: 0, reason: 'fenced', detail: '' });
        return [];
      },
    } as unknown as Executor;
    const place = { kind: 'place' as const, surface: 'spot' as const, symbol: BTC, orders: [] };
    const stubborn = erase(
      defineStrategy({ name: 'stubborn', params: z.object({}), onStart: () => [place], onEvent: (_c, e) => (e.type === 'denied' ? [place] : []) }),
    );
    const t = setup({
      strategies: [{ id: 'a', symbols: [BTC], def: stubborn }],
      executor,
      yieldAfterIntent: () => new Promise((resolve) => setImmediate(resolve)),
    });
    let atTimer = -1;
    const timer = new Promise<void>((resolve) => setTimeout(() => ((atTimer = submitted), resolve()), 0));
    // The runner starts the strategies once the loop is wired, as the daemon does.
    t.runner.start();
    await timer;
    t.loop.stop();
    expect(atTimer).toBeGreaterThan(0);
    expect(atTimer).toBeLessThan(1000);
  });
});
