// Typed futures methods, one per endpoint (F0–F30), over the signing base.
import type { RequestOf } from '../wire/requests.js';
import type { ResponseOf } from '../wire/responses.js';
import type { RestClient } from './rest-client.js';

export class FuturesApi {
  constructor(private readonly rest: RestClient) {}

  /** F0: server time. */
  serverTime(): Promise<ResponseOf<'F0'>> {
    return this.rest.call('F0', {});
  }
  /** F1: contract information. */
  contracts(p: RequestOf<'F1'> = {}): Promise<ResponseOf<'F1'>> {
    return this.rest.call('F1', p);
  }
  /** F2: tickers of all contracts. */
  tickers(): Promise<ResponseOf<'F2'>> {
    return this.rest.call('F2', {});
  }
  /** F3: account, collateral and positions. */
  accounts(): Promise<ResponseOf<'F3'>> {
    return this.rest.call('F3', {});
  }
  /** F4: the position(s) of one contract. */
  singlePosition(p: RequestOf<'F4'>): Promise<ResponseOf<'F4'>> {
    return this.rest.call('F4', p);
  }
  /** F5: current orders (limit up to 100, page from 0). */
  currentOrders(p: RequestOf<'F5'> = {}): Promise<ResponseOf<'F5'>> {
    return this.rest.call('F5', p);
  }
  /** F6: place up to 20 orders; per-order results in order_info. */
  placeBatch(p: RequestOf<'F6'>): Promise<ResponseOf<'F6'>> {
    return this.rest.call('F6', p, { orders: p.orderDataList.length });
  }
  /** F7: cancel several orders by ids or client ids. */
  cancelBatch(p: RequestOf<'F7'>): Promise<ResponseOf<'F7'>> {
    return this.rest.call('F7', p);
  }
  /** F8: place a trigger (plan) order. */
  placeTrigger(p: RequestOf<'F8'>): Promise<ResponseOf<'F8'>> {
    return this.rest.call('F8', p);
  }
  /** F9: cancel a trigger order. */
  cancelTrigger(p: RequestOf<'F9'>): Promise<ResponseOf<'F9'>> {
    return this.rest.call('F9', p);
  }
  /** F10: the latest candles of one contract, newest first, the newest still forming (limit 1–1000). */
  candles(p: RequestOf<'F10'>): Promise<ResponseOf<'F10'>> {
    return this.rest.call('F10', p);
  }
  /** F11: candle history of one contract in a time window (limit 1–100). */
  historyCandles(p: RequestOf<'F11'>): Promise<ResponseOf<'F11'>> {
    return this.rest.call('F11', p);
  }
  /** F12: one contract's ticker. */
  ticker(p: RequestOf<'F12'>): Promise<ResponseOf<'F12'>> {
    return this.rest.call('F12', p);
  }
  /** F13: one contract's order book (limit 15 or 200). */
  depth(p: RequestOf<'F13'>): Promise<ResponseOf<'F13'>> {
    return this.rest.call('F13', p);
  }
  /** F14: current funding rates, of one contract or of all. */
  currentFundRate(p: RequestOf<'F14'> = {}): Promise<ResponseOf<'F14'>> {
    return this.rest.call('F14', p);
  }
  /** F15: a contract's next funding settlement time. */
  fundingTime(p: RequestOf<'F15'>): Promise<ResponseOf<'F15'>> {
    return this.rest.call('F15', p);
  }
  /** F16: a contract's latest settled funding rates (limit 1–100). */
  historyFundRate(p: RequestOf<'F16'>): Promise<ResponseOf<'F16'>> {
    return this.rest.call('F16', p);
  }
  /** F17: a contract's index price, or its mark price with priceType MARK. */
  index(p: RequestOf<'F17'>): Promise<ResponseOf<'F17'>> {
    return this.rest.call('F17', p);
  }
  /** F18: one order in any state, by order id (50005 when the venue does not know it). */
  orderDetail(p: RequestOf<'F18'>): Promise<ResponseOf<'F18'>> {
    return this.rest.call('F18', p);
  }
  /** F19: order history, filtered by creation time (pageSize 1–100). */
  orderHistory(p: RequestOf<'F19'> = {}): Promise<ResponseOf<'F19'>> {
    return this.rest.call('F19', p);
  }
  /** F20: the account's fills (limit 1–100; nextFlag when more exist). */
  fills(p: RequestOf<'F20'> = {}): Promise<ResponseOf<'F20'>> {
    return this.rest.call('F20', p);
  }
  /** F21: open trigger orders (limit 1–100, page from 0). */
  currentPlan(p: RequestOf<'F21'> = {}): Promise<ResponseOf<'F21'>> {
    return this.rest.call('F21', p);
  }
  /** F22: trigger-order history of one contract in a time window (pageSize 1–100). */
  historyPlan(p: RequestOf<'F22'>): Promise<ResponseOf<'F22'>> {
    return this.rest.call('F22', p);
  }
  /** F23: place a position's take-profit or stop-loss (answers [{orderId, success}]). */
  placeTpSl(p: RequestOf<'F23'>): Promise<ResponseOf<'F23'>> {
    return this.rest.call('F23', p);
  }
  /** F24: move a take-profit or stop-loss (answers in the envelope, data ""). */
  modifyTpSl(p: RequestOf<'F24'>): Promise<ResponseOf<'F24'>> {
    return this.rest.call('F24', p);
  }
  /** F25: place one order. */
  placeOrder(p: RequestOf<'F25'>): Promise<ResponseOf<'F25'>> {
    return this.rest.call('F25', p);
  }
  /** F26: cancel one order by order id or client id (no symbol). */
  cancelOrder(p: RequestOf<'F26'>): Promise<ResponseOf<'F26'>> {
    return this.rest.call('F26', p);
  }
  /** F27: close every position of a contract, or of all, at market. */
  closePositions(p: RequestOf<'F27'> = {}): Promise<ResponseOf<'F27'>> {
    return this.rest.call('F27', p);
  }
  /** F28: cancel every normal or every plan order, of a contract or of all. */
  cancelAllOrders(p: RequestOf<'F28'>): Promise<ResponseOf<'F28'>> {
    return this.rest.call('F28', p);
  }
  /** F29: every position, with margin, unrealised PnL and the estimated liquidation price. */
  allPositions(): Promise<ResponseOf<'F29'>> {
    return this.rest.call('F29', {});
  }
  /** F30: the account's bills in a time window (limit 1–100, default 20; hasNextPage when older ones exist). */
  bills(p: RequestOf<'F30'> = {}): Promise<ResponseOf<'F30'>> {
    return this.rest.call('F30', p);
  }
}
