// F23–F30 answers as the venue sends them, through the same reading as every answer (lossless JSON, envelope,
// schema): the reference's verbatim samples, big ids digit for digit, both spellings of the bill time, the F24
// envelope and its errors, and F29's "0" liquidation price.
import { describe, expect, it } from '@jest/globals';
import { ExchangeError } from '../../../../src/exchange/errors.js';
import { interpretResponse } from '../../../../src/exchange/live/rest-client.js';
import { JsonBigInt } from '../../../../src/exchange/wire/json.js';
import type { EndpointId } from '../../../../src/exchange/endpoints.js';
import { ACTION_SAMPLES } from './action-samples.js';

const ok = <E extends EndpointId>(id: E, body: string) => interpretResponse(id, { status: 200, headers: {}, body });

function failure(id: EndpointId, status: number, body: string): ExchangeError {
  try {
    interpretResponse(id, { status, headers: {}, body });
  } catch (err) {
    expect(err).toBeInstanceOf(ExchangeError);
    return err as ExchangeError;
  }
  throw new Error('expected the answer to be refused');
}

describe('F23–F28 order actions', () => {
  it('F23: a bare array; the order id beyond 2^53 kept digit for digit', () => {
    const [item] = ok('F23', ACTION_SAMPLES.F23);
    expect(item!.orderId).toBeInstanceOf(JsonBigInt);
    expect(String(item!.orderId)).toBe('696073048050107226');
    expect(item!.success).toBe(true);
  });

  it('F24: the envelope with data "" (or null) is a success; any other code is the venue\'s error', () => {
    expect(ok('F24', ACTION_SAMPLES.F24)).toBe('');
    expect(ok('F24', '{"code":"00000","msg":"success","requestTime":1,"data":null}')).toBeNull();
    const err = failure('F24', 200, '{"code":"50005","msg":"Order does not exist","requestTime":1765956639711,"data":null}');
    expect(err).toMatchObject({ category: 'not-found', code: '50005', endpoint: 'F24', outcomeUnknown: false });
    const busy = failure('F24', 500, '{"code":"40015","msg":"System error","requestTime":1,"data":null}');
    expect(busy).toMatchObject({ category: 'unavailable', outcomeUnknown: true });
    // A bare answer is not what F24 sends.
    expect(failure('F24', 200, '{"result":true}')).toMatchObject({ category: 'bad-response' });
  });

  it('F25 and F26: bare objects, client_oid and err_msg null', () => {
    expect(ok('F25', ACTION_SAMPLES.F25)).toEqual({ client_oid: null, order_id: '596471064624628269' });
    expect(ok('F26', ACTION_SAMPLES.F26)).toEqual({ order_id: '596476148997685805', client_oid: null, result: true, err_msg: null });
  });

  it('F27: position and order ids as raw JSON numbers, exact', () => {
    const [item] = ok('F27', ACTION_SAMPLES.F27);
    expect([String(item!.positionId), String(item!.successOrderId), item!.errorMessage, item!.success]).toEqual([
      '690800371848708186',
      '696023766399976282',
      '',
      true,
    ]);
  });

  it('F28: order ids as raw JSON numbers, exact', () => {
    expect(ok('F28', ACTION_SAMPLES.F28).map((i) => [String(i.orderId), i.success])).toEqual([['696026685023191898', true]]);
  });

  it('a malformed item names its field', () => {
    expect(failure('F23', 200, '[{"orderId": "x1", "success": true}]')).toMatchObject({ category: 'bad-response', field: '[0].orderId' });
    expect(failure('F27', 200, '[{"positionId": 1, "successOrderId": 2, "success": "yes"}]')).toMatchObject({ field: '[0].success' });
    // A double would lose the id: a bare integer beyond 2^53 only survives through the lossless reading.
    expect(failure('F28', 200, '[{"orderId": 1.5, "success": true}]')).toMatchObject({ field: '[0].orderId' });
  });
});

describe('F29 positions, F30 bills', () => {
  it('F29: the documented sample, garbled as the source prints it ("0.", "09", side "Long"), is accepted', () => {
    const [row] = ok('F29', ACTION_SAMPLES.F29);
    expect(row).toMatchObject({ side: 'Long', size: '0.', cum_open_value: '09', contract_id: 10000002, funding_fee: '0.000001' });
  });

  it('F29: the fields it adds are typed; a liquidation price "0" passes (read as none)', () => {
    const [row] = ok(
      'F29',
      '[{"id": 690800371848708186, "symbol": "cmt_btcusdt", "side": "LONG", "size": "0.01", "open_value": "900", "marginSize": "45", "contractVal": "0.0001", "unrealizePnl": "-1.5", "liquidatePrice": "0"}]',
    );
    expect(row).toMatchObject({ marginSize: '45', contractVal: '0.0001', unrealizePnl: '-1.5', liquidatePrice: '0' });
    expect(String(row!.id)).toBe('690800371848708186');
    expect(failure('F29', 200, '[{"side": "LONG", "size": "1", "open_value": "1", "liquidatePrice": "1e5"}]')).toMatchObject({ field: '[0].liquidatePrice' });
  });

  it('F30: billId a raw number beyond 2^53, `ctime` as sent; `cTime` as documented, a string, and billId a string are accepted', () => {
    const page = ok('F30', ACTION_SAMPLES.F30);
    expect(page.hasNextPage).toBe(true);
    expect(page.items[0]!.billId).toBeInstanceOf(JsonBigInt);
    expect(String(page.items[0]!.billId)).toBe('686960019383517338');
    expect(page.items[0]!.ctime).toBe(1763784031721);
    const documented = ok(
      'F30',
      '{"hasNextPage": false, "items": [{"billId": "686960019383517339", "coin": "USDT", "symbol": "cmt_btcusdt", "amount": "-0.5", "businessType": "order_fill_fee_income", "balance": "1", "fillFee": "0.5", "transferReason": "UNKNOWN_TRANSFER_REASON", "cTime": "1763784031722"}]}',
    );
    expect(documented.items[0]).toMatchObject({ billId: '686960019383517339', cTime: '1763784031722' });
    expect(
      failure('F30', 200, '{"hasNextPage": false, "items": [{"billId": 1, "coin": "USDT", "amount": "1", "businessType": "deposit", "ctime": "soon"}]}'),
    ).toMatchObject({ field: 'items[0].ctime' });
  });
});
