// F23–F30 through the live client, over HTTP to a venue on 127.0.0.1 that checks method, path, query, body, headers
// and signature and answers with the reference's samples: exact bodies (big ids as bare numbers), per-item results,
// the F24 envelope, refusals before sending, the ledger's kinds, and the funding sign convention both ways.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import { ENDPOINTS, type EndpointId } from '../../src/exchange/endpoints.js';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { FakeVenue, envelopeError, type RecordedRequest } from '../fixtures/fake-venue.js';
import { clientFor } from '../fixtures/live-client.js';
import { SAMPLES } from '../fixtures/samples.js';
import { ACTION_SAMPLES } from '../unit/exchange/wire/action-samples.js';

const FUT = 'cmt_btcusdt';
const d = (s: string) => Decimal.from(s);

let venue: FakeVenue;
let client: LiveClient;

beforeAll(async () => {
  venue = await FakeVenue.start();
  client = clientFor(venue);
});
afterAll(async () => {
  await client.close();
  await venue.close();
});

/** The last request of an endpoint, checked for method, path, query, body and a valid signature. */
function sent(id: EndpointId, query: string, body: string): RecordedRequest {
  const calls = venue.calls(id);
  expect(calls.length).toBeGreaterThan(0);
  const r = calls[calls.length - 1]!;
  expect([r.method, r.path, r.query, r.body, r.auth]).toEqual([ENDPOINTS[id].method, ENDPOINTS[id].path, query, body, 'ok']);
  return r;
}

/** Answers the next call of `id` with `body` (HTTP 200 unless given). */
function answer(id: EndpointId, body: string, status = 200): void {
  venue.script(id, { status, body });
}

describe('order actions F23–F28', () => {
  it('F23: the documented body (clientOrderId, planType, executePrice "0", lower-case side, marginMode 1); the id beyond 2^53 exact', async () => {
    answer('F23', ACTION_SAMPLES.F23);
    const r = await client.placeTpSl({ symbol: FUT, clientOid: 'sx_tp_1', role: 'take-profit', positionSide: 'long', size: d('1'), triggerPrice: d('50000') });
    sent(
      'F23',
      '',
      '{"symbol":"cmt_btcusdt","clientOrderId":"sx_tp_1","planType":"profit_plan","triggerPrice":"50000","executePrice":"0","size":"1","positionSide":"long","marginMode":1}',
    );
    expect(r).toEqual({ outcome: 'accepted', clientOid: 'sx_tp_1', orderId: '696073048050107226' });
  });

  it('F23: success false is a refusal; a stop-loss with a limit price says loss_plan and its price', async () => {
    answer('F23', '[{"orderId": 0, "success": false}]');
    const r = await client.placeTpSl({
      symbol: FUT,
      clientOid: 'sx_sl_1',
      role: 'stop-loss',
      positionSide: 'short',
      size: d('0.01'),
      triggerPrice: d('95000.5'),
      executePrice: d('95100'),
    });
    sent(
      'F23',
      '',
      '{"symbol":"cmt_btcusdt","clientOrderId":"sx_sl_1","planType":"loss_plan","triggerPrice":"95000.5","executePrice":"95100","size":"0.01","positionSide":"short","marginMode":1}',
    );
    expect(r).toMatchObject({ outcome: 'rejected', clientOid: 'sx_sl_1', orderId: null, error: { category: 'invalid-order', endpoint: 'F23' } });
  });

  it('F24: orderId a bare JSON number digit for digit; the envelope "00000" accepted, another code rejected, a 5xx unknown', async () => {
    answer('F24', ACTION_SAMPLES.F24);
    const change = { symbol: FUT, orderId: '696073048050107226', triggerPrice: d('51000'), triggerPriceType: 'mark' as const };
    expect(await client.modifyTpSl(change)).toEqual({ outcome: 'accepted', clientOid: null, orderId: '696073048050107226' });
    sent('F24', '', '{"orderId":696073048050107226,"triggerPrice":"51000","executePrice":"0","triggerPriceType":3}');
    answer('F24', envelopeError('50005', 'Order does not exist'));
    expect(await client.modifyTpSl({ ...change, executePrice: d('51001'), triggerPriceType: 'last' })).toMatchObject({
      outcome: 'rejected',
      error: { category: 'not-found', code: '50005' },
    });
    sent('F24', '', '{"orderId":696073048050107226,"triggerPrice":"51000","executePrice":"51001","triggerPriceType":1}');
    answer('F24', envelopeError('40015', 'System error'), 500);
    expect(await client.modifyTpSl(change)).toMatchObject({ outcome: 'unknown', orderId: '696073048050107226' });
  });

  it('F25: one F6 item with its symbol', async () => {
    answer('F25', ACTION_SAMPLES.F25);
    const r = await client.placeOrder(FUT, {
      clientOid: 'sx_p_1',
      side: 'sell',
      kind: 'limit',
      timeInForce: 'post_only',
      price: d('99999.5'),
      size: d('0.01'),
      positionSide: 'short',
    });
    sent('F25', '', '{"symbol":"cmt_btcusdt","client_oid":"sx_p_1","size":"0.01","type":"2","order_type":"1","match_price":"0","price":"99999.5"}');
    expect(r).toEqual({ outcome: 'accepted', clientOid: 'sx_p_1', orderId: '596471064624628269' });
    answer('F25', envelopeError('40017', 'Parameter validation failed: size'));
    expect(await client.placeOrder(FUT, { clientOid: 'sx_p_2', side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('0.01') })).toMatchObject({
      outcome: 'rejected',
      clientOid: 'sx_p_2',
    });
    sent('F25', '', '{"symbol":"cmt_btcusdt","client_oid":"sx_p_2","size":"0.01","type":"1","order_type":"3","match_price":"1","price":"0"}');
  });

  it('F26: by order id or by client id, no symbol; result false a refusal', async () => {
    answer('F26', ACTION_SAMPLES.F26);
    expect(await client.cancelOrder({ orderId: '596476148997685805' })).toEqual({ outcome: 'accepted', clientOid: null, orderId: '596476148997685805' });
    sent('F26', '', '{"orderId":"596476148997685805"}');
    answer('F26', '{"order_id": "", "client_oid": "sx_c_1", "result": false, "err_msg": "Order does not exist"}');
    expect(await client.cancelOrder({ clientOid: 'sx_c_1' })).toMatchObject({ outcome: 'rejected', clientOid: 'sx_c_1', error: { category: 'invalid-order' } });
    sent('F26', '', '{"clientOid":"sx_c_1"}');
  });

  it('F27: one result per position, ids exact; without a symbol every position', async () => {
    answer('F27', ACTION_SAMPLES.F27);
    expect(await client.closePositions(FUT)).toEqual([{ positionId: '690800371848708186', ok: true, orderId: '696023766399976282', error: null }]);
    sent('F27', '', '{"symbol":"cmt_btcusdt"}');
    answer('F27', '[]');
    expect(await client.closePositions()).toEqual([]);
    sent('F27', '', '{}');
  });

  it('F28: cancelOrderType normal or plan; a whole-request failure is the one result', async () => {
    answer('F28', ACTION_SAMPLES.F28);
    expect(await client.cancelAllFutures('plan', FUT)).toEqual([{ outcome: 'accepted', clientOid: null, orderId: '696026685023191898' }]);
    sent('F28', '', '{"symbol":"cmt_btcusdt","cancelOrderType":"plan"}');
    answer('F28', envelopeError('40015', 'System error'), 500);
    expect(await client.cancelAllFutures('normal')).toMatchObject([{ outcome: 'unknown', orderId: null }]);
    sent('F28', '', '{"cancelOrderType":"normal"}');
  });

  it('refused before sending: a bad client id (F23, F25), no order id (F24, F26), a ledger page over 100', async () => {
    const before = venue.requests.length;
    expect(
      await client.placeTpSl({ symbol: FUT, clientOid: 'bad id!', role: 'take-profit', positionSide: 'long', size: d('1'), triggerPrice: d('1') }),
    ).toMatchObject({ outcome: 'rejected', error: { category: 'bad-request', endpoint: 'F23' } });
    expect(await client.placeOrder(FUT, { clientOid: 'x'.repeat(41), side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('1') })).toMatchObject({
      outcome: 'rejected',
      error: { endpoint: 'F25' },
    });
    expect(await client.modifyTpSl({ symbol: FUT, orderId: '', triggerPrice: d('1') })).toMatchObject({ outcome: 'rejected', error: { endpoint: 'F24' } });
    expect(await client.modifyTpSl({ symbol: FUT, orderId: '12a', triggerPrice: d('1') })).toMatchObject({ outcome: 'rejected', error: { endpoint: 'F24' } });
    expect(await client.cancelOrder({ orderId: '' })).toMatchObject({ outcome: 'rejected', error: { endpoint: 'F26' } });
    await expect(client.ledger({ limit: 101 })).rejects.toMatchObject({ category: 'bad-request', endpoint: 'F30' });
    await expect(client.ledger({ kind: 'fee', limit: 0 })).rejects.toMatchObject({ category: 'bad-request', endpoint: 'F30' });
    expect(venue.requests.length).toBe(before);
  });
});

const bill = (id: string, type: string, ms: number, amount = '1') =>
  `{"billId": ${id}, "coin": "USDT", "symbol": "cmt_btcusdt", "amount": "${amount}", "businessType": "${type}", "balance": "100", "fillFee": "0", "transferReason": "UNKNOWN_TRANSFER_REASON", "ctime": ${ms}}`;

describe('account reads F29, F30', () => {
  it("F29: a signed GET without parameters; sized positions with their F29 fields, the sample's empty one left out", async () => {
    answer('F29', ACTION_SAMPLES.F29);
    expect(await client.allPositions()).toEqual([]);
    sent('F29', '', '');
    answer(
      'F29',
      '[{"id": 690800371848708186, "symbol": "cmt_ethusdt", "side": "SHORT", "size": "2", "open_value": "6000", "leverage": "10", "funding_fee": "0.5", "cum_funding_fee": "1.5", "marginSize": "600", "contractVal": "0.01", "unrealizePnl": "-20", "liquidatePrice": "0"}]',
    );
    const [p] = await client.allPositions();
    expect(p).toMatchObject({ symbol: 'cmt_ethusdt', side: 'short', positionId: '690800371848708186', liquidationPrice: null });
    expect([p!.margin, p!.unrealizedPnl, p!.fundingFee, p!.cumFundingFee, p!.entryPrice].map(String)).toEqual(['600', '-20', '0.5', '1.5', '3000']);
  });

  it("funding signs: paid-positive negates positions' and collateral's funding into changes of collateral", async () => {
    const paid = clientFor(venue, { fundingFeeSign: 'paid-positive' });
    try {
      answer('F29', '[{"symbol": "cmt_btcusdt", "side": "LONG", "size": "1", "open_value": "100", "funding_fee": "0.5", "cum_funding_fee": "1.5"}]');
      const [p] = await paid.allPositions();
      expect([p!.fundingFee, p!.cumFundingFee].map(String)).toEqual(['-0.5', '-1.5']);
      const [b] = await paid.balances('futures');
      expect([String(b!.cumFunding), b!.liquidating]).toEqual(['-9859.37164167', false]);
      const [asIs] = await client.balances('futures');
      expect(String(asIs!.cumFunding)).toBe('9859.37164167');
      expect(SAMPLES.F3).toContain('"cum_position_funding_amount":"9859.37164167"');
    } finally {
      await paid.close();
    }
  });

  it('F30 for one type: businessType sent, one request; the sample bill with its id digit for digit', async () => {
    answer('F30', ACTION_SAMPLES.F30);
    const page = await client.ledger({ kind: 'funding', symbol: FUT, startMs: 1763700000000, endMs: 1763800000000, limit: 10 });
    sent('F30', '', '{"symbol":"cmt_btcusdt","businessType":"position_funding","startTime":1763700000000,"endTime":1763800000000,"limit":10}');
    expect(page.hasMore).toBe(true);
    expect(page.entries.map((e) => [e.billId, e.kind, e.rawKind, String(e.amount), e.timestampMs])).toEqual([
      ['686960019383517338', 'funding', 'position_funding', '0.08266646', 1763784031721],
    ]);
  });

  it('F30 for a kind of several types: no businessType, pages of 100 ending at the oldest bill, filtered to the kind', async () => {
    const before = venue.calls('F30').length;
    answer(
      'F30',
      `{"hasNextPage": true, "items": [${bill('900000000000000003', 'order_fill_fee_income', 3000, '-0.3')}, ${bill('900000000000000002', 'position_funding', 2000)}]}`,
    );
    answer(
      'F30',
      `{"hasNextPage": false, "items": [${bill('900000000000000002', 'position_funding', 2000)}, ${bill('900000000000000001', 'order_liquidate_fee_income', 1000, '-2')}]}`,
    );
    const page = await client.ledger({ kind: 'fee', limit: 5 });
    const calls = venue.calls('F30').slice(before);
    expect(calls.map((c) => c.body)).toEqual(['{"limit":100}', '{"endTime":2000,"limit":100}']);
    expect(page).toMatchObject({ hasMore: false });
    expect(page.entries.map((e) => [e.billId, e.rawKind, String(e.amount)])).toEqual([
      ['900000000000000003', 'order_fill_fee_income', '-0.3'],
      ['900000000000000001', 'order_liquidate_fee_income', '-2'],
    ]);
  });

  it('F30 filtered: more than `limit` of the kind found, the newest kept and more said to exist', async () => {
    answer(
      'F30',
      `{"hasNextPage": false, "items": [${bill('3', 'position_open_long', 30)}, ${bill('2', 'position_open_short', 20)}, ${bill('1', 'deposit', 10)}]}`,
    );
    const page = await client.ledger({ kind: 'open', limit: 1 });
    expect(page.entries.map((e) => e.billId)).toEqual(['3']);
    expect(page.hasMore).toBe(true);
  });
});
