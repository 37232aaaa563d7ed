// Typed spot methods, one per endpoint (S0–S9, S15), over the signing base.
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
  /** S15: open orders of one pair (limit 1–100, pageNo from 0). */
  openOrders(p: RequestOf<'S15'>): Promise<ResponseOf<'S15'>> {
    return this.rest.call('S15', p);
  }
}
