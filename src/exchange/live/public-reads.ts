// The live client's public market reads (S7, S9, S10, S11, S13, F1, F2, F10–F17), parsed into domain types: an
// anomaly in an answer is logged with its endpoint and field, a malformed answer fails naming them.
import type { CandlePriceType, Timeframe, VenueCandle } from '../../domain/candles.js';
import {
  surfaceOfSymbol,
  type FundingRate,
  type FundingSettlement,
  type Instrument,
  type OrderBook,
  type PriceIndex,
  type PublicTrade,
  type Surface,
  type Ticker,
} from '../../domain/market.js';
import type { TimeSource } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { CandleWindow } from '../client.js';
import { ENDPOINTS } from '../endpoints.js';
import { candleEndpoint } from '../request-checks.js';
import { PRICE_TYPE_CODE } from '../wire/enums.js';
import type { FuturesApi } from './futures-api.js';
import * as parse from './parse.js';
import type { SpotApi } from './spot-api.js';

/** A one-record answer about another symbol than asked for is not the answer asked for. */
function sameSymbol(ctx: parse.ParseContext, field: string, got: string, asked: string): void {
  if (got !== asked) ctx.fail(field, `the answer is about ${JSON.stringify(got)}, not ${JSON.stringify(asked)}`);
}

export class LivePublicReads {
  constructor(
    readonly spot: SpotApi,
    readonly futures: FuturesApi,
    protected readonly logger: Logger,
    private readonly clock: TimeSource,
  ) {}

  /** The value parsed, once the answer's anomalies are logged. */
  protected done<T>(ctx: parse.ParseContext, value: T): T {
    for (const a of ctx.anomalies) this.logger.warn({ endpoint: a.endpoint, field: a.field, value: a.value }, a.note);
    return value;
  }

  async instruments(surface: Surface): Promise<Instrument[]> {
    if (surface === 'spot') {
      const ctx = new parse.ParseContext('S7');
      const rows = await this.spot.exchangeInfo();
      return this.done(
        ctx,
        rows.map((w, i) => parse.spotInstrument(ctx, w, i)),
      );
    }
    const ctx = new parse.ParseContext('F1');
    const rows = await this.futures.contracts();
    return this.done(
      ctx,
      rows.map((w, i) => parse.futuresInstrument(ctx, w, i)),
    );
  }

  async tickers(): Promise<Ticker[]> {
    const ctx = new parse.ParseContext('F2');
    const rows = await this.futures.tickers();
    return this.done(
      ctx,
      rows.map((w, i) => parse.ticker(ctx, w, i)),
    );
  }

  async recentTrades(symbol: string, limit?: number): Promise<PublicTrade[]> {
    const ctx = new parse.ParseContext('S9');
    const rows = await this.spot.publicTrades({ symbol, ...(limit !== undefined ? { limit } : {}) });
    const out: PublicTrade[] = [];
    rows.forEach((w, i) => {
      const t = parse.publicTrade(ctx, w, i);
      if (t) out.push(t);
    });
    return this.done(ctx, out);
  }

  async ticker(symbol: string): Promise<Ticker> {
    if (surfaceOfSymbol(symbol) === 'spot') {
      const ctx = new parse.ParseContext('S11');
      const data = await this.spot.ticker({ symbol });
      sameSymbol(ctx, 'data.symbol', data.symbol, symbol);
      return this.done(ctx, parse.spotTicker(ctx, data));
    }
    const ctx = new parse.ParseContext('F12');
    const data = await this.futures.ticker({ symbol });
    sameSymbol(ctx, 'symbol', data.symbol, symbol);
    return this.done(ctx, parse.ticker(ctx, data, ''));
  }

  async depth(symbol: string, limit: 15 | 200 = 15): Promise<OrderBook> {
    if (surfaceOfSymbol(symbol) === 'spot') {
      const ctx = new parse.ParseContext('S13');
      const data = await this.spot.depth({ symbol, limit });
      return this.done(ctx, parse.orderBook(ctx, data, 'data', symbol, limit, this.clock.now()));
    }
    const ctx = new parse.ParseContext('F13');
    const data = await this.futures.depth({ symbol, limit });
    return this.done(ctx, parse.orderBook(ctx, data, '', symbol, limit, this.clock.now()));
  }

  async candles(symbol: string, timeframe: Timeframe, opts: { limit?: number; priceType?: CandlePriceType } = {}): Promise<VenueCandle[]> {
    const id = candleEndpoint(surfaceOfSymbol(symbol), symbol, timeframe, false, opts.priceType);
    const ctx = new parse.ParseContext(id);
    const limit = opts.limit !== undefined ? { limit: opts.limit } : {};
    const out =
      id === 'S10'
        ? parse.candles(ctx, await this.spot.candles({ symbol, period: timeframe, ...limit }), 'data')
        : parse.candles(
            ctx,
            await this.futures.candles({ symbol, granularity: timeframe, ...limit, ...(opts.priceType ? { priceType: PRICE_TYPE_CODE[opts.priceType] } : {}) }),
            '',
          );
    // The spot venue serves the rows it chooses (about 300): the newest `limit` are kept.
    return this.done(ctx, opts.limit !== undefined ? out.slice(-opts.limit) : out);
  }

  /**
   * F11 with both bounds of the window. The docs say endTime alone pages backwards and, given both, endTime wins and
   * startTime is ignored; a client that measured the venue found endTime alone has no effect and both bounds are
   * needed. Sending both works under either reading; rows before startMs (the docs' reading may serve some) are left
   * out here, and of more than `limit` rows the newest are kept.
   */
  async historyCandles(symbol: string, timeframe: Timeframe, window: CandleWindow): Promise<VenueCandle[]> {
    candleEndpoint(surfaceOfSymbol(symbol), symbol, timeframe, true, window.priceType);
    const ctx = new parse.ParseContext('F11');
    const rows = await this.futures.historyCandles({
      symbol,
      granularity: timeframe,
      startTime: window.startMs,
      endTime: window.endMs,
      ...(window.limit !== undefined ? { limit: window.limit } : {}),
      ...(window.priceType ? { priceType: PRICE_TYPE_CODE[window.priceType] } : {}),
    });
    const inWindow = parse.candles(ctx, rows, '').filter((c) => c.openMs >= window.startMs && c.openMs <= window.endMs);
    return this.done(ctx, inWindow.slice(-(window.limit ?? ENDPOINTS.F11.maxPageSize!)));
  }

  async fundingRates(symbol?: string): Promise<FundingRate[]> {
    const ctx = new parse.ParseContext('F14');
    const rows = await this.futures.currentFundRate(symbol ? { symbol } : {});
    const out: FundingRate[] = [];
    rows.forEach((w, i) => {
      if (symbol && w.symbol !== symbol) return ctx.report(`[${i}].symbol`, w.symbol, 'funding rate of another contract than asked for: left out');
      out.push(parse.fundingRate(ctx, w, i));
    });
    return this.done(ctx, out);
  }

  async nextFundingTime(symbol: string): Promise<number> {
    const ctx = new parse.ParseContext('F15');
    const data = await this.futures.fundingTime({ symbol });
    sameSymbol(ctx, 'symbol', data.symbol, symbol);
    return this.done(ctx, ctx.time(data.fundingTime) ?? ctx.fail('fundingTime', `not a millisecond timestamp: ${JSON.stringify(data.fundingTime)}`));
  }

  /** F16, newest first (the venue's row order is undocumented). */
  async fundingHistory(symbol: string, limit = 10): Promise<FundingSettlement[]> {
    const ctx = new parse.ParseContext('F16');
    const rows = await this.futures.historyFundRate({ symbol, limit });
    const out: FundingSettlement[] = [];
    rows.forEach((w, i) => {
      if (w.symbol !== symbol) return ctx.report(`[${i}].symbol`, w.symbol, 'funding rate of another contract than asked for: left out');
      out.push(parse.fundingSettlement(ctx, w, i));
    });
    return this.done(ctx, out.sort((a, b) => b.fundingTimeMs - a.fundingTimeMs).slice(0, limit));
  }

  async priceIndex(symbol: string, kind: 'index' | 'mark'): Promise<PriceIndex> {
    const ctx = new parse.ParseContext('F17');
    const data = await this.futures.index({ symbol, priceType: kind === 'mark' ? 'MARK' : 'INDEX' });
    sameSymbol(ctx, 'symbol', data.symbol, symbol);
    return this.done(ctx, parse.priceIndex(ctx, data, kind));
  }
}
