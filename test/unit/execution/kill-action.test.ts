// The kill switch's action: flatten (own spot orders canceled; per traded contract F28 normal, F28 plan, then F27,
// every step journaled with the venue's answers), or cancel (own orders; stops that protect a position stay).
// Once per latch; retried with a growing delay while something is left or a step failed; a latch from before the
// start is acted on only if something is left; the order-rate breaker only halts.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { Intent } from '../../../src/domain/intent.js';
import type { Position, Surface } from '../../../src/domain/market.js';
import type { ItemResult, PositionCloseResult } from '../../../src/exchange/client.js';
import { ExchangeError } from '../../../src/exchange/errors.js';
import { KILL_ACTOR, KillAction, type OnKill } from '../../../src/execution/kill-action.js';
import { LATCH_DRAWDOWN, LATCH_KILL_OPERATOR, LATCH_ORDER_RATE } from '../../../src/execution/latches.js';
import type { JournalOrder } from '../../../src/journal/journal.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { ManualClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';
import { journalRow } from '../../fixtures/journal-row.js';

const SPOT = 'BTCUSDT_SPBL';
const BTC = 'cmt_btcusdt';
const ETH = 'cmt_ethusdt';

const long = (symbol: string, size = '0.5'): Position => ({
  symbol,
  side: 'long',
  size: Decimal.from(size),
  openValue: Decimal.from('100'),
  entryPrice: null,
  leverage: null,
  marginMode: 'SHARED',
  isolatedMargin: null,
  openFee: null,
  fundingFee: null,
  updatedAtMs: null,
});

function setup(opts: { mode?: OnKill; startMs?: number; closeFails?: boolean; planThrows?: boolean } = {}) {
  const clock = new ManualClock(opts.startMs ?? 1_000_000);
  const journal = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
  const calls: string[] = [];
  const intents: Array<{ strategyId: string; kind: string; json: unknown }> = [];
  const record = journal.recordIntent.bind(journal);
  journal.recordIntent = (strategyId, kind, json, atMs) => {
    intents.push({ strategyId, kind, json: JSON.parse(json) });
    return record(strategyId, kind, json, atMs);
  };
  const accepted = (orderId: string): ItemResult => ({ outcome: 'accepted', clientOid: null, orderId });
  const client = {
    cancelAllFutures: async (kind: 'normal' | 'plan', symbol?: string): Promise<ItemResult[]> => {
      calls.push(`F28 ${kind} ${symbol}`);
      if (kind === 'plan' && opts.planThrows) throw new ExchangeError('unavailable', 'system busy', { endpoint: 'F28' });
      return kind === 'normal' ? [accepted('700000000000000000001')] : [];
    },
    closePositions: async (symbol?: string): Promise<PositionCloseResult[]> => {
      calls.push(`F27 ${symbol}`);
      return [
        opts.closeFails
          ? { positionId: '690800371848708186', ok: false, orderId: null, error: 'position is liquidating' }
          : { positionId: '690800371848708186', ok: true, orderId: '696023766399976282', error: '' },
      ];
    },
  };
  const executor = {
    cancelAllOwn: async (surface: Surface, symbol: string, triggers: boolean) => {
      calls.push(`own ${surface} ${symbol} triggers:${triggers}`);
      const events: ExecutionEvent[] = [];
      for (const r of journal.activeOrders().filter((x) => x.symbol === symbol && !x.isTrigger)) {
        journal.updateOrder(r.clientOid, { state: 'canceled' }, 'canceled', clock.now());
        events.push({ type: 'canceled', strategyId: r.strategyId, surface, symbol, clientOid: r.clientOid, orderId: r.orderId ?? '', atMs: clock.now() });
      }
      return { events, keptTriggers: [] as JournalOrder[] };
    },
    submit: async (intent: Intent): Promise<ExecutionEvent[]> => {
      if (intent.kind !== 'cancel-trigger') throw new Error(`unexpected ${intent.kind}`);
      calls.push(`cancel-trigger ${intent.strategyId} ${intent.orderId}`);
      const row = journal.orderByOrderId(intent.orderId)!;
      journal.updateOrder(row.clientOid, { state: 'canceled' }, 'canceled', clock.now());
      return [
        {
          type: 'canceled',
          strategyId: row.strategyId,
          surface: 'futures',
          symbol: row.symbol,
          clientOid: row.clientOid,
          orderId: intent.orderId,
          atMs: clock.now(),
        },
      ];
    },
  };
  let positions: { value: Position[]; atMs: number } | undefined;
  let reconciled = 0;
  const action = new KillAction({
    mode: opts.mode ?? 'flatten',
    client,
    executor,
    journal,
    clock,
    logger: createLogger({ level: 'silent' }),
    symbols: { spot: [SPOT], futures: [BTC, ETH] },
    positions: () => positions,
    afterPass: async () => void reconciled++,
  });
  return {
    clock,
    journal,
    calls,
    intents,
    action,
    positions: (...value: Position[]) => (positions = { value, atMs: clock.now() }),
    reconciled: () => reconciled,
    decisions: () => journal.riskDecisions().map((x) => ({ reason: x.reason, ...(JSON.parse(x.detail) as object) })),
  };
}

const FLATTEN_CALLS = [
  `own spot ${SPOT} triggers:false`,
  `F28 normal ${BTC}`,
  `F28 plan ${BTC}`,
  `F27 ${BTC}`,
  `F28 normal ${ETH}`,
  `F28 plan ${ETH}`,
  `F27 ${ETH}`,
];

describe('flatten on a kill switch latched while running', () => {
  it('cancels own spot orders, then per contract every order, every trigger order and the positions; journals and reconciles', async () => {
    const t = setup();
    t.journal.insertOrders([journalRow('spot1', { symbol: SPOT, surface: 'spot', state: 'open', orderId: '11' })]);
    expect(t.action.check()).toBeUndefined(); // nothing latched
    t.clock.advance(10);
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown 11 % from peak 1000', t.clock.now());
    await t.action.check();
    expect(t.calls).toEqual(FLATTEN_CALLS);
    expect(t.intents).toEqual([
      {
        strategyId: KILL_ACTOR,
        kind: 'flatten',
        json: { latch: LATCH_DRAWDOWN, reason: 'drawdown 11 % from peak 1000', latchedAtMs: 1_000_010, pass: 1, spot: [SPOT], futures: [BTC, ETH] },
      },
    ]);
    expect(t.decisions()).toEqual([
      { reason: 'flatten:cancel-own-orders', symbol: SPOT, endpoint: 'S4', answers: [{ id: 'spot1', ok: true, orderId: '11' }] },
      { reason: 'flatten:cancel-orders', symbol: BTC, endpoint: 'F28', answers: [{ id: '700000000000000000001', ok: true }] },
      { reason: 'flatten:cancel-triggers', symbol: BTC, endpoint: 'F28', answers: [] },
      {
        reason: 'flatten:close-positions',
        symbol: BTC,
        endpoint: 'F27',
        answers: [{ id: '690800371848708186', ok: true, orderId: '696023766399976282', error: '' }],
      },
      { reason: 'flatten:cancel-orders', symbol: ETH, endpoint: 'F28', answers: [{ id: '700000000000000000001', ok: true }] },
      { reason: 'flatten:cancel-triggers', symbol: ETH, endpoint: 'F28', answers: [] },
      {
        reason: 'flatten:close-positions',
        symbol: ETH,
        endpoint: 'F27',
        answers: [{ id: '690800371848708186', ok: true, orderId: '696023766399976282', error: '' }],
      },
    ]);
    expect(t.journal.riskDecisions().every((x) => x.strategyId === KILL_ACTOR)).toBe(true);
    expect(t.reconciled()).toBe(1);

    // Looked at again: positions read after the pass show nothing left: done, no second pass, ever.
    t.positions(long(BTC));
    t.clock.advance(10_000);
    expect(t.action.check()).toBeUndefined(); // read when the pass ended, not after it: it waits for a later reading
    t.positions();
    expect(t.action.check()).toBeUndefined();
    t.clock.advance(600_000);
    t.positions();
    expect(t.action.check()).toBeUndefined();
    expect(t.calls).toHaveLength(FLATTEN_CALLS.length);
  });

  it('a position left after a pass takes another, after 5 s, then 10 s, until nothing is left', async () => {
    const t = setup();
    t.journal.setLatch(LATCH_KILL_OPERATOR, 'venue incident', t.clock.now());
    await t.action.check();
    expect(t.intents).toHaveLength(1);
    t.clock.advance(1000);
    t.positions(long(ETH));
    expect(t.action.check()).toBeUndefined(); // not yet: 5 s after the pass
    t.clock.advance(4000);
    t.positions(long(ETH));
    await t.action.check();
    expect(t.intents.map((x) => (x.json as { pass: number }).pass)).toEqual([1, 2]);
    t.clock.advance(9000);
    t.positions(long(ETH));
    expect(t.action.check()).toBeUndefined();
    t.clock.advance(1000);
    t.positions(long(ETH));
    await t.action.check();
    expect(t.intents).toHaveLength(3);
    // A position on a contract not traded is not this bot's to close.
    t.clock.advance(20_000);
    t.positions(long('cmt_solusdt'));
    expect(t.action.check()).toBeUndefined();
    expect(t.calls).toHaveLength(3 * FLATTEN_CALLS.length);
  });

  it('positions not read since the pass: it waits for a reading', async () => {
    const t = setup();
    t.positions(long(BTC));
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t.clock.now());
    await t.action.check();
    t.clock.advance(60_000);
    expect(t.action.check()).toBeUndefined();
    t.positions(long(BTC));
    await t.action.check();
    expect(t.intents).toHaveLength(2);
  });

  it('a failed step does not stop the others; it is journaled with the error and the pass is retried even with nothing left', async () => {
    const t = setup({ planThrows: true, closeFails: true });
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t.clock.now());
    await t.action.check();
    expect(t.calls).toEqual(FLATTEN_CALLS);
    const failed = t.decisions().filter((x) => x.reason !== 'flatten:cancel-orders' && x.reason !== 'flatten:cancel-own-orders');
    expect(failed[0]).toEqual({ reason: 'flatten:cancel-triggers', symbol: BTC, endpoint: 'F28', error: expect.stringContaining('system busy') });
    expect(failed[1]).toEqual({
      reason: 'flatten:close-positions',
      symbol: BTC,
      endpoint: 'F27',
      answers: [{ id: '690800371848708186', ok: false, orderId: null, error: 'position is liquidating' }],
    });
    t.clock.advance(5000);
    t.positions();
    await t.action.check();
    expect(t.intents).toHaveLength(2);
  });

  it('a close the venue refused is judged by the next reading: nothing left, no other pass; a position left, another', async () => {
    const t = setup({ closeFails: true });
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t.clock.now());
    await t.action.check();
    t.clock.advance(5000);
    t.positions();
    expect(t.action.check()).toBeUndefined();
    const t2 = setup({ closeFails: true });
    t2.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t2.clock.now());
    await t2.action.check();
    t2.clock.advance(5000);
    t2.positions(long(BTC));
    await t2.action.check();
    expect(t2.intents).toHaveLength(2);
  });

  it('a reset ends it; a new latch acts again; the order-rate breaker only halts', async () => {
    const t = setup();
    t.journal.setLatch(LATCH_ORDER_RATE, 'more than 300 orders in a minute', t.clock.now());
    expect(t.action.check()).toBeUndefined();
    t.journal.clearLatch(LATCH_ORDER_RATE);
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t.clock.now());
    await t.action.check();
    t.journal.clearLatch(LATCH_DRAWDOWN);
    t.clock.advance(5000);
    t.positions(long(BTC));
    expect(t.action.check()).toBeUndefined();
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown again', t.clock.now());
    await t.action.check();
    expect(t.intents.map((x) => (x.json as { reason: string }).reason)).toEqual(['drawdown', 'drawdown again']);
  });

  it('stopped: no pass starts', () => {
    const t = setup();
    t.action.stop();
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t.clock.now());
    expect(t.action.check()).toBeUndefined();
    expect(t.calls).toEqual([]);
  });
});

describe('a kill switch latched before the start', () => {
  it('nothing left: no pass (it was done before the restart)', () => {
    const t = setup();
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t.clock.now() - 60_000);
    expect(t.action.check()).toBeUndefined(); // no positions read yet
    t.positions();
    expect(t.action.check()).toBeUndefined();
    t.clock.advance(600_000);
    t.positions();
    expect(t.action.check()).toBeUndefined();
    expect(t.calls).toEqual([]);
  });

  it('a position left on a traded contract: flattened again', async () => {
    const t = setup();
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t.clock.now() - 60_000);
    t.positions(long(BTC));
    await t.action.check();
    expect(t.calls).toEqual(FLATTEN_CALLS);
  });
});

describe('cancel on a kill switch', () => {
  it("cancels this bot's own orders on every traded symbol and the triggers that would open a position; a stop stays", async () => {
    const t = setup({ mode: 'cancel' });
    t.journal.insertOrders([
      journalRow('spot1', { symbol: SPOT, surface: 'spot', state: 'open', orderId: '11' }),
      journalRow('fut1', { symbol: BTC, surface: 'futures', state: 'open', orderId: '12', positionSide: 'long' }),
      journalRow('open-trigger', {
        symbol: BTC,
        surface: 'futures',
        state: 'untriggered',
        orderId: '13',
        isTrigger: true,
        reduceOnly: false,
        strategyId: 'mm',
      }),
      journalRow('stop', { symbol: ETH, surface: 'futures', state: 'untriggered', orderId: '14', isTrigger: true, reduceOnly: true }),
    ]);
    t.journal.setLatch(LATCH_KILL_OPERATOR, 'stop trading', t.clock.now());
    await t.action.check();
    expect(t.calls).toEqual([
      `own spot ${SPOT} triggers:false`,
      `own futures ${BTC} triggers:false`,
      'cancel-trigger mm 13',
      `own futures ${ETH} triggers:false`,
    ]);
    expect(t.intents.map((x) => x.kind)).toEqual(['kill-cancel']);
    expect(t.decisions().map((x) => x.reason)).toEqual(['kill-cancel:cancel-own-orders', 'kill-cancel:cancel-own-orders', 'kill-cancel:cancel-own-orders']);
    expect(t.journal.activeOrders().map((r) => r.clientOid)).toEqual(['stop']);
    // Nothing left: done (no positions needed for this mode).
    t.clock.advance(5000);
    expect(t.action.check()).toBeUndefined();
    expect(t.intents).toHaveLength(1);
  });

  it('from before the start: acted on only while an own order rests', async () => {
    const t = setup({ mode: 'cancel' });
    t.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t.clock.now() - 1);
    expect(t.action.check()).toBeUndefined();
    const t2 = setup({ mode: 'cancel' });
    t2.journal.insertOrders([journalRow('spot1', { symbol: SPOT, surface: 'spot', state: 'open', orderId: '11' })]);
    t2.journal.setLatch(LATCH_DRAWDOWN, 'drawdown', t2.clock.now() - 1);
    await t2.action.check();
    expect(t2.intents).toHaveLength(1);
  });
});
