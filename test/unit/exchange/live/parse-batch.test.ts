// Batch writes both ways: domain requests -> the venue's items, and the venue's answers -> one result per item.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import type { OrderRequest } from '../../../../src/exchange/client.js';
import { ExchangeError } from '../../../../src/exchange/errors.js';
import { futuresCancelResults, futuresPlaceResults, spotPlaceResults, wholeRequestResults } from '../../../../src/exchange/live/item-results.js';
import { futuresOrderItem, spotOrderItem } from '../../../../src/exchange/live/order-items.js';
import { JsonBigInt } from '../../../../src/exchange/wire/json.js';
import type { ResponseOf } from '../../../../src/exchange/wire/responses.js';

const d = (s: string) => Decimal.from(s);
const req = (clientOid: string, fields: Partial<OrderRequest> = {}): OrderRequest => ({
  clientOid,
  side: 'buy',
  kind: 'limit',
  timeInForce: 'gtc',
  size: d('0.01'),
  price: d('90000.5'),
  ...fields,
});

describe('order items', () => {
  it('spot: force by name, no price for a market order', () => {
    expect(spotOrderItem(req('a', { timeInForce: 'post_only' }))).toEqual({
      side: 'buy',
      orderType: 'limit',
      force: 'postOnly',
      price: '90000.5',
      quantity: '0.01',
      clientOrderId: 'a',
    });
    expect(spotOrderItem(req('b', { kind: 'market', timeInForce: 'ioc' }))).toEqual({
      side: 'buy',
      orderType: 'market',
      force: 'ioc',
      quantity: '0.01',
      clientOrderId: 'b',
    });
  });

  it('futures: type from position and reduce-only, order_type by code, price "0" for market', () => {
    expect(futuresOrderItem(req('a', { side: 'sell', positionSide: 'long', reduceOnly: true, timeInForce: 'fok' }))).toEqual({
      client_oid: 'a',
      size: '0.01',
      type: '3',
      order_type: '2',
      match_price: '0',
      price: '90000.5',
    });
    expect(futuresOrderItem(req('b', { side: 'sell', kind: 'market' }))).toEqual({
      client_oid: 'b',
      size: '0.01',
      type: '2',
      order_type: '0',
      match_price: '1',
      price: '0',
    });
  });
});

describe('item results', () => {
  it('S6: accepted by clientOrderId; an item missing from the answer is unknown', () => {
    const data = { resultList: [{ orderId: new JsonBigInt('602876318261969338'), clientOrderId: 'b' }] } as unknown as ResponseOf<'S6'>;
    const results = spotPlaceResults(data, [req('a'), req('b')]);
    expect(results.map((r) => [r.outcome, r.clientOid, r.orderId])).toEqual([
      ['unknown', 'a', null],
      ['accepted', 'b', '602876318261969338'],
    ]);
  });

  it('F6: by client_oid, or by position when the venue leaves them all out; refusals keep their code', () => {
    const byOid = {
      order_info: [
        { client_oid: 'b', order_id: '', result: false, error_code: '40017', error_message: 'bad' },
        { client_oid: 'a', order_id: '7', result: true },
      ],
      result: true,
    } as unknown as ResponseOf<'F6'>;
    const results = futuresPlaceResults(byOid, [req('a'), req('b')]);
    expect(results.map((r) => [r.outcome, r.orderId])).toEqual([
      ['accepted', '7'],
      ['rejected', null],
    ]);
    expect(results[1]!.outcome === 'rejected' && results[1]!.error.code).toBe('40017');
    const byPosition = {
      order_info: [
        { order_id: '8', result: true },
        { order_id: null, result: true },
      ],
      result: true,
    } as unknown as ResponseOf<'F6'>;
    expect(futuresPlaceResults(byPosition, [req('a'), req('b')]).map((r) => [r.outcome, r.clientOid, r.orderId])).toEqual([
      ['accepted', 'a', '8'],
      ['unknown', 'b', null],
    ]);
  });

  it('F7: per id from the results and failInfos; an id the answer leaves out is unknown', () => {
    const data = {
      result: true,
      cancelOrderResultList: [{ order_id: '1', result: true }],
      failInfos: [{ order_id: '2', result: false, err_code: '50005', err_msg: 'Order does not exist' }],
    } as unknown as ResponseOf<'F7'>;
    expect(futuresCancelResults(data, { orderIds: ['1', '2', '3'] }).map((r) => r.outcome)).toEqual(['accepted', 'rejected', 'unknown']);
    const byOid = { result: true, cancelOrderResultList: [{ order_id: '9', client_oid: 'x', result: true }] } as unknown as ResponseOf<'F7'>;
    expect(futuresCancelResults(byOid, { clientOids: ['x'] })).toEqual([{ outcome: 'accepted', clientOid: 'x', orderId: '9' }]);
  });

  it("a failed request is every item's result: unknown when the venue may have acted, else rejected", () => {
    const timeout = new ExchangeError('timeout', 'timed out', { endpoint: 'F6' });
    const refused = new ExchangeError('invalid-order', 'refused', { endpoint: 'F6' });
    expect(wholeRequestResults(timeout, [{ clientOid: 'a', orderId: null }]).map((r) => r.outcome)).toEqual([timeout.outcomeUnknown ? 'unknown' : 'rejected']);
    expect(timeout.outcomeUnknown).toBe(true);
    expect(
      wholeRequestResults(refused, [
        { clientOid: 'a', orderId: null },
        { clientOid: 'b', orderId: null },
      ]).map((r) => r.outcome),
    ).toEqual(['rejected', 'rejected']);
  });
});
