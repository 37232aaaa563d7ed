// The live ExchangeClient: typed spot and futures APIs over one signing base, plus the normalised reads.
import type { Balance, Instrument, Position, PublicTrade, Surface, Ticker } from '../../domain/market.js';
import type { Credentials } from '../../domain/credentials.js';
import type { Order } from '../../domain/order.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { registerSecret } from '../../util/secrets.js';
import type { ExchangeClient } from '../client.js';
import { ENDPOINTS } from '../endpoints.js';
import { FuturesApi } from './futures-api.js';
import * as parse from './parse.js';
import { RateLimiter, type RateLimiterConfig } from './rate-limiter.js';
import { RestClient } from './rest-client.js';
import { SpotApi } from './spot-api.js';
import { Transport } from './transport.js';

export interface LiveClientOptions {
  spotBaseUrl: string;
  futuresBaseUrl: string;
  credentials?: Credentials;
  locale: string;
  timeoutMs: number;
  retry: { attempts: number; baseDelayMs: number; maxDelayMs: number };
  rateLimit: RateLimiterConfig;
  /** Most pages one open-orders read walks through (F5 / S1). */
  maxPages: number;
  clock: Clock;
  logger: Logger;
}

export class LiveClient implements ExchangeClient {
  readonly rest: RestClient;
  readonly spot: SpotApi;
  readonly futures: FuturesApi;
  readonly limiter: RateLimiter;
  private readonly transport: Transport;
  private readonly logger: Logger;

  constructor(private readonly o: LiveClientOptions) {
    if (o.credentials) for (const v of Object.values(o.credentials)) registerSecret(v);
    this.logger = o.logger.child({ component: 'exchange' });
    this.transport = new Transport({ timeoutMs: o.timeoutMs });
    this.limiter = new RateLimiter(o.rateLimit, this.logger);
    this.rest = new RestClient({
      spotBaseUrl: o.spotBaseUrl,
      futuresBaseUrl: o.futuresBaseUrl,
      ...(o.credentials ? { credentials: o.credentials } : {}),
      locale: o.locale,
      transport: this.transport,
      limiter: this.limiter,
      clock: o.clock,
      logger: this.logger,
      retry: o.retry,
    });
    this.spot = new SpotApi(this.rest);
    this.futures = new FuturesApi(this.rest);
  }

  private done<T>(ctx: parse.ParseContext, value: T): T {
    for (const a of ctx.anomalies) this.logger.warn({ endpoint: a.endpoint, field: a.field, value: a.value }, a.note);
    return value;
  }

  async instruments(surface: Surface): Promise<Instrument[]> {
    if (surface === 'spot') {
      const ctx = new parse.ParseContext('S7');
      const rows = await this.spot.exchangeInfo();
      return this.done(ctx, rows.map((w, i) => parse.spotInstrument(ctx, w, i)));
    }
    const ctx = new parse.ParseContext('F1');
    const rows = await this.futures.contracts();
    return this.done(ctx, rows.map((w, i) => parse.futuresInstrument(ctx, w, i)));
  }

  async tickers(): Promise<Ticker[]> {
    const ctx = new parse.ParseContext('F2');
    const rows = await this.futures.tickers();
    return this.done(ctx, rows.map((w, i) => parse.ticker(ctx, w, i)));
  }

  async recentTrades(symbol: string, limit?: number): Promise<PublicTrade[]> {
    const ctx = new parse.ParseContext('S9');
    const rows = await this.spot.publicTrades({ symbol, ...(limit !== undefined ? { limit } : {}) });
    return this.done(ctx, rows.map((w, i) => parse.publicTrade(ctx, w, i)));
  }

  async openOrders(surface: Surface, symbol?: string): Promise<Order[]> {
    const out: Order[] = [];
    if (surface === 'futures') {
      const ctx = new parse.ParseContext('F5');
      const limit = ENDPOINTS.F5.maxPageSize!;
      for (let page = 0; page < this.o.maxPages; page++) {
        const rows = await this.futures.currentOrders({ ...(symbol ? { symbol } : {}), limit, page });
        rows.forEach((w, i) => out.push(parse.futuresOrder(ctx, w, i)));
        if (rows.length < limit) return this.done(ctx, out);
      }
      this.logger.warn({ endpoint: 'F5', pages: this.o.maxPages }, 'open orders truncated at the page limit');
      return this.done(ctx, out);
    }
    if (!symbol) throw new RangeError('spot open orders are read per pair: a symbol is required');
    const ctx = new parse.ParseContext('S1');
    const pageSize = ENDPOINTS.S1.maxPageSize!;
    for (let pageIndex = 0; pageIndex < this.o.maxPages; pageIndex++) {
      const data = await this.spot.orderHistory({ symbol, pageIndex, pageSize });
      data.orderInfoResultList.forEach((w, i) => {
        const order = parse.spotOrder(ctx, w, `data.orderInfoResultList[${i}]`);
        if (order.status !== 'filled' && order.status !== 'canceled') out.push(order);
      });
      if (data.nextPage !== true || data.orderInfoResultList.length === 0) return this.done(ctx, out);
    }
    this.logger.warn({ endpoint: 'S1', pages: this.o.maxPages }, 'open orders truncated at the page limit');
    return this.done(ctx, out);
  }

  async positions(symbol: string): Promise<Position[]> {
    const ctx = new parse.ParseContext('F4');
    const rows = await this.futures.singlePosition({ symbol });
    const out: Position[] = [];
    rows.forEach((w, i) => {
      const p = parse.position(ctx, w, i, symbol);
      if (p) out.push(p);
    });
    return this.done(ctx, out);
  }

  async balances(surface: Surface): Promise<Balance[]> {
    if (surface === 'spot') {
      const ctx = new parse.ParseContext('S8');
      const rows = await this.spot.assets();
      return this.done(ctx, rows.map((w, i) => parse.spotBalance(ctx, w, i)));
    }
    const ctx = new parse.ParseContext('F3');
    const acct = await this.futures.accounts();
    const limit = acct.account.create_order_rate_limit_per_minute;
    if (limit !== undefined) this.limiter.setOrderCreationLimitPerMinute('futures', limit);
    return this.done(ctx, acct.collateral.map((w, i) => parse.futuresBalance(ctx, w, i)));
  }

  async close(): Promise<void> {
    await this.limiter.close();
    this.transport.close();
  }
}
