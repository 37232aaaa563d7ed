// Typed spot methods, one per endpoint (S0–S11, S13, S15), over the signing base.
import type { RequestOf } from '../wire/requests.js';
import type { ResponseOf } from '../wire/responses.js';
import type { RestClient } from './rest-client.js';

export class SpotApi {
  constructor(private readonly rest: RestClient) {}

  /** S0: server time in ms. */
  serverTime(): Promise<ResponseOf<'S0'>> {
    return this.rest.call('S0', {});
  }
  /** S1: order history of one pair (pageSize 1–100). */
  orderHistory(p: RequestOf<'S1'>): Promise<ResponseOf<'S1'>> {
    return this.rest.call('S1', p);
  }
  /** S2: the account's fills on one pair. */
  fills(p: RequestOf<'S2'>): Promise<ResponseOf<'S2'>> {
    return this.rest.call('S2', p);
  }
  /** S3: one order, by orderId or clientOrderId. */
  orderInfo(p: RequestOf<'S3'>): Promise<ResponseOf<'S3'>> {
    return this.rest.call('S3', p);
  }
  /** S4: cancel several orders of one pair; per-order results. */
  cancelBatch(p: RequestOf<'S4'>): Promise<ResponseOf<'S4'>> {
    return this.rest.call('S4', p);
  }
  /** S5: cancel every order of one pair. */
  cancelSymbol(p: RequestOf<'S5'>): Promise<ResponseOf<'S5'>> {
    return this.rest.call('S5', p);
  }
  /** S6: place several orders on one pair. */
  placeBatch(p: RequestOf<'S6'>): Promise<ResponseOf<'S6'>> {
    return this.rest.call('S6', p, { orders: p.orderList.length });
  }
  /** S7: trading-pair information (all pairs when neither symbol nor symbols is given). */
  exchangeInfo(p: RequestOf<'S7'> = {}): Promise<ResponseOf<'S7'>> {
    return this.rest.call('S7', p);
  }
  /** S8: account assets. */
  assets(): Promise<ResponseOf<'S8'>> {
    return this.rest.call('S8', {});
  }
  /** S9: recent public trades (limit up to 1000). */
  publicTrades(p: RequestOf<'S9'>): Promise<ResponseOf<'S9'>> {
    return this.rest.call('S9', p);
  }
  /** S10: the latest candles of one pair, newest first (`period` 1m…1w; about 300 rows at most). */
  candles(p: RequestOf<'S10'>): Promise<ResponseOf<'S10'>> {
    return this.rest.call('S10', p);
  }
  /** S11: one pair's ticker (last price, 24 h figures; no bid or ask). */
  ticker(p: RequestOf<'S11'>): Promise<ResponseOf<'S11'>> {
    return this.rest.call('S11', p);
  }
  /** S13: one pair's order book (limit 15 or 200). */
  depth(p: RequestOf<'S13'>): Promise<ResponseOf<'S13'>> {
    return this.rest.call('S13', p);
  }
  /** S15: open orders of one pair (limit 1–100, pageNo from 0). */
  openOrders(p: RequestOf<'S15'>): Promise<ResponseOf<'S15'>> {
    return this.rest.call('S15', p);
  }
}
