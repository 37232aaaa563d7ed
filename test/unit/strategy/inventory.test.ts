// An instance's holdings from its fill events: sizes, average entry and PnL to the digit, on spot and on both
// sides of a futures position; repeated, late and unpriced events; and the runner updating it before onEvent.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { PositionSide, Surface } from '../../../src/domain/market.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { defineStrategy, z, type StrategyDefinition } from '../../../src/strategy/api.js';
import { Inventory } from '../../../src/strategy/inventory.js';
import { StrategyRunner } from '../../../src/strategy/runner.js';
import { silentLogger } from '../../../src/util/logger.js';

const d = (s: string) => Decimal.from(s);
const surfaceOf = (symbol: string): Surface => (symbol.startsWith('cmt_') ? 'futures' : 'spot');

/** A fill event of order `clientOid`: cumulative filled size and average price. */
function fill(
  clientOid: string,
  side: 'buy' | 'sell',
  filled: string,
  avg: string | null,
  opts: { symbol?: string; positionSide?: PositionSide; done?: boolean } = {},
): ExecutionEvent {
  const symbol = opts.symbol ?? 'ETHUSDT_SPBL';
  return {
    type: opts.done ? 'filled' : 'partially-filled',
    strategyId: 's',
    surface: surfaceOf(symbol),
    symbol,
    clientOid,
    atMs: 0,
    orderId: `id-${clientOid}`,
    filledSize: d(filled),
    avgPrice: avg === null ? null : d(avg),
    side,
    positionSide: opts.positionSide ?? null,
    reduceOnly: false,
  };
}

const text = (x: Decimal | null) => (x === null ? null : x.toString());

describe('inventory', () => {
  it('spot: buys build the position at their average; a sale realises against it; a larger one reverses it', () => {
    const inv = new Inventory(surfaceOf);
    const h = inv.of('ETHUSDT_SPBL');
    expect([text(h.size), text(h.avgEntry), text(h.realisedPnl), h.long, h.short]).toEqual(['0', null, '0', null, null]);
    // Order A fills 0.4 then all 1 at 100; order B fills 2 at an average of 103, in two steps.
    inv.apply(fill('A', 'buy', '0.4', '100'));
    inv.apply(fill('A', 'buy', '1', '100', { done: true }));
    inv.apply(fill('B', 'buy', '1', '101'));
    inv.apply(fill('B', 'buy', '2', '103', { done: true }));
    // Cost: 100 + 206 = 306 for 3.
    expect([text(h.size), text(h.avgEntry), text(h.unrealisedPnl(d('110')))]).toEqual(['3', '102', '24']);
    inv.apply(fill('C', 'sell', '1.5', '110', { done: true }));
    expect([text(h.size), text(h.avgEntry), text(h.realisedPnl), text(h.unrealisedPnl(d('100')))]).toEqual(['1.5', '102', '12', '-3']);
    // Sells 2.5 at 90: closes 1.5 (loses 18), goes short 1 at 90.
    inv.apply(fill('D', 'sell', '2.5', '90', { done: true }));
    expect([text(h.size), text(h.avgEntry), text(h.realisedPnl), text(h.unrealisedPnl(d('80')))]).toEqual(['-1', '90', '-6', '10']);
    inv.apply(fill('E', 'buy', '1', '95', { done: true }));
    expect([text(h.size), text(h.avgEntry), text(h.realisedPnl), text(h.unrealisedPnl(d('1')))]).toEqual(['0', null, '-11', '0']);
  });

  it('an ended order is remembered for its late fill events until 4096 orders ended after it, oldest forgotten first', () => {
    const inv = new Inventory(surfaceOf);
    const h = inv.of('ETHUSDT_SPBL');
    const ended = 4096 + 1000;
    for (let k = 0; k < ended; k++) inv.apply(fill(`O${k}`, 'buy', '1', '1', { done: true }));
    expect(text(h.size)).toBe(String(ended));
    // The last 4096 to end: a repeated event changes nothing. An older one is forgotten: its event counts anew.
    for (const k of [ended - 1, ended - 4096]) inv.apply(fill(`O${k}`, 'buy', '1', '1', { done: true }));
    expect(text(h.size)).toBe(String(ended));
    inv.apply(fill(`O${ended - 4097}`, 'buy', '1', '1', { done: true }));
    expect(text(h.size)).toBe(String(ended + 1));
    // That one is remembered again, as the newest: the oldest of the others goes.
    inv.apply(fill(`O${ended - 4097}`, 'buy', '1', '1', { done: true }));
    inv.apply(fill(`O${ended - 4096}`, 'buy', '1', '1', { done: true }));
    expect(text(h.size)).toBe(String(ended + 2));
  });

  it('an average that does not end is rounded to 18 places; closed whole, the realised PnL is exact', () => {
    const inv = new Inventory(surfaceOf);
    const h = inv.of('ETHUSDT_SPBL');
    inv.apply(fill('A', 'buy', '1', '1', { done: true }));
    inv.apply(fill('B', 'buy', '2', '2', { done: true }));
    expect(text(h.avgEntry)).toBe('1.666666666666666667');
    inv.apply(fill('C', 'sell', '1', '2', { done: true }));
    inv.apply(fill('D', 'sell', '2', '2', { done: true }));
    expect([text(h.size), text(h.realisedPnl)]).toEqual(['0', '1']);
  });

  it('futures: the long and the short side apart, netted in size; the average entry of the one side open', () => {
    const inv = new Inventory(surfaceOf);
    const h = inv.of('cmt_ethusdt');
    inv.apply(fill('L', 'buy', '2', '3000', { symbol: 'cmt_ethusdt', positionSide: 'long', done: true }));
    inv.apply(fill('S', 'sell', '0.5', '3100', { symbol: 'cmt_ethusdt', positionSide: 'short', done: true }));
    expect([text(h.size), text(h.avgEntry), text(h.long!.avgEntry), text(h.short!.avgEntry), text(h.short!.size)]).toEqual([
      '1.5',
      null,
      '3000',
      '3100',
      '-0.5',
    ]);
    expect(text(h.unrealisedPnl(d('3050')))).toBe('125'); // long +100, short +25
    // The short closed by a buy at 3000: +50.
    inv.apply(fill('SC', 'buy', '0.5', '3000', { symbol: 'cmt_ethusdt', positionSide: 'short', done: true }));
    expect([text(h.size), text(h.avgEntry), text(h.realisedPnl), text(h.short!.realisedPnl)]).toEqual(['2', '3000', '50', '50']);
    inv.apply(fill('LC', 'sell', '2', '2990', { symbol: 'cmt_ethusdt', positionSide: 'long', done: true }));
    expect([text(h.size), text(h.realisedPnl), text(h.long!.realisedPnl)]).toEqual(['0', '30', '-20']);
  });

  it('a repeated or older event changes nothing; fills read after a cancel count; a fill without a price waits for it', () => {
    const inv = new Inventory(surfaceOf);
    const h = inv.of('ETHUSDT_SPBL');
    inv.apply(fill('A', 'buy', '1', '100'));
    inv.apply(fill('A', 'buy', '1', '100'));
    inv.apply(fill('A', 'buy', '0.5', '100'));
    expect(text(h.size)).toBe('1');
    inv.apply({ type: 'canceled', strategyId: 's', surface: 'spot', symbol: 'ETHUSDT_SPBL', clientOid: 'A', atMs: 0, orderId: 'id-A' });
    inv.apply(fill('A', 'buy', '1.5', '102'));
    // 1.5 at an average of 102 cost 153; the 1 counted before cost 100: the new 0.5 cost 53.
    expect([text(h.size), text(h.avgEntry)]).toEqual(['1.5', '102']);
    // The venue did not say the price yet: the size waits apart.
    inv.apply(fill('B', 'sell', '0.5', null));
    expect([text(h.size), text(h.unpricedSize)]).toEqual(['1.5', '0.5']);
    inv.apply(fill('B', 'sell', '1', null));
    expect([text(h.size), text(h.unpricedSize)]).toEqual(['1.5', '1']);
    inv.apply(fill('B', 'sell', '1', '110', { done: true }));
    expect([text(h.size), text(h.unpricedSize), text(h.realisedPnl)]).toEqual(['0.5', '0', '8']);
  });
});

describe('inventory in the runner', () => {
  it("is updated before onEvent, only by the instance's own events, and is read through ctx.inventory", () => {
    const instruments = new Map(DEFAULT_INSTRUMENTS.map((s) => [s.symbol, toInstrument(s)]));
    const seen: string[] = [];
    const def = defineStrategy({
      name: 'watch',
      params: z.strictObject({}),
      onEvent: (ctx, e) => void seen.push(`${e.type} ${ctx.inventory('ETHUSDT_SPBL').size.toString()}`),
    });
    const erase = <P>(x: StrategyDefinition<P>) => x as unknown as StrategyDefinition<unknown>;
    let readOther = '';
    const nosy = defineStrategy({
      name: 'nosy',
      params: z.strictObject({}),
      onEvent: (ctx) => {
        try {
          ctx.inventory('BTCUSDT_SPBL');
        } catch (err) {
          readOther = (err as Error).message;
        }
      },
    });
    const runner = new StrategyRunner({
      instances: [
        { cfg: { id: 's', name: 'watch', symbols: ['ETHUSDT_SPBL'], params: {} }, def: erase(def) },
        { cfg: { id: 't', name: 'nosy', symbols: ['ETHUSDT_SPBL'], params: {} }, def: erase(nosy) },
      ],
      instruments,
      logger: silentLogger,
      maxErrors: 3,
    });
    runner.onEvent(fill('A', 'buy', '0.25', '3000'));
    runner.onEvent({ ...fill('X', 'buy', '5', '3000'), strategyId: 't' } as ExecutionEvent);
    runner.onEvent(fill('A', 'buy', '0.5', '3000', { done: true }));
    expect(seen).toEqual(['partially-filled 0.25', 'filled 0.5']);
    expect(readOther).toBe('inventory(BTCUSDT_SPBL): not among the symbols of strategies[t] (ETHUSDT_SPBL)');
  });
});
