// The backtest's virtual venue and its driver: the in-process simulator behind the venue's weight meter and the
// round trip, the polls of the polls table (data/polls.ts) read from it in virtual time, and the replay that moves
// market events and timers in time order. Nothing real is awaited, so runs repeat exactly.
import type { Stamped } from '../data/poll.js';
import { BarFeed } from '../data/bar-feed.js';
import {
  POLLS,
  activeReads,
  pollCycle,
  pollNamed,
  symbolsOf,
  type PollChoices,
  type PolledSymbols,
  type PollName,
  type PollPeriodKey,
  type PollValues,
} from '../data/polls.js';
import type { Balance, Instrument, Position, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExchangeClient } from '../exchange/client.js';
import { LatencyClient } from '../exchange/sim/latency-client.js';
import type { ReplayMarket } from '../exchange/sim/market.js';
import type { MeteredClient } from '../exchange/sim/metered-client.js';
import type { SimulatedExchange } from '../exchange/sim/simulated-exchange.js';
import { nextTurn, type VirtualClock } from '../util/clock.js';
import { DirectStream } from '../util/direct-stream.js';
import type { BoundVenue, Core, TradedSymbols } from './core.js';
import type { MarketStreams } from './trading-loop.js';

/** The virtual venue of a backtest: what the kernel builds, the run drives and the report reads. */
export interface BacktestVenue {
  market: ReplayMarket;
  simulator: SimulatedExchange;
  metered: MeteredClient;
  clock: VirtualClock;
  /** First and last market event. */
  startMs: number;
  endMs: number;
  /** Polls skipped because the meter refused them (the venue would have answered 429). */
  pollsSkipped(): number;
  instruments(): Promise<Map<string, Instrument>>;
  /** Binds the venue to the traded symbols: the virtual polls start on their periods, bars are built from the ticks. */
  bind(symbols: TradedSymbols): BoundVenue;
  /** The tickers the daemon would read now (a spot pair: its last trade). */
  tickersNow(symbols: PolledSymbols): Map<string, Ticker>;
  /**
   * With `externalPolls` (a shadow following a live daemon), once bound: a poll read at the venue now and answered
   * the latency's way back later (charged as the periodic polls are); and tickers delivered as given (the ones the
   * live daemon read, at the instant it read them).
   */
  pollNow(name: Exclude<PollName, 'tickers' | 'trades'>): void;
  showTickers(tickers: Stamped<Map<string, Ticker>>): void;
}

export interface BacktestVenueParts {
  market: ReplayMarket;
  simulator: SimulatedExchange;
  metered: MeteredClient;
  clock: VirtualClock;
  latencyMs: number;
  polls: Record<PollPeriodKey, number>;
  choices: PollChoices;
  /** A bar with no later tick closes this long after its end (config daemon.bars.closeDelayMs). */
  closeDelayMs: number;
  /** Polls are made when pollNow and showTickers say (a shadow), not on their periods. */
  externalPolls?: boolean;
}

/** Builds the virtual venue from the simulator parts the kernel chose. */
export function virtualVenue(parts: BacktestVenueParts): BacktestVenue {
  const { market, simulator, metered, clock } = parts;
  const startMs = market.nextTs;
  // A request spends half the round trip on the way out, the rest on the way back.
  const outMs = Math.floor(parts.latencyMs / 2);
  const backMs = parts.latencyMs - outMs;
  const trading: ExchangeClient = parts.latencyMs > 0 ? new LatencyClient(metered, outMs, backMs, clock) : metered;
  let skipped = 0;
  let external: Pick<BacktestVenue, 'pollNow' | 'showTickers'> | undefined;
  const unbound = () => {
    throw new Error('the virtual venue is not bound yet');
  };
  /** The tickers of `ordered` (futures, then spot) as the daemon would read them now (a spot pair: per exchange.spotTickers). */
  const spotFromTrade = parts.choices.spotTickers === 'trade';
  const tickersOf = (ordered: readonly string[]) => {
    // Which view each symbol is read in, worked out once per list.
    const views = ordered.map((s) => spotFromTrade && simulator.engine.instrument(s)?.surface === 'spot');
    return () => {
      const m = new Map<string, Ticker>();
      for (let i = 0; i < ordered.length; i++) m.set(ordered[i]!, simulator.engine.ticker(ordered[i]!, views[i])!);
      return m;
    };
  };
  const tickersNow = (symbols: PolledSymbols) => tickersOf([...symbols.futures, ...symbols.spot])();
  // What the engine shows changes only with its version: reads in between hand back the same answer.
  const cached = <T>(read: () => T) => {
    let version = -1;
    let value: T;
    return () => {
      if (version !== simulator.engine.version) {
        version = simulator.engine.version;
        value = read();
      }
      return value;
    };
  };
  /** What each poll reads at the venue, now, in the order of its reads. */
  const readers = (symbols: PolledSymbols): { [N in PollName]: () => PollValues[N] } => {
    // Worked out once: a poll reads the same things every cycle.
    const reads = (name: PollName) => activeReads(pollNamed(name), symbols, parts.choices);
    const tickerSymbols = [...symbols.futures, ...symbols.spot];
    const orders = reads('orders').flatMap((r) => symbolsOf(r, symbols).map((s) => [r.surface, s] as const));
    const balances = reads('balances').map((r) => r.surface);
    const positions = reads('positions').flatMap((r) => symbolsOf(r, symbols));
    return {
      tickers: tickersOf(tickerSymbols),
      orders: cached(() => orders.flatMap(([surface, s]) => simulator.openOrdersNow(surface, s))),
      // Futures positions and collateral move with the mark on every tick (unrealised PnL, available margin, the
      // liquidation price): read anew each poll, as the venue would answer. Spot balances change only with orders.
      balances: (() => {
        const spot = cached(() => simulator.balancesNow('spot'));
        return () => {
          const out: Balance[] = [];
          for (const surface of balances) for (const b of surface === 'spot' ? spot() : simulator.balancesNow(surface)) out.push(b);
          return out;
        };
      })(),
      positions: () => {
        const out: Position[] = [];
        for (const s of positions) for (const p of simulator.positionsNow(s)) out.push(p);
        return out;
      },
      // Charged as live polls them; the bars are built from every replayed tick (what the tape shows).
      trades: () => [],
    };
  };
  return {
    market,
    simulator,
    metered,
    clock,
    startMs,
    endMs: market.lastTs,
    pollsSkipped: () => skipped,
    instruments: async () => {
      const out = new Map<string, Instrument>();
      for (const s of ['spot', 'futures'] as const) for (const i of await metered.instruments(s)) out.set(i.symbol, i);
      return out;
    },
    tickersNow,
    pollNow: (name) => (external ? external.pollNow(name) : unbound()),
    showTickers: (tickers) => (external ? external.showTickers(tickers) : unbound()),
    bind: (symbols) => {
      const streams = {
        tickers$: new DirectStream<Stamped<Map<string, Ticker>>>(),
        openOrders$: new DirectStream<Stamped<Order[]>>(),
        balances$: new DirectStream<Stamped<Balance[]>>(),
        positions$: new DirectStream<Stamped<Position[]>>(),
      };
      const deliver: { [N in PollName]: (v: Stamped<PollValues[N]>) => void } = {
        tickers: (v) => streams.tickers$.next(v),
        orders: (v) => streams.openOrders$.next(v),
        balances: (v) => streams.balances$.next(v),
        positions: (v) => streams.positions$.next(v),
        trades: () => undefined,
      };
      const read = readers(symbols);
      // Polls: charged and read at the venue at one instant, answered one way later.
      const pollers = new Map<PollName, () => void>();
      for (const poll of POLLS) {
        const endpoints = pollCycle(poll, symbols, parts.choices).flatMap((r) => Array<typeof r.endpoint>(r.times).fill(r.endpoint));
        if (endpoints.length === 0) continue;
        const send = deliver[poll.name] as (v: Stamped<unknown>) => void;
        const readNow = read[poll.name] as () => unknown;
        const admit = metered.admitter(endpoints);
        const pollOnce = () => {
          if (!admit()) {
            skipped++;
            return;
          }
          const v = { value: readNow(), atMs: clock.now() };
          if (backMs > 0) clock.at(v.atMs + backMs, send, v);
          else send(v);
        };
        pollers.set(poll.name, pollOnce);
        if (!parts.externalPolls) clock.every(startMs + outMs, parts.polls[poll.periodKey], pollOnce);
      }
      external = { pollNow: (name) => pollers.get(name)?.(), showTickers: (tickers) => streams.tickers$.next(tickers) };
      // Bars from every replayed tick of their symbols, in integer ticks and steps (the hot path allocates nothing).
      if (symbols.bars.length === 0) return { trading, streams: streams as MarketStreams };
      const units = new Map(market.symbols.map((m) => [m.spec.symbol, { tickSize: m.tickSize, stepSize: m.stepSize }]));
      const feed = new BarFeed({ needs: symbols.bars, units, clock, closeDelayMs: parts.closeDelayMs });
      const builders = market.symbols.map((m) => feed.builder(m.spec.symbol));
      simulator.afterTick = (m) => builders[m.index]?.trade(m.ts, m.last, m.tradeSize);
      return { trading, streams: streams as MarketStreams, bars: feed };
    },
  };
}

/**
 * When a replay may move time on: every chain of promise continuations (the write in flight, a reconciliation) waits
 * on virtual time, and no intent waits to be sent while nothing is in flight.
 */
export function quietOf(clock: VirtualClock, core: Pick<Core, 'busy' | 'inFlight' | 'queued'>): () => boolean {
  return () => clock.sleeping === core.busy() && !(core.inFlight.size === 0 && core.queued() > 0);
}

/** Awaited for one microtask turn: a promise already settled (awaiting a plain value would make one each time). */
const SETTLED = Promise.resolve();

/**
 * Drives a run: market events and virtual-time timers in time order (a tick before a timer of the same instant:
 * a poll at t sees the market at t). Work started by a timer or an intent runs as promise continuations, which
 * run before virtual time moves on: every chain of them (the write in flight, a reconciliation) ends waiting on
 * a virtual-time sleep or done, and microtask turns are given until `quiet` says so; anything else still pending
 * gets a full turn of the event loop (after every pending microtask).
 */
export class Replay {
  private dirty = false;

  constructor(
    private readonly venue: BacktestVenue,
    private readonly quiet: () => boolean,
  ) {}

  /** Something was started that continues in promise continuations. */
  readonly touch = (): void => {
    this.dirty = true;
  };

  async run(endAt: number, onProgress: (eventsDone: number) => void): Promise<void> {
    const { market, clock, simulator } = this.venue;
    let steps = 0;
    for (;;) {
      const tEvent = market.nextTs;
      let tTimer = clock.nextAt();
      if (tTimer < tEvent) {
        if (tTimer > endAt) return;
        // Timers due before the next event, one after another until one starts work that continues in promise
        // continuations (the market does not move meanwhile).
        do {
          if (clock.runNext()) this.dirty = true;
          tTimer = clock.nextAt();
        } while (!this.dirty && tTimer < tEvent && tTimer <= endAt);
      } else {
        if (tEvent === Number.POSITIVE_INFINITY || tEvent > endAt) return;
        simulator.advanceTo(tEvent);
        if (++steps % 65536 === 0) onProgress(market.replayed);
      }
      if (this.dirty) {
        // Settled here, not in a function of its own: a run settles about a million times (no promise for each).
        this.dirty = false;
        let turns = 0;
        while (!this.quiet()) {
          if (++turns > 64) {
            await nextTurn();
            break;
          }
          await SETTLED;
        }
      }
    }
  }
}
