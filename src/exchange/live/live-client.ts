// The live ExchangeClient: typed spot and futures APIs over one signing base; the signed reads and the batch writes
// here, the futures single-order and whole-account writes and the F29/F30 reads in futures-actions.ts, the public
// market reads in public-reads.ts.
import type { Balance, Fill, Position, Surface } from '../../domain/market.js';
import { accountDigest, type Credentials } from '../../domain/credentials.js';
import type { Order } from '../../domain/order.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { registerSecret } from '../../util/secrets.js';
import type { CancelTarget, ExchangeClient, ItemResult, OrderLookup, OrderRequest, TriggerHistoryQuery, TriggerOrder } from '../client.js';
import { ENDPOINTS } from '../endpoints.js';
import { ExchangeError } from '../errors.js';
import type { FundingFeeSign } from '../wire/enums.js';
import { longToString } from '../wire/fields.js';
import { JsonBigInt } from '../wire/json.js';
import { LiveFuturesActions } from './futures-actions.js';
import { FuturesApi } from './futures-api.js';
import * as parse from './parse.js';
import { RateLimiter, type RateLimiterConfig } from './rate-limiter.js';
import { RestClient, type AuthHalt, type RestClientOptions } from './rest-client.js';
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
  /** Most pages one paged read walks through (F5, S15 / S1, F19, F20, F21). */
  maxPages: number;
  /** Where spot open orders are read: S15 (the venue's open orders, default) or S1 (order history pages). */
  spotOpenOrders?: 'S15' | 'S1';
  /** How the venue signs funding in positions and collateral (exchange.fundingFeeSign; default collateral-change). */
  fundingFeeSign?: FundingFeeSign;
  /** Authentication or permission failures in a row on signed requests before they stop (default 3). */
  authFailuresBeforeHalt?: number;
  clock: Clock;
  logger: Logger;
  onAttempt?: RestClientOptions['onAttempt'];
  writesAllowed?: RestClientOptions['writesAllowed'];
}

function newestFirst(fills: Map<string, Fill>): Fill[] {
  return [...fills.values()].sort((a, b) => b.timestampMs - a.timestampMs);
}

/**
 * The live client: the public market reads (LivePublicReads), the futures single-order writes and account reads
 * (LiveFuturesActions), and the signed reads and batch writes, over one signing base whose limiter every request
 * passes.
 */
export class LiveClient extends LiveFuturesActions implements ExchangeClient {
  readonly rest: RestClient;
  readonly limiter: RateLimiter;
  private readonly transport: Transport;

  constructor(private readonly opts: LiveClientOptions) {
    if (opts.credentials) for (const v of [opts.credentials.apiKey, opts.credentials.apiSecret, opts.credentials.passphrase]) registerSecret(v);
    const logger = opts.logger.child({ component: 'exchange' });
    const transport = new Transport({ timeoutMs: opts.timeoutMs });
    const limiter = new RateLimiter(opts.rateLimit, logger, {
      clock: opts.clock,
      ...(opts.credentials ? { account: accountDigest(opts.credentials.apiKey) } : {}),
    });
    const rest = new RestClient({
      spotBaseUrl: opts.spotBaseUrl,
      futuresBaseUrl: opts.futuresBaseUrl,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      locale: opts.locale,
      transport,
      limiter,
      clock: opts.clock,
      logger,
      retry: opts.retry,
      ...(opts.onAttempt ? { onAttempt: opts.onAttempt } : {}),
      ...(opts.writesAllowed ? { writesAllowed: opts.writesAllowed } : {}),
      ...(opts.authFailuresBeforeHalt !== undefined ? { authFailuresBeforeHalt: opts.authFailuresBeforeHalt } : {}),
    });
    super(new SpotApi(rest), new FuturesApi(rest), logger, opts.clock, { maxPages: opts.maxPages, fundingFeeSign: opts.fundingFeeSign ?? 'collateral-change' });
    this.rest = rest;
    this.limiter = limiter;
    this.transport = transport;
  }

  /** Set when signed requests stopped after repeated authentication failures (reason quotes the venue's answer). */
  authHalt(): AuthHalt | undefined {
    return this.rest.authHalt();
  }

  /** Lets signed requests go again after an authentication halt. */
  resetAuthHalt(): void {
    this.rest.resetAuthHalt();
  }

  /** F21 pages of `limit` 100 from page 0 until one comes back short (a page bringing nothing new ends the walk). */
  async triggerOrders(symbol?: string): Promise<TriggerOrder[]> {
    const ctx = new parse.ParseContext('F21');
    const limit = ENDPOINTS.F21.maxPageSize!;
    const out: TriggerOrder[] = [];
    const seen = new Set<string>();
    for (let page = 0; page < this.opts.maxPages; page++) {
      const rows = await this.futures.currentPlan({ ...(symbol ? { symbol } : {}), limit, page });
      let fresh = 0;
      rows.forEach((w, i) => {
        const order = parse.triggerOrder(ctx, w, `[${i}]`);
        if (seen.has(order.orderId)) return;
        seen.add(order.orderId);
        fresh++;
        if (symbol && order.symbol !== symbol) return ctx.report(`[${i}].symbol`, order.symbol, 'trigger order of another contract than asked for: left out');
        out.push(order);
      });
      if (rows.length < limit) return this.done(ctx, out);
      if (fresh === 0) {
        ctx.report('', page, 'the page repeats the previous ones (page ignored?): trigger orders may be incomplete');
        return this.done(ctx, out);
      }
    }
    this.logger.warn({ endpoint: 'F21', pages: this.opts.maxPages }, 'trigger orders truncated at the page limit');
    return this.done(ctx, out);
  }

  /** F22, one window: `limit` rows at most (the venue's default 100), newest first. */
  async triggerOrderHistory(symbol: string, query: TriggerHistoryQuery = {}): Promise<TriggerOrder[]> {
    const ctx = new parse.ParseContext('F22');
    const data = await this.futures.historyPlan({
      symbol,
      ...(query.startMs !== undefined ? { startTime: query.startMs } : {}),
      ...(query.endMs !== undefined ? { endTime: query.endMs } : {}),
      ...(query.limit !== undefined ? { pageSize: query.limit } : {}),
    });
    const out: TriggerOrder[] = [];
    data.list.forEach((w, i) => {
      if (w.symbol !== symbol) return ctx.report(`list[${i}].symbol`, w.symbol, 'trigger order of another contract than asked for: left out');
      out.push(parse.triggerOrder(ctx, w, `list[${i}]`));
    });
    return this.done(
      ctx,
      out.sort((a, b) => (b.createdAtMs ?? 0) - (a.createdAtMs ?? 0)),
    );
  }

  async openOrders(surface: Surface, symbol?: string): Promise<Order[]> {
    const out: Order[] = [];
    if (surface === 'futures') {
      const ctx = new parse.ParseContext('F5');
      const limit = ENDPOINTS.F5.maxPageSize!;
      for (let page = 0; page < this.opts.maxPages; page++) {
        const rows = await this.futures.currentOrders({ ...(symbol ? { symbol } : {}), limit, page });
        rows.forEach((w, i) => out.push(parse.futuresOrder(ctx, w, `[${i}]`)));
        if (rows.length < limit) return this.done(ctx, out);
      }
      this.logger.warn({ endpoint: 'F5', pages: this.opts.maxPages }, 'open orders truncated at the page limit');
      return this.done(ctx, out);
    }
    if (!symbol) throw new RangeError('spot open orders are read per pair: a symbol is required');
    return (this.opts.spotOpenOrders ?? 'S15') === 'S15' ? this.spotOpenOrders(symbol) : this.spotOpenOrdersFromHistory(symbol);
  }

  /** S15 pages of `limit` 100 from pageNo 0 until one comes back short. */
  private async spotOpenOrders(symbol: string): Promise<Order[]> {
    const ctx = new parse.ParseContext('S15');
    const limit = ENDPOINTS.S15.maxPageSize!;
    const out: Order[] = [];
    const seen = new Set<string>();
    for (let pageNo = 0; pageNo < this.opts.maxPages; pageNo++) {
      const data = await this.spot.openOrders({ symbol, limit, pageNo });
      let fresh = 0;
      data.orderInfoResultList.forEach((w, i) => {
        const order = parse.spotOrder(ctx, w, `data.orderInfoResultList[${i}]`);
        if (seen.has(order.orderId)) return;
        seen.add(order.orderId);
        fresh++;
        if (order.status !== 'filled' && order.status !== 'canceled') out.push(order);
      });
      if (data.orderInfoResultList.length < limit) return this.done(ctx, out);
      // A revision without pageNo answers the first page again: stop rather than count it twice.
      if (fresh === 0) {
        ctx.report('data.orderInfoResultList', pageNo, 'the page repeats the previous ones (pageNo ignored?): open orders may be incomplete');
        return this.done(ctx, out);
      }
    }
    this.logger.warn({ endpoint: 'S15', pages: this.opts.maxPages }, 'open orders truncated at the page limit');
    return this.done(ctx, out);
  }

  /** S1 order-history pages, final orders left out. */
  private async spotOpenOrdersFromHistory(symbol: string): Promise<Order[]> {
    const out: Order[] = [];
    const ctx = new parse.ParseContext('S1');
    const pageSize = ENDPOINTS.S1.maxPageSize!;
    for (let pageIndex = 0; pageIndex < this.opts.maxPages; pageIndex++) {
      const data = await this.spot.orderHistory({ symbol, pageIndex, pageSize });
      data.orderInfoResultList.forEach((w, i) => {
        const order = parse.spotOrder(ctx, w, `data.orderInfoResultList[${i}]`);
        if (order.status !== 'filled' && order.status !== 'canceled') out.push(order);
      });
      if (data.nextPage !== true || data.orderInfoResultList.length === 0) return this.done(ctx, out);
    }
    this.logger.warn({ endpoint: 'S1', pages: this.opts.maxPages }, 'open orders truncated at the page limit');
    return this.done(ctx, out);
  }

  async positions(symbol: string): Promise<Position[]> {
    const ctx = new parse.ParseContext('F4');
    const rows = await this.futures.singlePosition({ symbol });
    const out: Position[] = [];
    rows.forEach((w, i) => {
      const p = parse.position(ctx, w, i, symbol, this.account.fundingFeeSign);
      if (p) out.push(p);
    });
    return this.done(ctx, out);
  }

  async balances(surface: Surface): Promise<Balance[]> {
    if (surface === 'spot') {
      const ctx = new parse.ParseContext('S8');
      const rows = await this.spot.assets();
      return this.done(
        ctx,
        rows.map((w, i) => parse.spotBalance(ctx, w, i)),
      );
    }
    const ctx = new parse.ParseContext('F3');
    const acct = await this.futures.accounts();
    const limit = acct.account.create_order_rate_limit_per_minute;
    if (limit !== undefined) this.limiter.setOrderCreationLimitPerMinute('futures', limit);
    return this.done(
      ctx,
      acct.collateral.map((w, i) => parse.futuresBalance(ctx, w, i, this.account.fundingFeeSign)),
    );
  }

  async order(surface: Surface, symbol: string, lookup: OrderLookup): Promise<Order | null> {
    if (!lookup.orderId && !lookup.clientOid) throw new RangeError('an order id or a client id is required');
    try {
      if (surface === 'spot') {
        const ctx = new parse.ParseContext('S3');
        const rows = await this.spot.orderInfo(lookup.orderId ? { orderId: lookup.orderId } : { clientOrderId: lookup.clientOid! });
        const row = rows[0];
        return this.done(ctx, row ? parse.spotOrder(ctx, row, 'data[0]') : null);
      }
      if (lookup.orderId) return await this.futuresOrderDetail(symbol, lookup.orderId);
      const open = await this.openOrders('futures', symbol);
      return open.find((o) => o.clientOid === lookup.clientOid) ?? (await this.futuresOrderFromHistory(symbol, lookup.clientOid!, lookup.createdAfterMs));
    } catch (err) {
      if (err instanceof ExchangeError && err.category === 'not-found') return null;
      throw err;
    }
  }

  /** F18: any state; an order of another symbol is not the one asked for. */
  private async futuresOrderDetail(symbol: string, orderId: string): Promise<Order | null> {
    const ctx = new parse.ParseContext('F18');
    const order = parse.futuresOrder(ctx, await this.futures.orderDetail({ orderId }), '');
    if (order.symbol !== symbol) {
      ctx.report('symbol', order.symbol, `order ${orderId} belongs to another symbol than ${symbol}: not taken`);
      return this.done(ctx, null);
    }
    return this.done(ctx, order);
  }

  /**
   * F19 pages of the symbol (the venue has no cursor): each next page ends at the oldest creation time seen, so rows
   * sharing that millisecond are not skipped, down to `createdAfterMs` when given; it stops when a page is short or
   * brings nothing new, or after maxPages pages. The newest order with the client id wins.
   */
  private async futuresOrderFromHistory(symbol: string, clientOid: string, createdAfterMs: number | undefined): Promise<Order | null> {
    const ctx = new parse.ParseContext('F19');
    const pageSize = ENDPOINTS.F19.maxPageSize!;
    const from = createdAfterMs === undefined ? undefined : Math.max(0, Math.floor(createdAfterMs));
    const seen = new Set<string>();
    let end: number | undefined;
    for (let page = 0; page < this.opts.maxPages; page++) {
      const rows = await this.futures.orderHistory({
        symbol,
        pageSize,
        ...(from !== undefined ? { createDate: from } : {}),
        ...(end !== undefined ? { endCreateDate: end } : {}),
      });
      let found: Order | null = null;
      let oldest = Number.POSITIVE_INFINITY;
      let fresh = 0;
      for (const [i, w] of rows.entries()) {
        const id = longToString(w.order_id);
        if (!seen.has(id)) fresh++;
        seen.add(id);
        const created = ctx.time(w.createTime);
        if (created !== null && created < oldest) oldest = created;
        if (w.client_oid !== clientOid || w.symbol !== symbol) continue;
        const order = parse.futuresOrder(ctx, w, `[${i}]`);
        if (!found || (order.createdAtMs ?? 0) > (found.createdAtMs ?? 0)) found = order;
      }
      if (found) return this.done(ctx, found);
      if (rows.length < pageSize || fresh === 0 || oldest === Number.POSITIVE_INFINITY) return this.done(ctx, null);
      end = oldest;
    }
    this.logger.warn({ endpoint: 'F19', pages: this.opts.maxPages, clientOid }, 'order history searched up to the page limit without finding the order');
    return this.done(ctx, null);
  }

  async fills(surface: Surface, symbol: string, orderId?: string): Promise<Fill[]> {
    if (surface === 'spot') {
      const ctx = new parse.ParseContext('S2');
      const data = await this.spot.fills({ symbol, ...(orderId ? { orderId: new JsonBigInt(orderId) } : {}), pageSize: ENDPOINTS.S2.maxPageSize! });
      return this.done(
        ctx,
        data.fillsOrderResultList.map((w, i) => parse.spotFill(ctx, w, i)),
      );
    }
    return this.futuresFills(symbol, orderId);
  }

  /**
   * F20 pages of 100 while nextFlag says more exist (the venue has no cursor): each next page ends at the oldest fill
   * time seen, so fills sharing that millisecond are not skipped; fills are kept once by tradeId, and a page that
   * brings nothing new ends the walk. Newest first.
   */
  private async futuresFills(symbol: string, orderId: string | undefined): Promise<Fill[]> {
    const ctx = new parse.ParseContext('F20');
    const limit = ENDPOINTS.F20.maxPageSize!;
    const byId = new Map<string, Fill>();
    const seen = new Set<string>();
    let endTime: number | undefined;
    for (let page = 0; page < this.opts.maxPages; page++) {
      const data = await this.futures.fills({ symbol, ...(orderId ? { orderId } : {}), ...(endTime !== undefined ? { endTime } : {}), limit });
      let oldest = Number.POSITIVE_INFINITY;
      let fresh = 0;
      data.list.forEach((w, i) => {
        const fill = parse.futuresFill(ctx, w, i);
        oldest = Math.min(oldest, fill.timestampMs);
        if (!seen.has(fill.fillId)) fresh++;
        seen.add(fill.fillId);
        // A venue that ignored a filter must not lend another order's fills to this one.
        if (fill.symbol !== symbol || (orderId !== undefined && fill.orderId !== orderId)) {
          ctx.report(`list[${i}]`, { symbol: fill.symbol, orderId: fill.orderId }, 'fill outside the symbol or order asked for: left out');
          return;
        }
        byId.set(fill.fillId, fill);
      });
      if (data.nextFlag !== true || fresh === 0) return this.done(ctx, newestFirst(byId));
      endTime = oldest;
    }
    this.logger.warn({ endpoint: 'F20', pages: this.opts.maxPages, symbol, orderId }, 'fills truncated at the page limit');
    return this.done(ctx, newestFirst(byId));
  }

  async placeOrders(surface: Surface, symbol: string, orders: OrderRequest[]): Promise<ItemResult[]> {
    const items = orders.map((o) => ({ clientOid: o.clientOid, orderId: null }));
    try {
      if (surface === 'spot') return parse.spotPlaceResults(await this.spot.placeBatch({ symbol, orderList: orders.map(parse.spotOrderItem) }), orders);
      return parse.futuresPlaceResults(await this.futures.placeBatch({ symbol, orderDataList: orders.map(parse.futuresOrderItem) }), orders);
    } catch (err) {
      if (err instanceof ExchangeError) return parse.wholeRequestResults(err, items);
      throw err;
    }
  }

  async cancelOrders(surface: Surface, symbol: string, target: CancelTarget): Promise<ItemResult[]> {
    const items = target.orderIds
      ? target.orderIds.map((orderId) => ({ clientOid: null, orderId }))
      : (target.clientOids ?? []).map((clientOid) => ({ clientOid, orderId: null }));
    try {
      if (surface === 'spot') {
        const req = target.orderIds ? { symbol, orderIds: target.orderIds } : { symbol, clientOids: target.clientOids ?? [] };
        return parse.spotCancelResults('S4', await this.spot.cancelBatch(req), target);
      }
      const req = target.orderIds ? { symbol, ids: target.orderIds } : { symbol, cids: target.clientOids ?? [] };
      return parse.futuresCancelResults(await this.futures.cancelBatch(req), target);
    } catch (err) {
      if (err instanceof ExchangeError) return parse.wholeRequestResults(err, items);
      throw err;
    }
  }

  async cancelAll(surface: Surface, symbol: string): Promise<ItemResult[]> {
    if (surface === 'spot') {
      try {
        return parse.spotCancelResults('S5', await this.spot.cancelSymbol({ symbol }), {});
      } catch (err) {
        if (err instanceof ExchangeError) return parse.wholeRequestResults(err, [{ clientOid: null, orderId: null }]);
        throw err;
      }
    }
    // Futures: F7 with the ids of the open orders, in batches of the venue's limit.
    const ids = (await this.openOrders('futures', symbol)).filter((o) => o.status !== 'untriggered').map((o) => o.orderId);
    const out: ItemResult[] = [];
    const size = ENDPOINTS.F7.maxBatch!;
    for (let i = 0; i < ids.length; i += size) out.push(...(await this.cancelOrders('futures', symbol, { orderIds: ids.slice(i, i + size) })));
    return out;
  }

  async close(): Promise<void> {
    await this.limiter.close();
    await this.transport.close();
  }
}
