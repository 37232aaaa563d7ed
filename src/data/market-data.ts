// The shared market-data streams of the polls table (polls.ts): tickers, open orders, balances and positions, each
// polled on its own period through the exchange client and shared with shareReplay; and, for recordings, the tape
// (futures tickers and the spot pairs' public trades), polled only while subscribed.
import { forkJoin, from, lastValueFrom, map, shareReplay, type Observable, type SchedulerLike } from 'rxjs';
import type { Balance, Position, PublicTrade, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExchangeClient } from '../exchange/client.js';
import { ExchangeError } from '../exchange/errors.js';
import type { TimeSource } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { poll, type Stamped } from './poll.js';
import { POLLS, activeReads, pollNamed, type PolledSymbols, type PollName, type PollRead, type PollValues } from './polls.js';

export interface MarketDataOptions {
  spotSymbols: string[];
  futuresSymbols: string[];
  polls: { tickersMs: number; ordersMs: number; balancesMs: number; positionsMs: number };
  clock: TimeSource;
  logger: Logger;
  scheduler?: SchedulerLike;
  /** Told of every successful poll (health, metrics). */
  onPolled?: (name: string, atMs: number) => void;
  /** Where orders, balances and positions are read, when not the market-data client (dry-run: the simulator). */
  trading?: ExchangeClient;
}

/** What a recording reads each cycle: the futures tickers (F2) and each spot pair's recent public trades (S9). */
export interface MarketTape {
  tickers: Ticker[];
  /** Newest first per pair, as the venue lists them. */
  trades: PublicTrade[];
}

/** Trades one S9 read returns at most (the interface's maximum; the weight is the same whatever the limit). */
export const TAPE_TRADES_LIMIT = 1000;

/** A spot pair has no ticker endpoint: its last public trade stands in for one. */
export function tickerFromTrade(symbol: string, t: { price: Ticker['last']; timestampMs: number } | undefined): Ticker | undefined {
  if (!t) return undefined;
  return { symbol, last: t.price, bestBid: null, bestAsk: null, markPrice: null, indexPrice: null, high24h: null, low24h: null, volume24h: null, baseVolume24h: null, timestampMs: t.timestampMs, fromTrade: true };
}

export class MarketData {
  readonly tickers$: Observable<Stamped<Map<string, Ticker>>>;
  readonly openOrders$: Observable<Stamped<Order[]>>;
  readonly balances$: Observable<Stamped<Balance[]>>;
  readonly positions$: Observable<Stamped<Position[]>>;
  /** On the tickers period, for recordings; nothing is read unless it is subscribed. */
  readonly tape$: Observable<Stamped<MarketTape>>;

  constructor(client: ExchangeClient, opts: MarketDataOptions) {
    const account = opts.trading ?? client;
    const log = opts.logger.child({ component: 'market-data' });
    const pollOptions = (name: string, periodMs: number) => ({
      periodMs, retries: 1, retryDelayMs: 200, clock: opts.clock, ...(opts.scheduler ? { scheduler: opts.scheduler } : {}),
      retryable: (e: unknown) => e instanceof ExchangeError && e.retryable,
      onError: (e: unknown) => log.warn({ poll: name, err: e instanceof ExchangeError ? e.summary() : String(e) }, 'poll failed: cycle skipped'),
    });
    const shared = <T>(name: string, src: Observable<Stamped<T>>) =>
      src.pipe(
        map((s) => (opts.onPolled?.(name, s.atMs), s)),
        shareReplay({ bufferSize: 1, refCount: true }),
      );
    const list = <T>(xs: Array<Promise<T[]>>): Promise<T[]> => (xs.length ? lastValueFrom(forkJoin(xs.map((p) => from(p))).pipe(map((a) => a.flat()))) : Promise.resolve([] as T[]));

    const symbols: PolledSymbols = { spot: opts.spotSymbols, futures: opts.futuresSymbols };
    const stream = <N extends PollName>(name: N, read: () => Promise<PollValues[N]>) => {
      const spec = pollNamed(name);
      return shared(name, poll(read, pollOptions(name, opts.polls[spec.periodKey])));
    };
    // What each poll reads, worked out once: the symbols do not change while the streams live.
    const readsOf = Object.fromEntries(POLLS.map((p) => [p.name, activeReads(p, symbols)])) as Record<PollName, PollRead[]>;
    const reads = (name: PollName) => readsOf[name];
    this.tickers$ = stream('tickers', async () => {
      const out = new Map<string, Ticker>();
      for (const r of reads('tickers')) {
        if (r.surface === 'futures') {
          for (const t of await client.tickers()) if (opts.futuresSymbols.includes(t.symbol)) out.set(t.symbol, t);
        } else {
          for (const s of opts.spotSymbols) {
            const t = tickerFromTrade(s, (await client.recentTrades(s, 1))[0]);
            if (t) out.set(s, t);
          }
        }
      }
      return out;
    });
    this.openOrders$ = stream('orders', () => list<Order>(reads('orders').flatMap((r) => symbols[r.surface].map((s) => account.openOrders(r.surface, s)))));
    this.balances$ = stream('balances', () => list<Balance>(reads('balances').map((r) => account.balances(r.surface))));
    this.positions$ = stream('positions', () => list<Position>(reads('positions').flatMap((r) => symbols[r.surface].map((s) => account.positions(s)))));
    this.tape$ = shared(
      'tape',
      poll(async () => {
        const tickers = opts.futuresSymbols.length ? (await client.tickers()).filter((t) => opts.futuresSymbols.includes(t.symbol)) : [];
        const trades: PublicTrade[] = [];
        // Under the symbol asked for, as the spot tickers are.
        for (const s of opts.spotSymbols) for (const t of await client.recentTrades(s, TAPE_TRADES_LIMIT)) trades.push(t.symbol === s ? t : { ...t, symbol: s });
        return { tickers, trades };
      }, pollOptions('tape', opts.polls.tickersMs)),
    );
  }
}
