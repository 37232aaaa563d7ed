// The shared market-data streams of the polls table (polls.ts): tickers, open orders, balances, positions and the
// bar pairs' public trades, each polled on its own period through the exchange client and shared with shareReplay;
// and, for recordings, the tape (futures tickers and the spot pairs' public trades), polled only while subscribed.
import { forkJoin, from, lastValueFrom, map, shareReplay, type Observable, type SchedulerLike } from 'rxjs';
import type { Balance, OrderBook, Position, PublicTrade, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExchangeClient } from '../exchange/client.js';
import { ExchangeError } from '../exchange/errors.js';
import type { TimeSource } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { poll, type Stamped } from './poll.js';
import { POLLS, activeReads, pollNamed, symbolsOf, type PollChoices, type PolledSymbols, type PollName, type PollValues, type ResolvedRead } from './polls.js';

export interface MarketDataOptions {
  spotSymbols: string[];
  futuresSymbols: string[];
  /** Spot pairs whose bars are built from their public trades (the trades poll reads them). */
  barSpotSymbols?: string[];
  polls: { tickersMs: number; ordersMs: number; balancesMs: number; positionsMs: number; tradesMs: number };
  /** How the configurable reads are made (tickers, spot open orders). */
  choices: PollChoices;
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

/**
 * A spot pair's ticker from its S11 ticker and the top of its book (S13): the spot ticker has no bid or ask, and
 * its `ts` is the venue's clock at the answer, so the book's time is the reading's time.
 */
export function tickerWithBook(t: Ticker, book: OrderBook): Ticker {
  return { ...t, bestBid: book.bids[0]?.price ?? null, bestAsk: book.asks[0]?.price ?? null, timestampMs: book.timestampMs };
}

export class MarketData {
  readonly tickers$: Observable<Stamped<Map<string, Ticker>>>;
  readonly openOrders$: Observable<Stamped<Order[]>>;
  readonly balances$: Observable<Stamped<Balance[]>>;
  readonly positions$: Observable<Stamped<Position[]>>;
  /** The bar pairs' recent public trades (S9), newest first per pair; nothing is read unless it is subscribed. */
  readonly trades$: Observable<Stamped<PublicTrade[]>>;
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

    const symbols: PolledSymbols = { spot: opts.spotSymbols, futures: opts.futuresSymbols, barSpot: opts.barSpotSymbols ?? [] };
    const stream = <N extends PollName>(name: N, read: () => Promise<PollValues[N]>) => {
      const spec = pollNamed(name);
      return shared(name, poll(read, pollOptions(name, opts.polls[spec.periodKey])));
    };
    // What each poll reads, worked out once: the symbols do not change while the streams live.
    const readsOf = Object.fromEntries(POLLS.map((p) => [p.name, activeReads(p, symbols, opts.choices)])) as Record<PollName, ResolvedRead[]>;
    const reads = (name: PollName) => readsOf[name];
    const futuresTickers = async (): Promise<Ticker[]> => {
      if (opts.futuresSymbols.length === 0) return [];
      if (opts.choices.futuresTickers === 'F2') return (await client.tickers()).filter((t) => opts.futuresSymbols.includes(t.symbol));
      return list(opts.futuresSymbols.map(async (s) => [await client.ticker(s)]));
    };
    this.tickers$ = stream('tickers', async () => {
      const out = new Map<string, Ticker>();
      for (const r of reads('tickers')) {
        if (r.surface === 'futures') {
          for (const t of await futuresTickers()) out.set(t.symbol, t);
        } else if (r.endpoint === 'S9') {
          for (const s of opts.spotSymbols) {
            const t = tickerFromTrade(s, (await client.recentTrades(s, 1))[0]);
            if (t) out.set(s, t);
          }
        } else if (r.endpoint === 'S11') {
          // S11 and S13 together: the ticker and the top of the book of each pair.
          for (const s of opts.spotSymbols) {
            const [t, book] = await Promise.all([client.ticker(s), client.depth(s, 15)]);
            out.set(s, tickerWithBook(t, book));
          }
        }
      }
      return out;
    });
    this.openOrders$ = stream('orders', () => list<Order>(reads('orders').flatMap((r) => symbolsOf(r, symbols).map((s) => account.openOrders(r.surface, s)))));
    this.balances$ = stream('balances', () => list<Balance>(reads('balances').map((r) => account.balances(r.surface))));
    this.positions$ = stream('positions', () => list<Position>(reads('positions').flatMap((r) => symbolsOf(r, symbols).map((s) => account.positions(s)))));
    // Under the symbol asked for, as the spot tickers are.
    const tradesOf = async (s: string) => (await client.recentTrades(s, TAPE_TRADES_LIMIT)).map((t) => (t.symbol === s ? t : { ...t, symbol: s }));
    this.trades$ = stream('trades', () => list<PublicTrade>(reads('trades').flatMap((r) => symbolsOf(r, symbols).map(tradesOf))));
    this.tape$ = shared(
      'tape',
      poll(async () => {
        const tickers = await futuresTickers();
        const trades: PublicTrade[] = [];
        for (const s of opts.spotSymbols) trades.push(...(await tradesOf(s)));
        return { tickers, trades };
      }, pollOptions('tape', opts.polls.tickersMs)),
    );
  }
}
