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
  onMarket: (ctx) => [{ kind: 'place', surface: 'spot', symbol: ctx.symbols[0]!, orders: [{ side: 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from(ctx.params.size) }] }],
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
    const runner = new StrategyRunner(
      [{ cfg: { id: 'g', name: 'good', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(good) }, { cfg: { id: 'b', name: 'bad', symbols: ['ETHUSDT_SPBL'], params: {} }, def: erase(bad) }],
      instruments, silentLogger, 3,
    );
    const intents: Intent[] = [];
    runner.intents$.subscribe((i) => intents.push(i));
    for (let i = 0; i < 5; i++) runner.onMarket(() => update);
    expect(intents).toHaveLength(5);
    expect(intents.every((i) => i.strategyId === 'g')).toBe(true);
    expect(runner.status()).toEqual([{ id: 'g', errors: 0, faulted: false }, { id: 'b', errors: 3, faulted: true }]);
  });

  it('params are validated by the strategy schema; every problem is listed', () => {
    expect(() => new StrategyRunner(
      [{ cfg: { id: 'g', name: 'good', symbols: ['NOPE_SPBL'], params: { size: 1, extra: true } }, def: erase(good) }],
      instruments, silentLogger, 3,
    )).toThrow(StrategyConfigError);
    try {
      new StrategyRunner([{ cfg: { id: 'g', name: 'good', symbols: ['NOPE_SPBL'], params: { size: 1 } }, def: erase(good) }], instruments, silentLogger, 3);
    } catch (err) {
      expect((err as Error).message).toMatch(/strategies\[g\]\.params\.size: /);
    }
  });

  it('an intent for a symbol the instance does not trade is refused', () => {
    const rogue = defineStrategy({ name: 'rogue', params: z.strictObject({}), onMarket: () => [{ kind: 'cancel-all', surface: 'spot', symbol: 'SOLUSDT_SPBL' }] });
    const runner = new StrategyRunner([{ cfg: { id: 'r', name: 'rogue', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(rogue) }], instruments, silentLogger, 5);
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
    const flaky = defineStrategy({ name: 'flaky', params: z.strictObject({}), onStart: () => void starts++, onMarket: () => { if (fail) throw new Error('x'); } });
    const runner = new StrategyRunner([{ cfg: { id: 'f', name: 'flaky', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(flaky) }], instruments, silentLogger, 2, undefined, { afterMs: 1000, clock });
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

describe('strategy state', () => {
  it('is saved when it changes and handed back after a restart', () => {
    const counting = defineStrategy({ name: 'counting', params: z.strictObject({}), onMarket: (ctx) => { ctx.state.n = ((ctx.state.n as number | undefined) ?? 0) + 1; } });
    const saved = new Map<string, string>();
    let saves = 0;
    const store = { load: (id: string) => saved.get(id), save: (id: string, json: string) => (saves++, saved.set(id, json)) };
    const make = () => new StrategyRunner([{ cfg: { id: 'c', name: 'counting', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(counting) }], instruments, silentLogger, 3, store);
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
