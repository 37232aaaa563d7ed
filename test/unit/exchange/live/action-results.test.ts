// Answers of the futures single-order and whole-account writes (F23, F26, F27, F28) -> results.
import { describe, expect, it } from '@jest/globals';
import { canceledAllResults, canceledOrderResult, closeResults, tpSlResult } from '../../../../src/exchange/live/action-results.js';
import { JsonBigInt } from '../../../../src/exchange/wire/json.js';
import type { ResponseOf } from '../../../../src/exchange/wire/responses.js';

const big = (digits: string) => new JsonBigInt(digits);

describe('F23 take-profit / stop-loss', () => {
  it('success with an id is accepted, digit for digit', () => {
    expect(tpSlResult([{ orderId: big('696073048050107226'), success: true }], 'tp_1')).toEqual({
      outcome: 'accepted',
      clientOid: 'tp_1',
      orderId: '696073048050107226',
    });
  });

  it('success false is a refusal with a clear message (the venue gives none); the id 0 is no id', () => {
    const r = tpSlResult([{ orderId: 0, success: false }], 'sl_1');
    expect(r).toMatchObject({ outcome: 'rejected', clientOid: 'sl_1', orderId: null });
    expect('error' in r && r.error).toMatchObject({
      category: 'invalid-order',
      endpoint: 'F23',
      message: expect.stringContaining('refused by the venue (F23 answers success false and gives no reason)'),
    });
  });

  it('no item, several items, or success without an id: unknown', () => {
    for (const data of [
      [],
      [
        { orderId: 1, success: true },
        { orderId: 2, success: true },
      ],
      [{ orderId: '0', success: true }],
    ] as ResponseOf<'F23'>[]) {
      expect(tpSlResult(data, 'x').outcome).toBe('unknown');
    }
  });
});

describe('F26 one cancel', () => {
  it("result true: accepted with the venue's id; by client id the client id kept", () => {
    expect(canceledOrderResult({ order_id: '596476148997685805', client_oid: null, result: true, err_msg: null }, { orderId: '596476148997685805' })).toEqual({
      outcome: 'accepted',
      clientOid: null,
      orderId: '596476148997685805',
    });
    expect(canceledOrderResult({ order_id: '5', client_oid: null, result: true }, { clientOid: 'c_1' })).toEqual({
      outcome: 'accepted',
      clientOid: 'c_1',
      orderId: '5',
    });
  });

  it("result false: a refusal classified by the venue's text", () => {
    const r = canceledOrderResult({ order_id: '', client_oid: null, result: false, err_msg: 'Order does not exist', err_code: '50005' }, { orderId: '9' });
    expect(r).toMatchObject({ outcome: 'rejected', orderId: '9' });
    expect('error' in r && r.error.category).toBe('not-found');
  });
});

describe('F27 close positions, F28 cancel all', () => {
  it("F27: ids exact; a failed close has no order id and keeps the venue's text", () => {
    const data = [
      { positionId: big('690800371848708186'), successOrderId: big('696023766399976282'), errorMessage: '', success: true },
      { positionId: big('690800371848708187'), successOrderId: 0, errorMessage: 'position is liquidating', success: false },
    ] as ResponseOf<'F27'>;
    expect(closeResults(data)).toEqual([
      { positionId: '690800371848708186', ok: true, orderId: '696023766399976282', error: null },
      { positionId: '690800371848708187', ok: false, orderId: null, error: 'position is liquidating' },
    ]);
  });

  it("F28: one result per order named; a failure is a refusal without the venue's reason", () => {
    const r = canceledAllResults(
      [
        { orderId: big('696026685023191898'), success: true },
        { orderId: big('696026685023191899'), success: false },
      ],
      'plan',
    );
    expect(r.map((x) => [x.outcome, x.orderId])).toEqual([
      ['accepted', '696026685023191898'],
      ['rejected', '696026685023191899'],
    ]);
    expect('error' in r[1]! && r[1].error.message).toMatch(/plan order 696026685023191899 not canceled/);
  });
});
