// The live client's futures writes of one order or of a whole account (F8, F9, F23–F28) and its reads of every
// position (F29) and of the ledger (F30). Writes answer per item: a whole-request failure is every item's result,
// unknown when the venue may have acted (5xx, timeout), rejected when it refused.
import type { LedgerEntry, Position } from '../../domain/market.js';
import type { Logger } from '../../util/logger.js';
import type { TimeSource } from '../../util/clock.js';
import type { ItemResult, LedgerQuery, OrderRequest, PositionCloseResult, TpSlChange, TpSlRequest, TriggerOrderRequest } from '../client.js';
import { ENDPOINTS } from '../endpoints.js';
import { ExchangeError, classifyItemError } from '../errors.js';
import { checkRequest } from '../request-checks.js';
import { futuresTypeCode, type FundingFeeSign } from '../wire/enums.js';
import { longToString } from '../wire/fields.js';
import { JsonBigInt } from '../wire/json.js';
import { F30_DEFAULT_LIMIT, type RequestOf } from '../wire/requests.js';
import type { FuturesApi } from './futures-api.js';
import * as parse from './parse.js';
import { LivePublicReads } from './public-reads.js';
import type { SpotApi } from './spot-api.js';

/** What the account reads need to know of the client's configuration. */
export interface AccountReadOptions {
  /** Most pages one paged read walks through. */
  maxPages: number;
  /** How the venue signs funding amounts (exchange.fundingFeeSign). */
  fundingFeeSign: FundingFeeSign;
}

/** A write's failure as the result of the items it carried (rethrown when it is not the venue's). */
function failed(err: unknown, item: { clientOid: string | null; orderId: string | null }): ItemResult {
  if (err instanceof ExchangeError) return parse.wholeRequestResults(err, [item])[0]!;
  throw err;
}

function newestFirst(entries: Iterable<LedgerEntry>): LedgerEntry[] {
  return [...entries].sort((a, b) => b.timestampMs - a.timestampMs);
}

export class LiveFuturesActions extends LivePublicReads {
  constructor(
    spot: SpotApi,
    futures: FuturesApi,
    logger: Logger,
    clock: TimeSource,
    protected readonly account: AccountReadOptions,
  ) {
    super(spot, futures, logger, clock);
  }

  async placeTrigger(req: TriggerOrderRequest): Promise<ItemResult> {
    try {
      const data = await this.futures.placeTrigger({
        symbol: req.symbol,
        client_oid: req.clientOid,
        size: req.size.toString(),
        type: futuresTypeCode(req.positionSide, req.reduceOnly),
        match_type: req.executePrice ? '0' : '1',
        execute_price: req.executePrice ? req.executePrice.toString() : '0',
        trigger_price: req.triggerPrice.toString(),
      });
      return { outcome: 'accepted', clientOid: req.clientOid, orderId: longToString(data.order_id) };
    } catch (err) {
      return failed(err, { clientOid: req.clientOid, orderId: null });
    }
  }

  async cancelTrigger(symbol: string, orderId: string): Promise<ItemResult> {
    try {
      const data = await this.futures.cancelTrigger({ symbol, orderId });
      if (data.result) return { outcome: 'accepted', clientOid: data.client_oid ?? null, orderId };
      return { outcome: 'rejected', clientOid: data.client_oid ?? null, orderId, error: classifyItemError('F9', data.err_code, data.err_msg) };
    } catch (err) {
      return failed(err, { clientOid: null, orderId });
    }
  }

  /** F23 in cross margin (marginMode 1), executePrice "0" for a market close. */
  async placeTpSl(req: TpSlRequest): Promise<ItemResult> {
    try {
      const data = await this.futures.placeTpSl({
        symbol: req.symbol,
        clientOrderId: req.clientOid,
        planType: req.role === 'take-profit' ? 'profit_plan' : 'loss_plan',
        triggerPrice: req.triggerPrice.toString(),
        executePrice: req.executePrice ? req.executePrice.toString() : '0',
        size: req.size.toString(),
        positionSide: req.positionSide,
        marginMode: 1,
      });
      return parse.tpSlResult(data, req.clientOid);
    } catch (err) {
      return failed(err, { clientOid: req.clientOid, orderId: null });
    }
  }

  /** F24: the order id goes out as a bare JSON number, digit for digit; executePrice "0" for a market close. */
  async modifyTpSl(change: TpSlChange): Promise<ItemResult> {
    try {
      await this.futures.modifyTpSl({
        orderId: new JsonBigInt(change.orderId),
        triggerPrice: change.triggerPrice.toString(),
        executePrice: change.executePrice ? change.executePrice.toString() : '0',
        ...(change.triggerPriceType ? { triggerPriceType: change.triggerPriceType === 'mark' ? 3 : 1 } : {}),
      });
      return { outcome: 'accepted', clientOid: null, orderId: change.orderId };
    } catch (err) {
      return failed(err, { clientOid: null, orderId: change.orderId });
    }
  }

  /** F25: the F6 item of the order, with its symbol. */
  async placeOrder(symbol: string, order: OrderRequest): Promise<ItemResult> {
    try {
      const data = await this.futures.placeOrder({ symbol, ...parse.futuresOrderItem(order) });
      return { outcome: 'accepted', clientOid: order.clientOid, orderId: longToString(data.order_id) };
    } catch (err) {
      return failed(err, { clientOid: order.clientOid, orderId: null });
    }
  }

  async cancelOrder(target: { orderId: string } | { clientOid: string }): Promise<ItemResult> {
    const params: RequestOf<'F26'> = 'orderId' in target ? { orderId: target.orderId } : { clientOid: target.clientOid };
    try {
      return parse.canceledOrderResult(await this.futures.cancelOrder(params), target);
    } catch (err) {
      return failed(err, { clientOid: 'clientOid' in target ? target.clientOid : null, orderId: 'orderId' in target ? target.orderId : null });
    }
  }

  /** F27. A failure of the whole request is thrown (ExchangeError: outcomeUnknown when the venue may have acted). */
  async closePositions(symbol?: string): Promise<PositionCloseResult[]> {
    return parse.closeResults(await this.futures.closePositions(symbol ? { symbol } : {}));
  }

  async cancelAllFutures(kind: 'normal' | 'plan', symbol?: string): Promise<ItemResult[]> {
    try {
      return parse.canceledAllResults(await this.futures.cancelAllOrders({ ...(symbol ? { symbol } : {}), cancelOrderType: kind }), kind);
    } catch (err) {
      return [failed(err, { clientOid: null, orderId: null })];
    }
  }

  /** F29; zero-size records are left out. */
  async allPositions(): Promise<Position[]> {
    const ctx = new parse.ParseContext('F29');
    const rows = await this.futures.allPositions();
    const out: Position[] = [];
    rows.forEach((w, i) => {
      const p = parse.position(ctx, w, i, undefined, this.account.fundingFeeSign);
      if (p) out.push(p);
    });
    return this.done(ctx, out);
  }

  /**
   * F30, one window, newest first. A kind one businessType stands for is asked for by it, in one request. A kind
   * several stand for (fees, opens, closes, transfers, other) cannot be asked for: pages of 100 are read, each ending
   * at the oldest bill seen (bills of that millisecond are not skipped; each is kept once), and filtered, until
   * `limit` entries of the kind are found, the venue has no more, or maxPages pages were read.
   */
  async ledger(query: LedgerQuery = {}): Promise<{ entries: LedgerEntry[]; hasMore: boolean }> {
    const ctx = new parse.ParseContext('F30');
    const businessType = query.kind ? parse.businessTypeOf(query.kind) : undefined;
    // In the documented order: symbol, businessType, startTime, endTime, limit.
    const params = (type: string | undefined, endTime: number | undefined, limit: number | undefined): RequestOf<'F30'> => ({
      ...(query.symbol ? { symbol: query.symbol } : {}),
      ...(type ? { businessType: type } : {}),
      ...(query.startMs !== undefined ? { startTime: query.startMs } : {}),
      ...(endTime !== undefined ? { endTime } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    const asked = params(businessType, query.endMs, query.limit);
    const keep = (entry: LedgerEntry, i: number): boolean => {
      if (query.symbol && entry.symbol !== query.symbol) {
        ctx.report(`items[${i}].symbol`, entry.symbol, 'bill of another contract than asked for: left out');
        return false;
      }
      if (query.kind && entry.kind !== query.kind) {
        // Asked for by its one type, another type means the venue ignored the filter; otherwise filtering is the plan.
        if (businessType) ctx.report(`items[${i}].businessType`, entry.rawKind, 'bill of another type than asked for: left out');
        return false;
      }
      return true;
    };
    if (!query.kind || businessType) {
      const data = await this.futures.bills(asked);
      const entries = data.items.map((w, i) => parse.ledgerEntry(ctx, w, i)).filter(keep);
      return this.done(ctx, { entries: newestFirst(entries), hasMore: data.hasNextPage === true });
    }
    checkRequest('F30', asked);
    const limit = query.limit ?? F30_DEFAULT_LIMIT;
    const byId = new Map<string, LedgerEntry>();
    const seen = new Set<string>();
    let endTime = query.endMs;
    for (let page = 0; page < this.account.maxPages; page++) {
      const data = await this.futures.bills(params(undefined, endTime, ENDPOINTS.F30.maxPageSize!));
      let oldest = Number.POSITIVE_INFINITY;
      let fresh = 0;
      data.items.forEach((w, i) => {
        const entry = parse.ledgerEntry(ctx, w, i);
        if (seen.has(entry.billId)) return;
        seen.add(entry.billId);
        fresh++;
        oldest = Math.min(oldest, entry.timestampMs);
        if (keep(entry, i)) byId.set(entry.billId, entry);
      });
      const more = data.hasNextPage === true;
      if (byId.size >= limit || !more || fresh === 0) {
        const entries = newestFirst(byId.values());
        return this.done(ctx, { entries: entries.slice(0, limit), hasMore: entries.length > limit || more });
      }
      endTime = oldest;
    }
    this.logger.warn({ endpoint: 'F30', pages: this.account.maxPages, kind: query.kind }, 'ledger read up to the page limit');
    return this.done(ctx, { entries: newestFirst(byId.values()).slice(0, limit), hasMore: true });
  }
}
