// Runs strategy instances safely: params validated by each strategy's schema, hooks called in try/catch, a
// throwing instance counted and faulted after too many errors, a hook over its time budget stopped and its
// instance faulted, while the others keep running. Strategies see plain data; what they return becomes
// intents with their instance id. An operator may pause an instance (no hook is called: it makes no intents) and
// resume it. Bars closed for the instances' symbols and timeframes are kept in a shared history
// and handed to the instances that declared them; each instance's fills keep its inventory.
import { Subject } from 'rxjs';
import { TIMEFRAMES, isTimeframe, type Bar, type BarNeed, type Timeframe } from '../domain/candles.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { Intent } from '../domain/intent.js';
import { surfaceOfSymbol, type Instrument } from '../domain/market.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { HookResult, MarketUpdate, StrategyContext, StrategyDefinition } from './api.js';
import { BarHistory, type BarRing, type BarSeries } from './bar-history.js';
import { Inventory } from './inventory.js';
import { Deadline, HookInterruptedError, HookTimeoutError } from './deadline.js';
import { strategyThrowSite } from './loader.js';

export interface StrategyInstanceConfig {
  id: string;
  name: string;
  symbols: string[];
  params: unknown;
  /** Bar timeframes for each of its symbols; absent: the strategy's own. */
  timeframes?: Timeframe[];
}

/** Closed bars kept per symbol and timeframe when a strategy does not say, and the most it may ask for. */
export const DEFAULT_LOOKBACK = 100;
export const MAX_LOOKBACK = 5000;

/** One (symbol, timeframe) of bars: its history and the instances whose onBar takes its bars. */
interface BarRoute {
  ring: BarRing;
  takers: Instance[];
}

interface Instance {
  cfg: StrategyInstanceConfig;
  def: StrategyDefinition<unknown>;
  ctx: StrategyContext<unknown>;
  timeframes: Timeframe[];
  lookback: number;
  /** Its series, by symbol then timeframe. */
  series: Map<string, Map<Timeframe, BarSeries>>;
  inventory: Inventory;
  errors: number;
  /** While faulted: when, in which hook, the error and why it faulted (shown in the status). */
  fault: StrategyFault | undefined;
  /** Paused by an operator: no hook is called (its inventory still takes its fills). */
  paused: boolean;
  /** The state as last saved (JSON), to save only changes. */
  savedState: string;
}

export class StrategyConfigError extends Error {}

export interface StrategyRunnerOptions {
  /** The instances with their loaded definitions: each one's params are checked against its definition's schema. */
  instances: Array<{ cfg: StrategyInstanceConfig; def: StrategyDefinition<unknown> }>;
  /** The venue's instruments: an instance's symbols must be among them. */
  instruments: ReadonlyMap<string, Instrument>;
  logger: Logger;
  /** Hook errors an instance may throw before it is faulted. */
  maxErrors: number;
  /** Where each instance's state is kept across restarts (absent: state lives only in memory). */
  store?: StateStore;
  /** A faulted instance starts again (errors cleared, onStart called) this long after its fault; never when absent. Needs `clock`. */
  restartFaultedAfterMs?: number;
  /**
   * A hook (with the copying of its intents and state) running longer than this is stopped and its instance
   * faulted (deadline.ts). Absent: no deadline, as in a backtest, whose results must not depend on the machine's speed.
   */
  hookTimeoutMs?: number;
  /** The time of a fault and of a restart (virtual in a backtest); without it, faults carry no time. */
  clock?: Clock;
}

/** A faulted instance: when, in which hook and with which error, and why it was faulted. */
export interface StrategyFault {
  /** By the runner's clock; absent when it has none. */
  atMs?: number;
  hook: string;
  /** The message of the error that faulted it (the last one). */
  error: string;
  /** Why it is faulted: the budget it ran over, or the errors counted. */
  reason: string;
}

export interface StrategyStatus extends Partial<StrategyFault> {
  id: string;
  errors: number;
  faulted: boolean;
  /** Present (true) while an operator has it paused. */
  paused?: true;
}

/** A change of an instance's running state: faulted by its errors, started again after a fault, paused or resumed. */
export interface StrategyChange {
  id: string;
  change: 'faulted' | 'restarted' | 'paused' | 'resumed';
  /** Why it faulted; empty otherwise. */
  reason: string;
  /** By the runner's clock; absent when it has none. */
  atMs?: number;
}

const NOTHING: { intents: Intent[]; stateJson: string | undefined } = Object.freeze({
  intents: Object.freeze([]) as unknown as Intent[],
  stateJson: undefined,
});

/** Where instances keep their state across restarts (the journal, in the daemon). */
export interface StateStore {
  load(id: string): string | undefined;
  save(id: string, json: string): void;
}

/**
 * The strategy instances of one daemon or backtest. Built from the instances and their definitions (params checked
 * against each schema, symbols against the venue, bar needs gathered); then each market update, closed bar, execution
 * event and schedule is handed to the instances it concerns, in config order, and what they return comes out of
 * `intents$` stamped with the instance's id. A hook that throws counts an error (too many fault the instance), one
 * over its deadline is stopped and faults it; `changes$` tells of faults, restarts and pauses.
 */
export class StrategyRunner {
  readonly intents$ = new Subject<Intent>();
  /** Every change of an instance's running state (faults, restarts, pauses), as it happens. */
  readonly changes$ = new Subject<StrategyChange>();
  private readonly instances: Instance[] = [];
  private readonly deadline: Deadline | undefined;
  private readonly clock: Clock | undefined;
  private readonly history = new BarHistory();
  private readonly routes = new Map<string, Map<Timeframe, BarRoute>>();

  private readonly logger: Logger;
  private readonly maxErrors: number;
  private readonly store: StateStore | undefined;
  private readonly restartAfterMs: number | undefined;

  constructor(opts: StrategyRunnerOptions) {
    const { instruments, logger, store } = opts;
    if (opts.hookTimeoutMs !== undefined) {
      if (!(opts.hookTimeoutMs > 0)) throw new RangeError('hookTimeoutMs must be above 0');
      this.deadline = new Deadline(opts.hookTimeoutMs);
    }
    if (opts.restartFaultedAfterMs !== undefined && !opts.clock) throw new RangeError('restartFaultedAfterMs needs a clock');
    this.logger = logger;
    this.maxErrors = opts.maxErrors;
    this.store = store;
    this.restartAfterMs = opts.restartFaultedAfterMs;
    this.clock = opts.clock;
    const problems: string[] = [];
    for (const { cfg, def } of opts.instances) {
      const parsed = parseParams(cfg.id, def, cfg.params);
      if (!parsed.ok) {
        problems.push(...parsed.problems);
        continue;
      }
      for (const s of cfg.symbols) if (!instruments.has(s)) problems.push(`strategies[${cfg.id}].symbols: unknown symbol ${s}`);
      const timeframes = timeframesOf(cfg, def, problems);
      const lookback = lookbackOf(cfg, def, parsed.data, problems);
      const log = logger.child({ component: 'strategy', strategy: cfg.id });
      const saved = store?.load(cfg.id);
      const state = saved ? (JSON.parse(saved) as Record<string, unknown>) : {};
      const series = new Map<string, Map<Timeframe, BarSeries>>();
      const inventory = new Inventory((symbol) => instruments.get(symbol)?.surface ?? surfaceOfSymbol(symbol));
      const bars = (symbol: string, timeframe: Timeframe): BarSeries => {
        const found = series.get(symbol)?.get(timeframe);
        if (found) return found;
        throw new Error(
          `bars(${symbol}, ${timeframe}): strategies[${cfg.id}] did not declare them (symbols: ${cfg.symbols.join(', ') || 'none'}; timeframes: ${timeframes.join(', ') || 'none'})`,
        );
      };
      const holding = (symbol: string) => {
        if (!cfg.symbols.includes(symbol)) throw new Error(`inventory(${symbol}): not among the symbols of strategies[${cfg.id}] (${cfg.symbols.join(', ')})`);
        return inventory.of(symbol);
      };
      this.instances.push({
        cfg,
        def,
        errors: 0,
        fault: undefined,
        paused: false,
        savedState: saved ?? '{}',
        timeframes,
        lookback,
        series,
        inventory,
        ctx: {
          id: cfg.id,
          params: parsed.data,
          symbols: cfg.symbols,
          instruments,
          state,
          log: { info: (m, f) => log.info(f ?? {}, m), warn: (m, f) => log.warn(f ?? {}, m) },
          bars,
          inventory: holding,
        },
      });
    }
    if (problems.length) throw new StrategyConfigError(problems.join('\n'));
    this.routeBars();
  }

  /** The shared history (one ring per symbol and timeframe, as long as the longest lookback), each instance's series over it, and who takes which bars. */
  private routeBars(): void {
    for (const i of this.instances) for (const s of i.cfg.symbols) for (const tf of i.timeframes) this.history.want(s, tf, i.lookback);
    this.history.build();
    for (const i of this.instances) {
      for (const s of i.cfg.symbols) {
        const bySymbol = new Map<Timeframe, BarSeries>();
        i.series.set(s, bySymbol);
        const routes = this.routes.get(s) ?? new Map<Timeframe, BarRoute>();
        this.routes.set(s, routes);
        for (const tf of i.timeframes) {
          const ring = this.history.ring(s, tf)!;
          bySymbol.set(tf, ring.series(i.lookback));
          const route = routes.get(tf) ?? { ring, takers: [] };
          routes.set(tf, route);
          if (i.def.onBar) route.takers.push(i);
        }
      }
    }
  }

  /** Each instance's bar timeframes (its config's, else its strategy's). */
  timeframes(): Array<{ strategy: string; timeframe: Timeframe }> {
    return this.instances.flatMap((i) => i.timeframes.map((timeframe) => ({ strategy: i.cfg.id, timeframe })));
  }

  get ids(): string[] {
    return this.instances.map((i) => i.cfg.id);
  }

  status(): StrategyStatus[] {
    return this.instances.map((i) => ({
      id: i.cfg.id,
      errors: i.errors,
      faulted: i.fault !== undefined,
      ...i.fault,
      ...(i.paused ? { paused: true as const } : {}),
    }));
  }

  /** Each instance as configured: its strategy's name, its symbols and its params (as given, before parsing). */
  configs(): StrategyInstanceConfig[] {
    return this.instances.map((i) => ({ ...i.cfg }));
  }

  /**
   * Operator action: no hook of the instance is called until resume(), so it makes no intents (its inventory still
   * takes its fills). False when there is no such instance; pausing a paused one changes nothing.
   */
  pause(id: string): boolean {
    return this.setPaused(id, true);
  }

  /** Operator action: the instance takes updates again. False when there is no such instance. */
  resume(id: string): boolean {
    return this.setPaused(id, false);
  }

  private setPaused(id: string, paused: boolean): boolean {
    const i = this.instances.find((x) => x.cfg.id === id);
    if (!i) return false;
    if (i.paused === paused) return true;
    i.paused = paused;
    this.logger.warn({ strategy: id }, paused ? 'strategy paused by an operator: no hook is called' : 'strategy resumed by an operator');
    this.told(i, paused ? 'paused' : 'resumed', '');
    return true;
  }

  private told(inst: Instance, change: StrategyChange['change'], reason: string): void {
    this.changes$.next({ id: inst.cfg.id, change, reason, ...(this.clock ? { atMs: this.clock.now() } : {}) });
  }

  symbols(): string[] {
    return [...new Set(this.instances.flatMap((i) => i.cfg.symbols))];
  }

  /** Calls one hook of an instance with its context and `arg` (and `arg2`), safely. */
  private call<A, B = undefined>(inst: Instance, hook: string, fn: (ctx: StrategyContext<unknown>, arg: A, arg2: B) => HookResult, arg: A, arg2?: B): void {
    if (inst.paused) return;
    if (inst.fault) {
      if (this.restartAfterMs === undefined || this.clock!.now() - inst.fault.atMs! < this.restartAfterMs) return;
      inst.fault = undefined;
      inst.errors = 0;
      this.logger.warn({ strategy: inst.cfg.id }, 'strategy restarted after a fault');
      this.told(inst, 'restarted', '');
      if (inst.def.onStart) this.call(inst, 'onStart', (ctx) => inst.def.onStart!(ctx), undefined);
      if (inst.fault) return;
    }
    try {
      const { intents, stateJson } = this.deadline ? this.deadline.run(() => this.produce(inst, fn, arg, arg2 as B)) : this.produce(inst, fn, arg, arg2 as B);
      for (const intent of intents) this.intents$.next(intent);
      if (stateJson !== undefined && stateJson !== inst.savedState) {
        this.store!.save(inst.cfg.id, stateJson);
        inst.savedState = stateJson;
      }
    } catch (err) {
      // Stopped by the user's SIGINT: not the strategy's fault, and the process is stopping.
      if (err instanceof HookInterruptedError) {
        this.logger.warn({ strategy: inst.cfg.id, hook }, 'strategy hook stopped by SIGINT');
        return;
      }
      inst.errors++;
      // Stopped over its budget: stopped wherever it was, which its stack does not tell.
      const { message, at } = err instanceof HookTimeoutError ? { message: err.message, at: undefined } : strategyError(inst.def, err);
      this.logger.error({ strategy: inst.cfg.id, hook, errors: inst.errors, err: message, ...(at ? { at } : {}) }, 'strategy hook failed');
      if (err instanceof HookTimeoutError) this.faultOf(inst, hook, message, `${hook} ${message}`);
      else if (inst.errors >= this.maxErrors) this.faultOf(inst, hook, message, `${inst.errors} errors, the last in ${hook}: ${message}`);
    }
  }

  /**
   * Everything strategy code does for one hook call, under the deadline when there is one: the call, its
   * intents checked and stamped with the instance id (getters run here too), its state serialised.
   */
  private produce<A, B>(
    inst: Instance,
    fn: (ctx: StrategyContext<unknown>, arg: A, arg2: B) => HookResult,
    arg: A,
    arg2: B,
  ): { intents: Intent[]; stateJson: string | undefined } {
    const out = fn.call(inst.def, inst.ctx, arg, arg2);
    // Most calls return nothing and a backtest keeps no state: nothing is allocated for them.
    if (!this.store && (!out || (Array.isArray(out) && out.length === 0))) return NOTHING;
    const intents: Intent[] = [];
    if (out) {
      for (const intent of out) {
        if (!inst.cfg.symbols.includes(intent.symbol)) throw new Error(`intent for ${intent.symbol}, which is not among its symbols`);
        // Object.assign, not a spread with a field after it: the same object, much faster to build.
        intents.push(Object.assign({}, intent, { strategyId: inst.cfg.id }) as Intent);
      }
    }
    return { intents, stateJson: this.store ? JSON.stringify(inst.ctx.state) : undefined };
  }

  private faultOf(inst: Instance, hook: string, error: string, reason: string): void {
    inst.fault = { ...(this.clock ? { atMs: this.clock.now() } : {}), hook, error, reason };
    this.logger.error({ strategy: inst.cfg.id, reason }, 'strategy faulted: no more hooks are called');
    this.told(inst, 'faulted', reason);
  }

  /** Problems with new params for an instance (nothing is changed). */
  checkParams(id: string, raw: unknown): string[] {
    const i = this.instances.find((x) => x.cfg.id === id);
    if (!i) return [`strategies[${id}]: no such running instance`];
    const parsed = parseParams(id, i.def, raw);
    return parsed.ok ? [] : parsed.problems;
  }

  /** Replaces an instance's params after validating them with its schema; the old ones stay on error. */
  updateParams(id: string, raw: unknown): string[] {
    const i = this.instances.find((x) => x.cfg.id === id);
    if (!i) return [`strategies[${id}]: no such running instance`];
    const parsed = parseParams(id, i.def, raw);
    if (!parsed.ok) return parsed.problems;
    i.ctx.params = parsed.data;
    i.cfg = { ...i.cfg, params: raw };
    return [];
  }

  start(): void {
    for (const i of this.instances) if (i.def.onStart) this.call(i, 'onStart', i.def.onStart, undefined);
  }

  /**
   * One market update; `build` narrows it to the instance's own orders and symbols. An instance `waiting` says yes to
   * (intents of its own not yet written down, so not in its view: it would ask for them again) is skipped.
   */
  onMarket(build: (cfg: StrategyInstanceConfig) => MarketUpdate, waiting?: (id: string) => boolean): void {
    for (const i of this.instances) if (i.def.onMarket && !waiting?.(i.cfg.id)) this.call(i, 'onMarket', i.def.onMarket, build(i.cfg));
  }

  /** An execution event of an instance: its inventory takes it (even while faulted), then its onEvent hook. */
  onEvent(e: ExecutionEvent): void {
    if (!('strategyId' in e)) return;
    for (const i of this.instances) {
      if (i.cfg.id !== e.strategyId) continue;
      i.inventory.apply(e);
      if (i.def.onEvent) this.call(i, 'onEvent', i.def.onEvent, e);
    }
  }

  /** The bars the instances read: each (symbol, timeframe) once, with the longest lookback asking for it. */
  barNeeds(): BarNeed[] {
    return this.history.all().map((r) => ({ symbol: r.symbol, timeframe: r.timeframe, lookback: r.capacity }));
  }

  /** History from before the start (oldest first): kept, no hook called. Bars not newer than those held are skipped. */
  warm(symbol: string, timeframe: Timeframe, bars: readonly Bar[]): void {
    const ring = this.history.ring(symbol, timeframe);
    if (!ring) return;
    for (const b of bars) ring.push(b);
  }

  /** Where `forming` of a (symbol, timeframe) is read, each time a strategy reads it. */
  formingFrom(symbol: string, timeframe: Timeframe, source: () => Bar | null): void {
    const ring = this.history.ring(symbol, timeframe);
    if (ring) ring.formingSource = source;
  }

  /**
   * A closed bar: kept in the history, then given to the onBar of each instance that declared its symbol and
   * timeframe, with its update (`build`, called only for those). A bar not newer than the newest held (a repeat)
   * is dropped; a bar nobody declared is ignored.
   */
  onBar(bar: Bar, build: (cfg: StrategyInstanceConfig) => MarketUpdate, waiting?: (id: string) => boolean): void {
    const route = this.routes.get(bar.symbol)?.get(bar.timeframe);
    if (!route) return;
    if (!route.ring.push(bar)) {
      this.logger.warn(
        { symbol: bar.symbol, timeframe: bar.timeframe, openMs: bar.openMs, newestOpenMs: route.ring.lastOpenMs },
        'bar not newer than the history: dropped',
      );
      return;
    }
    const takers = route.takers;
    for (let k = 0; k < takers.length; k++) {
      const i = takers[k]!;
      if (!waiting?.(i.cfg.id)) this.call(i, 'onBar', i.def.onBar!, bar, build(i.cfg));
    }
  }

  onSchedule(id: string, hook: string, nowMs: number): void {
    const i = this.instances.find((x) => x.cfg.id === id);
    const fn = i?.def.onSchedule?.[hook];
    if (i && fn) this.call(i, `onSchedule.${hook}`, fn, nowMs);
  }
}

/**
 * An error thrown by a strategy's code, as it is reported: its message, followed by where in the strategy's own
 * files it was thrown (` (at /path/index.ts:12:7)`) when that is known (a definition the loader loaded: loader.ts).
 */
function strategyError(def: StrategyDefinition<unknown>, err: unknown): { message: string; at: string | undefined } {
  const text = err instanceof Error ? err.message : String(err);
  const at = strategyThrowSite(def, err);
  return { message: at ? `${text} (at ${at})` : text, at };
}

/** An instance's params parsed by its strategy's schema, or the problems with them (a schema that throws is one). */
function parseParams(id: string, def: StrategyDefinition<unknown>, raw: unknown): { ok: true; data: unknown } | { ok: false; problems: string[] } {
  let parsed;
  try {
    parsed = def.params.safeParse(raw ?? {});
  } catch (err) {
    return { ok: false, problems: [`strategies[${id}].params: strategy ${def.name} params check failed: ${strategyError(def, err).message}`] };
  }
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, problems: parsed.error.issues.map((i) => `strategies[${id}].params.${i.path.join('.')}: ${i.message}`) };
}

/** The instance's timeframes (its config's, else its strategy's), each once; problems for unknown ones. */
function timeframesOf(cfg: StrategyInstanceConfig, def: StrategyDefinition<unknown>, problems: string[]): Timeframe[] {
  const from = cfg.timeframes ?? def.timeframes ?? [];
  const where = cfg.timeframes ? `strategies[${cfg.id}].timeframes` : `strategies[${cfg.id}]: strategy ${def.name} timeframes`;
  const out: Timeframe[] = [];
  const before = problems.length;
  if (!Array.isArray(from)) {
    problems.push(`${where}: not a list of timeframes`);
    return out;
  }
  for (const tf of from as unknown[]) {
    if (typeof tf !== 'string' || !isTimeframe(tf)) problems.push(`${where}: unknown timeframe ${JSON.stringify(tf)} (one of ${TIMEFRAMES.join(', ')})`);
    else if (!out.includes(tf)) out.push(tf);
  }
  if (def.onBar && out.length === 0 && problems.length === before)
    problems.push(`strategies[${cfg.id}].timeframes: strategy ${def.name} has an onBar hook but no timeframes: name them in the config`);
  return out;
}

/** The instance's lookback (the strategy's, from its params when a function), checked: a whole number 1–5000. */
function lookbackOf(cfg: StrategyInstanceConfig, def: StrategyDefinition<unknown>, params: unknown, problems: string[]): number {
  let n: unknown;
  try {
    n = typeof def.lookback === 'function' ? def.lookback(params) : (def.lookback ?? DEFAULT_LOOKBACK);
  } catch (err) {
    problems.push(`strategies[${cfg.id}]: strategy ${def.name} lookback failed: ${strategyError(def, err).message}`);
    return DEFAULT_LOOKBACK;
  }
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_LOOKBACK) {
    problems.push(`strategies[${cfg.id}]: strategy ${def.name} lookback ${String(n)} is not a whole number from 1 to ${MAX_LOOKBACK}`);
    return DEFAULT_LOOKBACK;
  }
  return n;
}
