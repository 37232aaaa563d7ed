// Loading strategies by name, validating their params, and isolating one that throws.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Intent } from '../../../src/domain/intent.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { defineStrategy, z, type MarketUpdate, type StrategyDefinition } from '../../../src/strategy/api.js';
import { findStrategyFile, loadStrategy } from '../../../src/strategy/loader.js';
import { StrategyConfigError, StrategyRunner } from '../../../src/strategy/runner.js';
import { ManualClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';

const instruments = new Map(DEFAULT_INSTRUMENTS.map((s) => [s.symbol, toInstrument(s)]));
const update: MarketUpdate = { nowMs: 0, tickers: new Map(), openOrders: [], positions: [], balances: [] };

/** Instances of different strategies travel together with their params type erased, as the loader gives them. */
const erase = <P>(d: StrategyDefinition<P>) => d as unknown as StrategyDefinition<unknown>;

const good = defineStrategy({
  name: 'good',
  params: z.strictObject({ size: z.string().default('0.01') }),
  onMarket: (ctx) => [
    {
      kind: 'place',
      surface: 'spot',
      symbol: ctx.symbols[0]!,
      orders: [{ side: 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from(ctx.params.size) }],
    },
  ],
});
const bad = defineStrategy({
  name: 'bad',
  params: z.strictObject({}),
  onMarket: () => {
    throw new Error('boom');
  },
});

describe('strategy runner', () => {
  it('a throwing strategy is counted and faulted; the others keep running', () => {
    const runner = new StrategyRunner({
      instances: [
        { cfg: { id: 'g', name: 'good', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(good) },
        { cfg: { id: 'b', name: 'bad', symbols: ['ETHUSDT_SPBL'], params: {} }, def: erase(bad) },
      ],
      instruments,
      logger: silentLogger,
      maxErrors: 3,
    });
    const intents: Intent[] = [];
    runner.intents$.subscribe((i) => intents.push(i));
    for (let i = 0; i < 5; i++) runner.onMarket(() => update);
    expect(intents).toHaveLength(5);
    expect(intents.every((i) => i.strategyId === 'g')).toBe(true);
    expect(runner.status()).toEqual([
      { id: 'g', errors: 0, faulted: false },
      { id: 'b', errors: 3, faulted: true, hook: 'onMarket', error: 'boom', reason: '3 errors, the last in onMarket: boom' },
    ]);
  });

  it("a fault carries its time by the runner's clock, the hook and the error", () => {
    const clock = new ManualClock(1_767_571_201_000);
    const failing = defineStrategy({
      name: 'failing',
      params: z.strictObject({}),
      onMarket: () => {
        throw new Error(`bad at ${clock.now()}`);
      },
    });
    const runner = new StrategyRunner({
      instances: [{ cfg: { id: 'f', name: 'failing', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(failing) }],
      instruments,
      logger: silentLogger,
      maxErrors: 2,
      clock,
    });
    runner.onMarket(() => update);
    clock.advance(1500);
    runner.onMarket(() => update);
    clock.advance(1500);
    runner.onMarket(() => update);
    expect(runner.status()).toEqual([
      {
        id: 'f',
        errors: 2,
        faulted: true,
        atMs: 1_767_571_202_500,
        hook: 'onMarket',
        error: 'bad at 1767571202500',
        reason: '2 errors, the last in onMarket: bad at 1767571202500',
      },
    ]);
  });

  it('params are validated by the strategy schema; every problem is listed', () => {
    expect(
      () =>
        new StrategyRunner({
          instances: [{ cfg: { id: 'g', name: 'good', symbols: ['NOPE_SPBL'], params: { size: 1, extra: true } }, def: erase(good) }],
          instruments,
          logger: silentLogger,
          maxErrors: 3,
        }),
    ).toThrow(StrategyConfigError);
    try {
      new StrategyRunner({
        instances: [{ cfg: { id: 'g', name: 'good', symbols: ['NOPE_SPBL'], params: { size: 1 } }, def: erase(good) }],
        instruments,
        logger: silentLogger,
        maxErrors: 3,
      });
    } catch (err) {
      expect((err as Error).message).toMatch(/strategies\[g\]\.params\.size: /);
    }
  });

  it('a hook throwing something that is not an Error (even undefined) is counted like any other', () => {
    const odd = defineStrategy({
      name: 'odd',
      params: z.strictObject({}),
      onMarket: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the runner must survive a hook that throws something not an Error
        throw undefined;
      },
    });
    const runner = new StrategyRunner({
      instances: [{ cfg: { id: 'o', name: 'odd', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(odd) }],
      instruments,
      logger: silentLogger,
      maxErrors: 2,
    });
    runner.onMarket(() => update);
    runner.onMarket(() => update);
    expect(runner.status()).toEqual([
      { id: 'o', errors: 2, faulted: true, hook: 'onMarket', error: 'undefined', reason: '2 errors, the last in onMarket: undefined' },
    ]);
  });

  it('an intent for a symbol the instance does not trade is refused', () => {
    const rogue = defineStrategy({
      name: 'rogue',
      params: z.strictObject({}),
      onMarket: () => [{ kind: 'cancel-all', surface: 'spot', symbol: 'SOLUSDT_SPBL' }],
    });
    const runner = new StrategyRunner({
      instances: [{ cfg: { id: 'r', name: 'rogue', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(rogue) }],
      instruments,
      logger: silentLogger,
      maxErrors: 5,
    });
    const intents: Intent[] = [];
    runner.intents$.subscribe((i) => intents.push(i));
    runner.onMarket(() => update);
    expect(intents).toEqual([]);
    expect(runner.status()[0]!.errors).toBe(1);
  });
});

describe('restart after a fault', () => {
  it('a faulted instance starts again after the configured delay, when configured', () => {
    const clock = new ManualClock(0);
    let starts = 0;
    let fail = true;
    const flaky = defineStrategy({
      name: 'flaky',
      params: z.strictObject({}),
      onStart: () => void starts++,
      onMarket: () => {
        if (fail) throw new Error('x');
      },
    });
    const runner = new StrategyRunner({
      instances: [{ cfg: { id: 'f', name: 'flaky', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(flaky) }],
      instruments,
      logger: silentLogger,
      maxErrors: 2,
      restartFaultedAfterMs: 1000,
      clock,
    });
    runner.start();
    runner.onMarket(() => update);
    runner.onMarket(() => update);
    expect(runner.status()[0]).toMatchObject({ faulted: true });
    clock.advance(999);
    fail = false;
    runner.onMarket(() => update);
    expect(runner.status()[0]).toMatchObject({ faulted: true });
    clock.advance(1);
    runner.onMarket(() => update);
    expect(runner.status()[0]).toEqual({ id: 'f', errors: 0, faulted: false });
    expect(starts).toBe(2);
  });
});

describe('hook time budget (hookTimeoutMs)', () => {
  /** Spins for `ms` of wall time: long enough to be "forever" next to a 100 ms budget, short enough that a runner without the budget returns and the test fails instead of hanging. */
  const spin = (ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      /* busy */
    }
  };

  it('a looping hook is stopped and its strategy faulted with the reason; the other keeps producing intents', () => {
    let loopingCalls = 0;
    const looping = defineStrategy({
      name: 'looping',
      params: z.strictObject({}),
      onMarket: () => {
        loopingCalls++;
        spin(5000);
      },
    });
    const runner = new StrategyRunner({
      instances: [
        { cfg: { id: 'l', name: 'looping', symbols: ['ETHUSDT_SPBL'], params: {} }, def: erase(looping) },
        { cfg: { id: 'g', name: 'good', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(good) },
      ],
      instruments,
      logger: silentLogger,
      maxErrors: 5,
      hookTimeoutMs: 100,
    });
    const intents: Intent[] = [];
    runner.intents$.subscribe((i) => intents.push(i));
    runner.onMarket(() => update);
    expect(runner.status()).toEqual([
      {
        id: 'l',
        errors: 1,
        faulted: true,
        hook: 'onMarket',
        error: 'ran over its 100 ms budget and was stopped',
        reason: 'onMarket ran over its 100 ms budget and was stopped',
      },
      { id: 'g', errors: 0, faulted: false },
    ]);
    runner.onMarket(() => update);
    runner.onMarket(() => update);
    expect(loopingCalls).toBe(1);
    expect(intents.map((i) => i.strategyId)).toEqual(['g', 'g', 'g']);
  });

  it('a strategy cannot catch the stop, and a loop hidden in its state or its intents is stopped too', () => {
    const stubborn = defineStrategy({
      name: 'stubborn',
      params: z.strictObject({}),
      onStart: () => {
        for (;;) {
          try {
            spin(5000);
            return;
          } catch {
            /* keeps going */
          }
        }
      },
    });
    const heavyState = defineStrategy({
      name: 'heavy-state',
      params: z.strictObject({}),
      onMarket: (ctx) => void (ctx.state.x = { toJSON: () => spin(5000) }),
    });
    const heavyIntent = defineStrategy({
      name: 'heavy-intent',
      params: z.strictObject({}),
      onMarket: (ctx) => [
        {
          kind: 'cancel-all',
          surface: 'spot',
          get symbol() {
            spin(5000);
            return ctx.symbols[0]!;
          },
        },
      ],
    });
    const store = { load: () => undefined, save: () => undefined };
    const runner = new StrategyRunner({
      instances: [
        { cfg: { id: 's', name: 'stubborn', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(stubborn) },
        { cfg: { id: 'hs', name: 'heavy-state', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(heavyState) },
        { cfg: { id: 'hi', name: 'heavy-intent', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(heavyIntent) },
      ],
      instruments,
      logger: silentLogger,
      maxErrors: 5,
      store,
      hookTimeoutMs: 100,
    });
    runner.start();
    runner.onMarket(() => update);
    expect(runner.status().map((s) => [s.id, s.faulted, s.reason])).toEqual([
      ['s', true, 'onStart ran over its 100 ms budget and was stopped'],
      ['hs', true, 'onMarket ran over its 100 ms budget and was stopped'],
      ['hi', true, 'onMarket ran over its 100 ms budget and was stopped'],
    ]);
  });

  it('under a budget, hooks behave as without: intents, errors counted, state saved', () => {
    const saved = new Map<string, string>();
    const store = { load: (id: string) => saved.get(id), save: (id: string, json: string) => void saved.set(id, json) };
    const counting = defineStrategy({
      name: 'counting',
      params: z.strictObject({}),
      onMarket: (ctx) => {
        ctx.state.n = ((ctx.state.n as number | undefined) ?? 0) + 1;
      },
    });
    const runner = new StrategyRunner({
      instances: [
        { cfg: { id: 'g', name: 'good', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(good) },
        { cfg: { id: 'b', name: 'bad', symbols: ['ETHUSDT_SPBL'], params: {} }, def: erase(bad) },
        { cfg: { id: 'c', name: 'counting', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(counting) },
      ],
      instruments,
      logger: silentLogger,
      maxErrors: 2,
      store,
      hookTimeoutMs: 1000,
    });
    const intents: Intent[] = [];
    runner.intents$.subscribe((i) => intents.push(i));
    runner.onMarket(() => update);
    runner.onMarket(() => update);
    expect(intents).toHaveLength(2);
    expect(intents[0]).toMatchObject({ kind: 'place', strategyId: 'g', symbol: 'BTCUSDT_SPBL' });
    expect(runner.status()[1]).toEqual({ id: 'b', errors: 2, faulted: true, hook: 'onMarket', error: 'boom', reason: '2 errors, the last in onMarket: boom' });
    expect(saved.get('c')).toBe('{"n":2}');
  });

  it('a strategy faulted by its budget starts again after restartFaultedAfterMs, as any faulted one', () => {
    const clock = new ManualClock(0);
    let slow = true;
    let calls = 0;
    const sometimesSlow = defineStrategy({
      name: 'sometimes-slow',
      params: z.strictObject({}),
      onMarket: () => {
        calls++;
        if (slow) spin(5000);
      },
    });
    const runner = new StrategyRunner({
      instances: [{ cfg: { id: 's', name: 'sometimes-slow', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(sometimesSlow) }],
      instruments,
      logger: silentLogger,
      maxErrors: 5,
      restartFaultedAfterMs: 1000,
      clock,
      hookTimeoutMs: 100,
    });
    runner.onMarket(() => update);
    expect(runner.status()[0]).toMatchObject({ faulted: true });
    slow = false;
    runner.onMarket(() => update);
    expect(calls).toBe(1);
    clock.advance(1000);
    runner.onMarket(() => update);
    expect(runner.status()[0]).toEqual({ id: 's', errors: 0, faulted: false });
    expect(calls).toBe(2);
  });

  it('refuses a budget of 0 ms or less', () => {
    expect(() => new StrategyRunner({ instances: [], instruments, logger: silentLogger, maxErrors: 5, hookTimeoutMs: 0 })).toThrow(RangeError);
  });
});

describe('strategy state', () => {
  it('is saved when it changes and handed back after a restart', () => {
    const counting = defineStrategy({
      name: 'counting',
      params: z.strictObject({}),
      onMarket: (ctx) => {
        ctx.state.n = ((ctx.state.n as number | undefined) ?? 0) + 1;
      },
    });
    const saved = new Map<string, string>();
    let saves = 0;
    const store = { load: (id: string) => saved.get(id), save: (id: string, json: string) => (saves++, saved.set(id, json)) };
    const make = () =>
      new StrategyRunner({
        instances: [{ cfg: { id: 'c', name: 'counting', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(counting) }],
        instruments,
        logger: silentLogger,
        maxErrors: 3,
        store: store,
      });
    const a = make();
    a.onMarket(() => update);
    a.onMarket(() => update);
    expect(saved.get('c')).toBe('{"n":2}');
    const b = make();
    b.onMarket(() => update);
    expect(saved.get('c')).toBe('{"n":3}');
    expect(saves).toBe(3);
  });
});

describe('strategy loader', () => {
  it('finds <name>.js or <name>/index.js in the configured folders and checks the default export', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-strats-'));
    mkdirSync(join(dir, 'folder-one'));
    writeFileSync(join(dir, 'folder-one', 'index.mjs'), "export default { name: 'folder-one', params: { safeParse: () => ({ success: true, data: {} }) } };\n");
    writeFileSync(join(dir, 'not-a-strategy.mjs'), 'export default 42;\n');
    expect(findStrategyFile('folder-one', ['/nonexistent', dir])).toBe(join(dir, 'folder-one', 'index.mjs'));
    expect((await loadStrategy('folder-one', [dir])).name).toBe('folder-one');
    await expect(loadStrategy('not-a-strategy', [dir])).rejects.toThrow(/not a strategy/);
    await expect(loadStrategy('missing', [dir])).rejects.toThrow(/not found/);
    expect(() => findStrategyFile('../etc/passwd', [dir])).toThrow(/letters, digits/);
  });
});
