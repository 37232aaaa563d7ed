// Every endpoint, over HTTP to a venue on 127.0.0.1 that checks method, path, query, body, headers and signature.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ENDPOINTS, type EndpointId } from '../../src/exchange/endpoints.js';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { JsonBigInt } from '../../src/exchange/wire/json.js';
import { FakeVenue, type RecordedRequest } from '../fixtures/fake-venue.js';
import { clientFor } from '../fixtures/live-client.js';
import { SAMPLES } from '../fixtures/samples.js';

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

function last(id: EndpointId): RecordedRequest {
  const calls = venue.calls(id);
  expect(calls.length).toBeGreaterThan(0);
  return calls[calls.length - 1]!;
}

function expectWire(id: EndpointId, query: string, body: string): RecordedRequest {
  const r = last(id);
  const e = ENDPOINTS[id];
  expect(r.method).toBe(e.method);
  expect(r.path).toBe(e.path);
  expect(r.query).toBe(query);
  expect(r.body).toBe(body);
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers.locale).toBe('en-US');
  if (e.auth) {
    expect(r.auth).toBe('ok');
    expect(r.headers['access-timestamp']).toMatch(/^\d{13}$/);
  } else {
    expect(r.headers['access-key']).toBeUndefined();
    expect(r.headers['access-sign']).toBeUndefined();
  }
  return r;
}

describe('spot endpoints', () => {
  it('S0 server time', async () => {
    const t = Number(await client.spot.serverTime());
    expect(Math.abs(t - Date.now())).toBeLessThan(5000);
    expectWire('S0', '', '');
  });

  it('S1 order history: body as sent, records validated', async () => {
    const data = await client.spot.orderHistory({ symbol: 'WXTUSDT_SPBL', pageIndex: 0, pageSize: 100 });
    expectWire('S1', '', '{"symbol":"WXTUSDT_SPBL","pageIndex":0,"pageSize":100}');
    expect(data.orderInfoResultList[0]!.orderId).toBe('602941812964852154');
    expect(data.nextPage).toBe(false);
  });

  it('S2 fills: a long orderId beyond 2^53 goes out as a raw JSON number, digit for digit', async () => {
    const data = await client.spot.fills({ symbol: 'WXTUSDT_SPBL', orderId: new JsonBigInt('602929507946463674'), pageSize: 10 });
    expectWire('S2', '', '{"symbol":"WXTUSDT_SPBL","orderId":602929507946463674,"pageSize":10}');
    const fill = data.fillsOrderResultList[0]!;
    expect(fill.fillPrice).toBe('');
    expect(fill.orderType).toBe('');
  });

  it('S3 order info by client id', async () => {
    const rows = await client.spot.orderInfo({ clientOrderId: '202504041451014391743749461316' });
    expectWire('S3', '', '{"clientOrderId":"202504041451014391743749461316"}');
    expect(rows[0]!.status).toBe('open');
  });

  it('S4 batch cancel: per-order success and failure', async () => {
    const data = await client.spot.cancelBatch({ symbol: 'WXTUSDT_SPBL', orderIds: ['602882076026339770', '602882076026339771'] });
    expectWire('S4', '', '{"symbol":"WXTUSDT_SPBL","orderIds":["602882076026339770","602882076026339771"]}');
    expect(data.successList).toEqual(['602882076026339770']);
    expect(data.failureList[0]!.errMsg).toBe('FAILED_ORDER_NOT_FOUND');
  });

  it('S5 cancel by symbol', async () => {
    const data = await client.spot.cancelSymbol({ symbol: 'WXTUSDT_SPBL' });
    expectWire('S5', '', '{"symbol":"WXTUSDT_SPBL"}');
    expect(data.successList).toHaveLength(2);
  });

  it('S6 batch place: orderId raw numbers above 2^53 survive exactly', async () => {
    const data = await client.spot.placeBatch({
      symbol: 'BTCUSDT_SPBL',
      orderList: [
        { side: 'buy', orderType: 'limit', force: 'normal', price: '47523.03', quantity: '0.017963', clientOrderId: 'sx_a_1' },
        { side: 'sell', orderType: 'market', force: 'normal', quantity: '0.01', clientOrderId: 'sx_a_2' },
      ],
    });
    expectWire(
      'S6',
      '',
      '{"symbol":"BTCUSDT_SPBL","orderList":[{"side":"buy","orderType":"limit","force":"normal","price":"47523.03","quantity":"0.017963","clientOrderId":"sx_a_1"},{"side":"sell","orderType":"market","force":"normal","quantity":"0.01","clientOrderId":"sx_a_2"}]}',
    );
    const ids = data.resultList.map((r) => String(r.orderId));
    expect(ids).toEqual(['602876318261969338', '8389765489680951453']);
    expect(data.resultList[0]!.orderId).toBeInstanceOf(JsonBigInt);
  });

  it('S7 exchange info: public, query encoded as signed', async () => {
    const rows = await client.spot.exchangeInfo({ symbols: 'BTCUSDT_SPBL,ETHUSDC_SPBL' });
    expectWire('S7', 'symbols=BTCUSDT_SPBL%2CETHUSDC_SPBL', '');
    expect(rows[0]!.tickSize).toBe('0.1');
  });

  it('S8 assets', async () => {
    const rows = await client.spot.assets();
    expectWire('S8', '', '');
    expect(rows[1]!.available).toBe('10000999657.8927028500000000');
  });

  it('S9 public trades', async () => {
    const rows = await client.spot.publicTrades({ symbol: 'BTCUSDT_SPBL', limit: 1000 });
    expectWire('S9', 'symbol=BTCUSDT_SPBL&limit=1000', '');
    expect(rows[0]!.tradeId).toBe('778a5376-a0b6-4c8f-ab64-dd6ea40f896e');
  });

  it('S15 open orders: a signed POST with pageNo and limit; nextPage and totals null accepted', async () => {
    const data = await client.spot.openOrders({ symbol: 'WXTUSDT_SPBL', limit: 100, pageNo: 2 });
    expectWire('S15', '', '{"symbol":"WXTUSDT_SPBL","limit":100,"pageNo":2}');
    expect(data.orderInfoResultList[0]!.clientOrderId).toBe('202504040742105191743752530280');
    expect([data.nextPage, data.totals]).toEqual([null, null]);
  });
});

describe('futures endpoints', () => {
  it('F0 server time', async () => {
    expect(Math.abs((await client.futures.serverTime()).timestamp - Date.now())).toBeLessThan(5000);
    expectWire('F0', '', '');
  });

  it('F1 contracts (listing null accepted)', async () => {
    const rows = await client.futures.contracts({ symbol: 'cmt_btcusdt' });
    expectWire('F1', 'symbol=cmt_btcusdt', '');
    expect(rows[0]!.listing).toBeNull();
  });

  it('F2 tickers (markPrice absent on some items)', async () => {
    const rows = await client.futures.tickers();
    expectWire('F2', '', '');
    expect(rows).toHaveLength(2);
    expect(rows[1]!.markPrice).toBeUndefined();
  });

  it('F3 account list', async () => {
    const acct = await client.futures.accounts();
    expectWire('F3', '', '');
    expect(acct.collateral[0]!.amount).toBe('4663.20125463');
    expect(acct.position[0]!.side).toBe('LONG');
  });

  it('F4 single position', async () => {
    const rows = await client.futures.singlePosition({ symbol: 'cmt_btcusdt' });
    expectWire('F4', 'symbol=cmt_btcusdt', '');
    expect(rows).toHaveLength(2);
  });

  it('F5 current orders with every query parameter', async () => {
    const rows = await client.futures.currentOrders({ symbol: 'cmt_btcusdt', orderId: '689987455633326746', startTime: 1, endTime: 2, limit: 100, page: 0 });
    expectWire('F5', 'symbol=cmt_btcusdt&orderId=689987455633326746&startTime=1&endTime=2&limit=100&page=0', '');
    expect(rows[0]!.order_id).toBe('689987455633326746');
  });

  it('F6 batch place: per-item results', async () => {
    const data = await client.futures.placeBatch({
      symbol: 'cmt_btcusdt',
      orderDataList: [
        { client_oid: 'sx_b_1', size: '0.01', type: '1', order_type: '0', match_price: '0', price: '88888.0' },
        { client_oid: 'sx_b_2', size: '0.01', type: '2', order_type: '1', match_price: '0', price: '99999.0' },
      ],
    });
    expectWire(
      'F6',
      '',
      '{"symbol":"cmt_btcusdt","orderDataList":[{"client_oid":"sx_b_1","size":"0.01","type":"1","order_type":"0","match_price":"0","price":"88888.0"},{"client_oid":"sx_b_2","size":"0.01","type":"2","order_type":"1","match_price":"0","price":"99999.0"}]}',
    );
    expect(data.order_info.map((i) => i.result)).toEqual([true, false]);
    expect(data.order_info[1]!.error_code).toBe('40017');
  });

  it('F7 batch cancel', async () => {
    const data = await client.futures.cancelBatch({ symbol: 'cmt_btcusdt', ids: ['596471064624628269'] });
    expectWire('F7', '', '{"symbol":"cmt_btcusdt","ids":["596471064624628269"]}');
    expect(data.cancelOrderResultList[0]!.result).toBe(true);
  });

  it('F8 trigger order (client_oid null in the answer)', async () => {
    const data = await client.futures.placeTrigger({
      symbol: 'cmt_btcusdt',
      client_oid: 'sx_t_1',
      size: '1',
      type: '1',
      match_type: '1',
      execute_price: '0',
      trigger_price: '100',
    });
    expectWire('F8', '', '{"symbol":"cmt_btcusdt","client_oid":"sx_t_1","size":"1","type":"1","match_type":"1","execute_price":"0","trigger_price":"100"}');
    expect(data.client_oid).toBeNull();
    expect(data.order_id).toBe('596480271352594989');
  });

  it('F9 cancel trigger', async () => {
    const data = await client.futures.cancelTrigger({ symbol: 'cmt_btcusdt', orderId: '596480271352594989' });
    expectWire('F9', '', '{"symbol":"cmt_btcusdt","orderId":"596480271352594989"}');
    expect(data.result).toBe(true);
  });

  it('F18 order detail: a bare object, contracts and preset prices typed', async () => {
    const o = await client.futures.orderDetail({ orderId: '686643264626885530' });
    expectWire('F18', 'orderId=686643264626885530', '');
    expect(o).toMatchObject({
      order_id: '686643264626885530',
      status: 'filled',
      price: '0.0',
      contracts: 10000,
      filledQtyContracts: 10000,
      presetTakeProfitPrice: '100000.0',
    });
  });

  it('F19 order history with every query parameter', async () => {
    const rows = await client.futures.orderHistory({ symbol: 'cmt_btcusdt', pageSize: 100, createDate: 1742213506548, endCreateDate: 1742213506549 });
    expectWire('F19', 'symbol=cmt_btcusdt&pageSize=100&createDate=1742213506548&endCreateDate=1742213506549', '');
    expect(rows[0]).toMatchObject({ client_oid: '1478527825782587', status: 'filled', presetStopLossPrice: null });
  });

  it('F20 fills: tradeId and orderId raw JSON numbers beyond 2^53 survive exactly', async () => {
    venue.script('F20', {
      status: 200,
      body: '{"list":[{"tradeId":8389765489680951453,"orderId":602876318261969338,"symbol":"cmt_btcusdt","orderSide":"SELL","fillSize":"0.01","fillValue":"907.553","fillFee":"0.54","direction":"MAKER","createdTime":1716712170527}],"nextFlag":true,"totals":7}',
    });
    const data = await client.futures.fills({ symbol: 'cmt_btcusdt', orderId: '602876318261969338', startTime: 1, endTime: 2, limit: 100 });
    expectWire('F20', 'symbol=cmt_btcusdt&orderId=602876318261969338&startTime=1&endTime=2&limit=100', '');
    expect(data.list[0]!.tradeId).toBeInstanceOf(JsonBigInt);
    expect([String(data.list[0]!.tradeId), String(data.list[0]!.orderId)]).toEqual(['8389765489680951453', '602876318261969338']);
    expect([data.nextFlag, data.totals]).toEqual([true, 7]);
  });

  it('F20 fills: the documented sample, conflicting fields included, is accepted', async () => {
    const data = await client.futures.fills({});
    expect(data.list[0]).toMatchObject({ liquidateFee: 'MAKER', direction: 'OPEN_LONG', createdTime: 1716712170527 });
  });

  it('F18 needs an order id, F19 and F20 at most 100 rows: refused before sending', async () => {
    const before = venue.requests.length;
    await expect(client.futures.orderDetail({ orderId: '' })).rejects.toMatchObject({ category: 'bad-request', endpoint: 'F18' });
    await expect(client.futures.orderHistory({ pageSize: 101 })).rejects.toThrow(/pageSize must be an integer from 1 to 100/);
    await expect(client.futures.fills({ limit: 0 })).rejects.toThrow(/limit must be an integer from 1 to 100/);
    await expect(client.spot.openOrders({ symbol: 'X_SPBL', limit: 101 })).rejects.toThrow(/limit must be an integer from 1 to 100/);
    expect(venue.requests.length).toBe(before);
  });
});

describe('signing on the wire', () => {
  it('unicode in a body is signed byte for byte', async () => {
    await client.spot.orderInfo({ clientOrderId: 'ok' });
    venue.script('S3', { status: 200, body: '{"code":"00000","msg":"success","requestTime":1,"data":[]}' });
    // The client id check refuses non-ASCII ids, so exercise unicode through a free-text field.
    await client.rest.call('S1', { symbol: 'ÄÖÜ_€_SPBL' } as never);
    expect(last('S1').auth).toBe('ok');
    expect(last('S1').body).toBe('{"symbol":"ÄÖÜ_€_SPBL"}');
  });

  it('a query with reserved characters is sent and signed exactly as encoded', async () => {
    await client.futures.contracts({ symbol: "a b/c'd(e)*!" });
    const r = expectWire('F1', 'symbol=a%20b%2Fc%27d%28e%29%2A%21', '');
    expect(r.auth).toBe('public');
    await client.futures.currentOrders({ symbol: "x y'z" });
    expect(last('F5').auth).toBe('ok');
    expect(last('F5').query).toBe('symbol=x%20y%27z');
  });

  it('wrong credentials are refused by the venue with its code', async () => {
    const bad = clientFor(venue, { credentials: { apiKey: 'test-key', apiSecret: 'wrong', passphrase: 'test-pass' } });
    await expect(bad.spot.assets()).rejects.toMatchObject({ category: 'auth', code: '40009', httpStatus: 400, retryable: false });
    await bad.close();
  });
});

describe('market data and trigger-order endpoints beyond the interface', () => {
  it('S10 spot candles: public GET with period and limit; rows newest first, [0] a JSON number', async () => {
    const rows = await client.spot.candles({ symbol: 'BTCUSDT_SPBL', period: '1h', limit: 300 });
    expectWire('S10', 'symbol=BTCUSDT_SPBL&period=1h&limit=300', '');
    expect(rows[0]).toEqual([1743669000000, '83654.0', '83778.0', '83531.5', '83688.7', '248.17024800', '20755885.859164900']);
  });

  it('S11 spot ticker: the documented sample, a composite with ts after requestTime, is accepted', async () => {
    const t = await client.spot.ticker({ symbol: 'BTCUSDT_SPBL' });
    expectWire('S11', 'symbol=BTCUSDT_SPBL', '');
    expect(t).toMatchObject({ lastPrice: '83354.0', priceChangePercent: '-0.011451', trades: 105901, ts: 1750060557824, markPrice: '0' });
  });

  it('S13 spot depth: limit a gear', async () => {
    const book = await client.spot.depth({ symbol: 'BTCUSDT_SPBL', limit: 200 });
    expectWire('S13', 'symbol=BTCUSDT_SPBL&limit=200', '');
    expect(book.bids[0]).toEqual(['38073.7', '0.4993000000000000']);
    expect(book.timestamp).toBe('1622102974025');
  });

  it('F10 candles: granularity, limit and priceType; seven strings a row', async () => {
    const rows = await client.futures.candles({ symbol: 'cmt_btcusdt', granularity: '4h', limit: 1000, priceType: 'MARK' });
    expectWire('F10', 'symbol=cmt_btcusdt&granularity=4h&limit=1000&priceType=MARK', '');
    expect(rows[0]).toEqual(['1716707460000', '69174.3', '69174.4', '69174.1', '69174.3', '0', '0.011']);
  });

  it('F11 history candles: both bounds of the window', async () => {
    await client.futures.historyCandles({ symbol: 'cmt_btcusdt', granularity: '1m', startTime: 1716701460000, endTime: 1716707460000, limit: 100 });
    expectWire('F11', 'symbol=cmt_btcusdt&granularity=1m&startTime=1716701460000&endTime=1716707460000&limit=100', '');
  });

  it('F12 ticker, F13 depth, F14 current funding rates, F15 next funding time, F16 funding history, F17 index', async () => {
    expect((await client.futures.ticker({ symbol: 'cmt_btcusdt' })).indexPrice).toBe('90797.161');
    expectWire('F12', 'symbol=cmt_btcusdt', '');
    expect((await client.futures.depth({ symbol: 'cmt_btcusdt', limit: 15 })).bids).toHaveLength(2);
    expectWire('F13', 'symbol=cmt_btcusdt&limit=15', '');
    expect((await client.futures.currentFundRate())[0]).toMatchObject({ fundingRate: '-0.0001036', collectCycle: 480 });
    expectWire('F14', '', '');
    await client.futures.currentFundRate({ symbol: 'cmt_btcusdt' });
    expectWire('F14', 'symbol=cmt_btcusdt', '');
    expect((await client.futures.fundingTime({ symbol: 'cmt_btcusdt' })).fundingTime).toBe(1716595200000);
    expectWire('F15', 'symbol=cmt_btcusdt', '');
    expect((await client.futures.historyFundRate({ symbol: 'cmt_btcusdt', limit: 100 }))[0]!.fundingRate).toBe('0.0001028');
    expectWire('F16', 'symbol=cmt_btcusdt&limit=100', '');
    expect((await client.futures.index({ symbol: 'cmt_btcusdt', priceType: 'MARK' })).index).toBe('333.627857143');
    expectWire('F17', 'symbol=cmt_btcusdt&priceType=MARK', '');
  });

  it('F21 current trigger orders: signed GET with every query parameter; digits for status and type', async () => {
    const rows = await client.futures.currentPlan({ symbol: 'cmt_btcusdt', orderId: '461234125', startTime: 1, endTime: 2, limit: 100, page: 1 });
    expectWire('F21', 'symbol=cmt_btcusdt&orderId=461234125&startTime=1&endTime=2&limit=100&page=1', '');
    expect(rows[0]).toMatchObject({ order_id: '461234125', status: '1', type: '1', order_type: '0', triggerPriceType: 'LIMIT', presetTakeProfitPrice: null });
  });

  it('F22 trigger-order history: signed GET with the window, delegateType and pageSize', async () => {
    const data = await client.futures.historyPlan({ symbol: 'cmt_btcusdt', startTime: 1, endTime: 2, delegateType: 3, pageSize: 50 });
    expectWire('F22', 'symbol=cmt_btcusdt&startTime=1&endTime=2&delegateType=3&pageSize=50', '');
    expect(data.nextPage).toBe(false);
    expect(data.list[0]!.triggerPriceType).toBe('');
  });

  it('F21 / F22: order ids beyond 2^53 as raw JSON numbers survive digit for digit', async () => {
    venue.script('F21', { status: 200, body: SAMPLES.F21!.replace('"order_id":"461234125"', '"order_id":8389765489680951453') });
    const rows = await client.futures.currentPlan({});
    expect(rows[0]!.order_id).toBeInstanceOf(JsonBigInt);
    expect(String(rows[0]!.order_id)).toBe('8389765489680951453');
    venue.script('F22', { status: 200, body: SAMPLES.F22!.replace('"order_id":"461234125"', '"order_id":602876318261969338') });
    const data = await client.futures.historyPlan({ symbol: 'cmt_btcusdt' });
    expect(String(data.list[0]!.order_id)).toBe('602876318261969338');
  });

  it('depth gears, page sizes and windows outside the documented limits are refused before sending', async () => {
    const before = venue.requests.length;
    await expect(client.spot.depth({ symbol: 'BTCUSDT_SPBL', limit: 20 })).rejects.toMatchObject({
      category: 'bad-request',
      endpoint: 'S13',
      message: 'rejected before sending: limit must be one of 15, 200, got 20',
    });
    await expect(client.futures.depth({ symbol: 'cmt_btcusdt', limit: 50 })).rejects.toMatchObject({ category: 'bad-request', endpoint: 'F13' });
    await expect(client.futures.candles({ symbol: 'cmt_btcusdt', granularity: '1m', limit: 1001 })).rejects.toThrow(/limit must be an integer from 1 to 1000/);
    await expect(client.futures.historyCandles({ symbol: 'cmt_btcusdt', granularity: '1m', limit: 101 })).rejects.toThrow(
      /limit must be an integer from 1 to 100/,
    );
    await expect(client.futures.historyCandles({ symbol: 'cmt_btcusdt', granularity: '1m', startTime: 5, endTime: 4 })).rejects.toThrow(
      /startTime 5 is after endTime 4/,
    );
    await expect(client.futures.historyFundRate({ symbol: 'cmt_btcusdt', limit: 101 })).rejects.toMatchObject({ endpoint: 'F16' });
    await expect(client.futures.currentPlan({ limit: 0 })).rejects.toMatchObject({ endpoint: 'F21' });
    await expect(client.futures.historyPlan({ symbol: 'cmt_btcusdt', pageSize: 101 })).rejects.toThrow(/pageSize must be an integer from 1 to 100/);
    await expect(client.spot.candles({ symbol: 'BTCUSDT_SPBL', period: '1m', limit: 0 })).rejects.toThrow(/limit must be a positive integer, got 0/);
    expect(venue.requests.length).toBe(before);
  });
});
