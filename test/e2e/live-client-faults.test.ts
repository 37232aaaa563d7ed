// Error bodies, 429s, HTML pages, truncated JSON, timeouts, dropped connections, malformed fields:
// what the client raises for each, what it retries, and that a POST is never sent twice.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { FakeVenue, envelopeError } from '../fixtures/fake-venue.js';
import { caught, clientFor } from '../fixtures/live-client.js';

let venue: FakeVenue;
let client: LiveClient;

beforeEach(async () => {
  venue = await FakeVenue.start();
  client = clientFor(venue, { timeoutMs: 300 });
});
afterEach(async () => {
  await client.close();
  await venue.close();
});

const PLACE = {
  symbol: 'cmt_btcusdt',
  orderDataList: [{ client_oid: 'sx_1', size: '0.01', type: '1' as const, order_type: '0' as const, match_price: '0' as const, price: '1' }],
};

describe('venue errors', () => {
  it('a futures error comes wrapped in the envelope: code, message, HTTP status, not retried', async () => {
    venue.script('F4', { status: 400, body: envelopeError('40020', 'Parameter symbol is invalid') });
    const e = await caught(client.futures.singlePosition({ symbol: 'nope' }));
    expect(e).toMatchObject({ category: 'bad-request', code: '40020', httpStatus: 400, retryable: false, outcomeUnknown: false });
    expect(e.summary()).toBe('F4 /capi/v2/account/position/singlePosition | HTTP 400 | code 40020 | Parameter symbol is invalid');
    expect(venue.calls('F4')).toHaveLength(1);
  });

  it('a spot error envelope with HTTP 200 is still an error', async () => {
    venue.script('S8', { status: 200, body: '{"code":"40001","msg":"Header \\"ACCESS_KEY\\" is required","requestTime":1622097118135}' });
    const e = await caught(client.spot.assets());
    expect(e).toMatchObject({ category: 'auth', code: '40001' });
  });

  it('a futures success enveloped with code "200" is a success', async () => {
    venue.script('F9', {
      status: 200,
      body: '{"msg":"success","requestTime":1713339011237,"code":"200","data":{"order_id":"1","client_oid":null,"result":true,"err_msg":null}}',
    });
    await expect(client.futures.cancelTrigger({ symbol: 'cmt_btcusdt', orderId: '1' })).resolves.toMatchObject({ result: true });
  });

  it('40015 System error on a write leaves the outcome unknown', async () => {
    venue.script('F6', { status: 400, body: envelopeError('40015', 'System error') });
    const e = await caught(client.futures.placeBatch(PLACE));
    expect(e).toMatchObject({ category: 'unavailable', outcomeUnknown: true });
    expect(venue.calls('F6')).toHaveLength(1);
  });

  it('an unknown code on a write is not assumed rejected', async () => {
    venue.script('S6', { status: 400, body: envelopeError('49999', 'something new') });
    const e = await caught(
      client.spot.placeBatch({ symbol: 'X_SPBL', orderList: [{ side: 'buy', orderType: 'market', force: 'normal', quantity: '1', clientOrderId: 'a' }] }),
    );
    expect(e).toMatchObject({ category: 'unknown', retryable: false, outcomeUnknown: true });
  });

  it('HTTP 521 is an auth failure (IP not whitelisted)', async () => {
    venue.script('F3', { status: 521, body: '<html>Web server is down</html>', headers: { 'content-type': 'text/html' } });
    const e = await caught(client.futures.accounts());
    expect(e.category).toBe('auth');
  });
});

describe('retries: reads retry retryable errors, writes never', () => {
  it('GET: HTML 502 twice, then the answer', async () => {
    const html = { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html' } };
    venue.script('F2', html, html);
    const rows = await client.futures.tickers();
    expect(rows).toHaveLength(2);
    expect(venue.calls('F2')).toHaveLength(3);
  });

  it('GET: gives up after the configured attempts with the last error', async () => {
    const html = { status: 502, body: '<html>502</html>' };
    venue.script('F2', html, html, html, html);
    const e = await caught(client.futures.tickers());
    expect(e).toMatchObject({ category: 'unavailable', httpStatus: 502, outcomeUnknown: false });
    expect(e.message).toMatch(/HTML page/);
    expect(venue.calls('F2')).toHaveLength(3);
  });

  it('POST: an HTML 502 is sent once and leaves the outcome unknown', async () => {
    venue.script('F6', { status: 502, body: '<html>502</html>' });
    const e = await caught(client.futures.placeBatch(PLACE));
    expect(e).toMatchObject({ category: 'unavailable', retryable: true, outcomeUnknown: true });
    expect(venue.calls('F6')).toHaveLength(1);
  });

  it('POST: a timeout is sent once and leaves the outcome unknown', async () => {
    venue.script('S6', { delayMs: 1000 });
    const e = await caught(
      client.spot.placeBatch({ symbol: 'X_SPBL', orderList: [{ side: 'buy', orderType: 'market', force: 'normal', quantity: '1', clientOrderId: 'a' }] }),
    );
    expect(e).toMatchObject({ category: 'timeout', outcomeUnknown: true });
    expect(venue.calls('S6')).toHaveLength(1);
  });

  it('POST: a connection dropped after the request arrived leaves the outcome unknown', async () => {
    venue.script('F7', { drop: true });
    const e = await caught(client.futures.cancelBatch({ symbol: 'cmt_btcusdt', ids: ['1'] }));
    expect(e).toMatchObject({ category: 'network', outcomeUnknown: true });
    expect(venue.calls('F7')).toHaveLength(1);
  });

  it('POST: a connection refused never reached the venue, so the outcome is known', async () => {
    const port = Number(new URL(venue.url).port);
    await venue.close();
    const c = clientFor(venue, { spotBaseUrl: `http://127.0.0.1:${port}`, futuresBaseUrl: `http://127.0.0.1:${port}` });
    const e = await caught(c.futures.placeBatch(PLACE));
    expect(e).toMatchObject({ category: 'network', outcomeUnknown: false });
    await c.close();
    venue = await FakeVenue.start();
  });

  it('a spot read sent as a POST (S3) is retried like any read: it changes nothing at the venue', async () => {
    venue.script('S3', { status: 502, body: '<html>502</html>' });
    await client.spot.orderInfo({ orderId: '1' }).catch(() => undefined);
    expect(venue.calls('S3')).toHaveLength(2);
  });

  it('GET: a timeout is retried', async () => {
    venue.script('F5', { delayMs: 1000 });
    const rows = await client.futures.currentOrders({});
    expect(rows).toHaveLength(1);
    expect(venue.calls('F5')).toHaveLength(2);
  });

  it('truncated JSON: a GET retries; a POST raises a bad response with unknown outcome', async () => {
    venue.script('F1', { status: 200, body: '[{"symbol":"cmt_btcusdt","underlying_index":"BTC"', truncateAt: 20 });
    expect(await client.futures.contracts()).toHaveLength(1);
    expect(venue.calls('F1')).toHaveLength(2);
    const full = '{"order_info":[{"order_id":"1","client_oid":"sx_1","result":true}],"result":true}';
    venue.script('F6', { status: 200, body: full.slice(0, 30) });
    const e = await caught(client.futures.placeBatch(PLACE));
    expect(e).toMatchObject({ category: 'bad-response', outcomeUnknown: true });
  });

  it('40008 triggers a clock resync from the server-time endpoint, then the GET succeeds', async () => {
    venue.script('F3', { status: 400, body: envelopeError('40008', 'Request timestamp expired') });
    await client.futures.accounts();
    expect(venue.calls('F0')).toHaveLength(1);
    expect(venue.calls('F3')).toHaveLength(2);
  });
});

describe('429 and the cool-off', () => {
  it('a 429 shuts the surface for the cool-off: no request is sent inside it', async () => {
    const cooloffMs = 400;
    const c = clientFor(venue, {
      rateLimit: {
        spot: { ip: { budget: 100_000, windowMs: 10_000 }, uid: { budget: 100_000, windowMs: 10_000 } },
        futures: { ip: { budget: 2000, windowMs: 1000 }, uid: { budget: 2000, windowMs: 1000 } },
        orderRequests: { budget: 1000, windowMs: 1000 },
        usableFraction: 1,
        cooloffMs,
      },
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    venue.script('F5', { status: 429, body: envelopeError('429', 'Too many requests') });
    const e = await caught(c.futures.currentOrders({}));
    expect(e).toMatchObject({ category: 'rate-limit', httpStatus: 429, retryable: true, outcomeUnknown: false });
    const hitAt = venue.calls('F5')[0]!.arrivedAt;
    await c.futures.currentOrders({});
    await c.futures.tickers();
    const after = venue.requests.filter((r) => r.arrivedAt > hitAt);
    expect(after.length).toBe(2);
    for (const r of after) expect(r.arrivedAt - hitAt).toBeGreaterThanOrEqual(cooloffMs - 20);
    await c.close();
  });
});

describe('response validation names endpoint and field', () => {
  it('a number where a decimal string belongs', async () => {
    const bad = { status: 200, body: '[{"symbol":"cmt_btcusdt","last":90755.3,"best_ask":"1","best_bid":"1","timestamp":"1"}]' };
    venue.script('F2', bad, bad, bad);
    const e = await caught(client.futures.tickers());
    expect(venue.calls('F2')).toHaveLength(3);
    expect(e).toMatchObject({ category: 'bad-response', endpoint: 'F2', field: '[0].last' });
  });

  it('exponent notation, NaN and spaces are refused', async () => {
    for (const bad of ['1e-7', 'NaN', ' 1.0', 'Infinity']) {
      const reply = {
        status: 200,
        body: `{"code":"00000","msg":"success","requestTime":1,"data":[{"coinName":"BTC","available":"${bad}","frozen":"0","equity":"1"}]}`,
      };
      venue.script('S8', reply, reply, reply);
      const e = await caught(client.spot.assets());
      expect(e.field).toBe('data[0].available');
      expect(e.message).toContain(JSON.stringify(bad));
    }
  });

  it('a missing required field inside the spot envelope', async () => {
    venue.script('S6', { status: 200, body: '{"code":"00000","msg":"success","requestTime":1,"data":{"resultList":[{"clientOrderId":"a"}]}}' });
    const e = await caught(
      client.spot.placeBatch({ symbol: 'X_SPBL', orderList: [{ side: 'buy', orderType: 'market', force: 'normal', quantity: '1', clientOrderId: 'a' }] }),
    );
    expect(e).toMatchObject({ endpoint: 'S6', field: 'data.resultList[0].orderId', outcomeUnknown: true });
  });

  it('a spot answer without the envelope, an empty 200 body, data null', async () => {
    venue.script('S7', { status: 200, body: '[]' }, { status: 200, body: '[]' }, { status: 200, body: '[]' });
    expect((await caught(client.spot.exchangeInfo())).message).toMatch(/spot envelope/);
    venue.script('S5', { status: 200, body: '' });
    expect((await caught(client.spot.cancelSymbol({ symbol: 'X_SPBL' }))).message).toMatch(/empty body/);
    venue.script('S5', { status: 200, body: '{"code":"00000","msg":"success","requestTime":1,"data":null}' });
    expect((await caught(client.spot.cancelSymbol({ symbol: 'X_SPBL' }))).field).toBe('data');
  });

  it('an integer id that lost precision as a double is refused, the exact raw number accepted', async () => {
    venue.script('F5', {
      status: 200,
      body: '[{"symbol":"s","size":"1","createTime":1,"filled_qty":"0","order_id":9007199254740993,"price":"1","status":"open","type":"open_long","order_type":"normal"}]',
    });
    const rows = await client.futures.currentOrders({});
    expect(String(rows[0]!.order_id)).toBe('9007199254740993');
  });
});

describe('requests checked before sending', () => {
  it('refuses oversize batches, bad client ids and page sizes without touching the network', async () => {
    const before = venue.requests.length;
    const many = Array.from({ length: 21 }, (_, i) => ({ ...PLACE.orderDataList[0]!, client_oid: `sx_${i}` }));
    await expect(client.futures.placeBatch({ symbol: 'cmt_btcusdt', orderDataList: many })).rejects.toThrow(/at most 20/);
    await expect(client.futures.placeBatch({ symbol: 'cmt_btcusdt', orderDataList: [{ ...PLACE.orderDataList[0]!, client_oid: 'has-dash' }] })).rejects.toThrow(
      /client id/,
    );
    await expect(
      client.futures.placeBatch({ symbol: 'cmt_btcusdt', orderDataList: [{ ...PLACE.orderDataList[0]!, client_oid: 'x'.repeat(41) }] }),
    ).rejects.toThrow(/client id/);
    await expect(client.spot.orderHistory({ symbol: 'X_SPBL', pageSize: 101 })).rejects.toThrow(/pageSize/);
    await expect(client.spot.cancelBatch({ symbol: 'X_SPBL', orderIds: Array.from({ length: 51 }, (_, i) => String(i)) })).rejects.toThrow(/at most 50/);
    await expect(client.spot.orderInfo({})).rejects.toThrow(/required/);
    expect(venue.requests.length).toBe(before);
  });

  it('a signed endpoint without credentials fails locally', async () => {
    const c = clientFor(venue, { credentials: undefined });
    await expect(c.futures.accounts()).rejects.toMatchObject({ category: 'auth', outcomeUnknown: false });
    expect(venue.calls('F3')).toHaveLength(0);
    await expect(c.futures.tickers()).resolves.toHaveLength(2);
    await c.close();
  });
});

describe('writes only while the account lease is held', () => {
  it('a write asked for once the lease is gone is refused unsent; reads go on', async () => {
    let held = true;
    await client.close();
    client = clientFor(venue, { writesAllowed: () => held });
    await client.futures.placeBatch(PLACE);
    held = false;
    const refused = (err: unknown) => {
      const e = err as { category: string; outcomeUnknown: boolean; message: string };
      return { category: e.category, outcomeUnknown: e.outcomeUnknown, message: e.message };
    };
    const want = { category: 'permission', outcomeUnknown: false, message: 'not sent: this daemon no longer holds the account lease' };
    expect(await client.futures.placeBatch(PLACE).then(() => 'sent', refused)).toEqual(want);
    expect(await client.futures.cancelBatch({ symbol: 'cmt_btcusdt', ids: ['1'] }).then(() => 'sent', refused)).toEqual(want);
    await client.futures.currentOrders({});
    expect(venue.requests.map((r) => r.id)).toEqual(['F6', 'F5']);
  });
});
