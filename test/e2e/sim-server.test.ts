// The simulator's HTTP face as the venue: authentication codes, weight budgets and 429s, fault injection,
// read-after-write lag, web pages refused, and the `sextant sim` process (log line, SIGTERM).
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import { VENUE_BUDGET, type VenueBudget } from '../../src/domain/venue-budget.js';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { ManualClock, systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { clientFor } from '../fixtures/live-client.js';
import { startSimProcess } from '../fixtures/cli.js';
import { rawRequest } from '../fixtures/raw-http.js';

const CREDS = { apiKey: 'k-sim', apiSecret: 's-sim', passphrase: 'p-sim' };
const ACCOUNTS = { spot: { USDT: '100000', BTC: '1' }, futuresCollateral: '100000', leverage: 20 };
const BIG: VenueBudget = { spot: { ip: 1e9, uid: 1e9 }, futures: { ip: 1e9, uid: 1e9 }, windowMs: 10_000, orderRequestsPerSecond: 1e9 };

let server: SimServer | undefined;
let client: LiveClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function start(budget: VenueBudget = BIG, seed = 3): Promise<{ server: SimServer; url: string }> {
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed, startMs: systemClock.now(), tickIntervalMs: 50 });
  server = new SimServer({ market, accounts: ACCOUNTS, credentials: CREDS, budget, clock: systemClock, logger: silentLogger });
  const url = await server.listen(0, '127.0.0.1');
  return { server, url };
}

/**
 * Weight charged so far to a pool (`spot:ip`, `futures:uid` ...), every address or account: the change across a
 * request is its charge, whatever window boundary falls between the two readings.
 */
function spent(s: SimServer, pool: string): number {
  return Object.entries(s.snapshot().windows)
    .filter(([name]) => name.startsWith(`${pool}@`))
    .reduce((sum, [, w]) => sum + w.spent, 0);
}

function connect(url: string, over: Parameters<typeof clientFor>[1] = {}): LiveClient {
  client = clientFor({ url, opts: CREDS } as never, { timeoutMs: 500, ...over });
  return client;
}

async function raw(url: string, path: string, headers: Record<string, string>, method = 'GET', body?: string) {
  const res = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  return { status: res.status, body: (await res.json()) as { code: string; msg: string } };
}

function signed(ts: string, method: string, path: string, body = '', secret = CREDS.apiSecret) {
  return {
    'ACCESS-KEY': CREDS.apiKey,
    'ACCESS-PASSPHRASE': CREDS.passphrase,
    'ACCESS-TIMESTAMP': ts,
    'Content-Type': 'application/json',
    'ACCESS-SIGN': createHmac('sha256', secret).update(`${ts}${method}${path}${body}`).digest('base64'),
  };
}

describe('authentication like the venue', () => {
  it('answers each failure with its code in the error envelope', async () => {
    const { url } = await start();
    const ts = String(Date.now());
    const path = '/api/v2/account/assets';
    const all = signed(ts, 'GET', path);
    const without = (h: string) => Object.fromEntries(Object.entries(all).filter(([k]) => k !== h));
    const cases: Array<[Record<string, string>, string]> = [
      [without('ACCESS-KEY'), '40001'],
      [without('ACCESS-SIGN'), '40002'],
      [without('ACCESS-TIMESTAMP'), '40003'],
      [without('ACCESS-PASSPHRASE'), '40011'],
      [{ ...all, 'Content-Type': 'text/plain' }, '40007'],
      [{ ...all, 'ACCESS-KEY': 'nope' }, '40006'],
      [{ ...all, 'ACCESS-PASSPHRASE': 'nope' }, '40012'],
      [signed(String(Date.now() - 31_000), 'GET', path), '40008'],
      [signed(ts, 'GET', path, '', 'wrong-secret'), '40009'],
      [{ ...all, 'ACCESS-TIMESTAMP': 'soon' }, '40005'],
    ];
    for (const [headers, code] of cases) {
      const r = await raw(url, path, headers);
      expect({ code, got: r.body.code, status: r.status }).toEqual({ code, got: code, status: 400 });
    }
    expect((await raw(url, path, all)).body.code).toBe('00000');
    expect((await raw(url, '/capi/v2/market/tickers', {})).status).toBe(200);
    expect((await raw(url, '/capi/v2/nope', {})).status).toBe(404);
  });
});

describe('web pages', () => {
  it('a Host it does not serve (DNS rebinding) is refused on every path; a request with an Origin or cross-site fetch metadata too; nothing changes', async () => {
    const { server: sim, url } = await start();
    const port = Number(new URL(url).port);
    const shift = JSON.stringify({ symbol: 'BTCUSDT_SPBL', shiftTicks: 500 });
    const before = (await rawRequest(port, 'GET', '/sim/state', {})).body;
    for (const [headers, status] of [
      [{ host: `attacker.example:${port}` }, 421],
      [{ host: 'localhost.attacker.example' }, 421],
      [{ origin: 'http://attacker.example' }, 403],
      [{ origin: 'null' }, 403],
      [{ 'sec-fetch-site': 'cross-site' }, 403],
      [{ 'sec-fetch-site': 'same-site' }, 403],
    ] as Array<[Record<string, string>, number]>) {
      for (const [method, path, body] of [
        ['POST', '/sim/market', shift],
        ['POST', '/sim/faults', '{"storm429Ms":60000}'],
        ['GET', '/sim/state', undefined],
        ['GET', '/capi/v2/market/ticker?symbol=cmt_btcusdt', undefined],
      ] as const) {
        const r = await rawRequest(port, method, path, headers, body);
        expect({ headers, path, status: r.status }).toEqual({ headers, path, status });
      }
    }
    expect(sim.snapshot().requests).toEqual({});
    expect((await rawRequest(port, 'GET', '/sim/state', {})).body).toBe(before);
    // Its own clients (no Origin; loopback's names) are served.
    expect((await rawRequest(port, 'GET', '/capi/v2/market/ticker?symbol=cmt_btcusdt', { host: `localhost:${port}` })).status).toBe(200);
  });
});

describe('weight budgets', () => {
  it('answers 429 with the error body once a window is spent, and counts it', async () => {
    const { server: s, url } = await start({ ...VENUE_BUDGET, futures: { ip: 100, uid: 1000 }, windowMs: 1e13 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push((await raw(url, '/capi/v2/market/tickers', {})).status); // 40 IP each
    expect(results).toEqual([200, 200, 429, 429]);
    const bad = await raw(url, '/capi/v2/market/tickers', {});
    expect(bad.body).toMatchObject({ code: '429', msg: 'Too many requests' });
    const stats = s.snapshot();
    expect(stats.rejected429).toBe(3);
    expect(stats.windows['futures:ip@127.0.0.1']!.budget).toBe(100);
  });

  it("measures a request's charge exactly across a window boundary: the window's count restarts (1 - 9 = -8), the total does not", async () => {
    // The simulator's clock 1 ms before a boundary of its 10 s windows.
    const clock = new ManualClock(Math.ceil(Date.now() / 10_000) * 10_000 - 1);
    const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 3, startMs: clock.now(), tickIntervalMs: 50 });
    const s = (server = new SimServer({ market, accounts: ACCOUNTS, credentials: CREDS, budget: BIG, clock, logger: silentLogger }));
    const url = await s.listen(0, '127.0.0.1');
    const ticker = () => raw(url, '/api/v2/market/ticker?symbol=BTCUSDT_SPBL', {}); // S11: 1 IP
    const read = () => ({ used: s.snapshot().windows['spot:ip@127.0.0.1']!.used, spent: spent(s, 'spot:ip') });
    for (let i = 0; i < 9; i++) expect((await ticker()).status).toBe(200);
    const before = read();
    clock.advance(1);
    await ticker();
    const after = read();
    expect(before).toEqual({ used: 9, spent: 9 });
    // The count of the new window less that of the old one: what the weight tests once measured.
    expect(after.used - before.used).toBe(-8);
    expect(after.spent - before.spent).toBe(1);
  });

  it('caps order endpoints at 10 requests per second', async () => {
    const { server: s, url } = await start({ ...VENUE_BUDGET, spot: { ip: 1e6, uid: 1e6 } });
    const path = '/api/v2/trade/cancel-symbol-order';
    const body = '{"symbol":"BTCUSDT_SPBL"}';
    // 30 at once, past our own limiter: at most two one-second windows, so at least 10 are over the cap.
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () => raw(url, path, signed(String(Date.now()), 'POST', path, body), 'POST', body).then((r) => r.status)),
    );
    expect(statuses.filter((x) => x === 429).length).toBeGreaterThanOrEqual(10);
    expect(statuses.filter((x) => x === 200).length).toBeLessThanOrEqual(20);
    expect(s.snapshot().rejected429).toBe(statuses.filter((x) => x === 429).length);
  });

  it("our own limiter keeps a flood under the simulator's budget: zero 429s", async () => {
    const { server: s, url } = await start({ ...VENUE_BUDGET, futures: { ip: 300, uid: 300 }, windowMs: 1000 });
    const c = connect(url, {
      rateLimit: {
        spot: { ip: { budget: 500, windowMs: 1000 }, uid: { budget: 500, windowMs: 1000 } },
        futures: { ip: { budget: 300, windowMs: 1000 }, uid: { budget: 300, windowMs: 1000 } },
        orderRequests: { budget: 10, windowMs: 1000 },
        usableFraction: 0.9,
        cooloffMs: 1000,
      },
    });
    await Promise.all([...Array.from({ length: 10 }, () => c.tickers()), ...Array.from({ length: 60 }, () => c.openOrders('futures'))]);
    expect(s.snapshot().rejected429).toBe(0);
    expect(s.snapshot().requests.F2).toBe(10);
  });
});

describe('fault injection', () => {
  const FUT = 'cmt_btcusdt';
  const order = (oid: string) => ({
    clientOid: oid,
    side: 'buy' as const,
    kind: 'limit' as const,
    timeInForce: 'gtc' as const,
    price: Decimal.from('88000'),
    size: Decimal.from('0.01'),
    positionSide: 'long' as const,
  });

  it('accept-then-500: the order exists although the answer was a 500 (outcome unknown, found by client id)', async () => {
    const { server: s, url } = await start();
    const c = connect(url);
    s.faults.scripted.push({ endpoint: 'F6', kind: 'accept-then-500' });
    const [r] = await c.placeOrders('futures', FUT, [order('f_500')]);
    expect(r!.outcome).toBe('unknown');
    expect((await c.order('futures', FUT, { clientOid: 'f_500' }))!.status).toBe('open');
  });

  it('accept-then-drop and timeout: unknown outcome, the order is there', async () => {
    const { server: s, url } = await start();
    const c = connect(url);
    s.faults.scripted.push({ endpoint: 'F6', kind: 'accept-then-drop' }, { endpoint: 'F6', kind: 'timeout', ms: 1000 });
    const [a] = await c.placeOrders('futures', FUT, [order('f_drop')]);
    const [b] = await c.placeOrders('futures', FUT, [order('f_slow')]);
    expect([a!.outcome, b!.outcome]).toEqual(['unknown', 'unknown']);
    const open = (await c.openOrders('futures', FUT)).map((o) => o.clientOid);
    expect(open).toEqual(expect.arrayContaining(['f_drop', 'f_slow']));
  });

  it('html-502 (not processed), truncated JSON (processed), 429 storm', async () => {
    const { server: s, url } = await start();
    const c = connect(url, { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    s.faults.scripted.push({ endpoint: 'F6', kind: 'html-502' }, { endpoint: 'F6', kind: 'truncated-json' });
    const [a] = await c.placeOrders('futures', FUT, [order('f_502')]);
    const [b] = await c.placeOrders('futures', FUT, [order('f_trunc')]);
    expect(a!.outcome).toBe('unknown');
    expect('error' in a! && a.error.message).toMatch(/HTML page/);
    expect(b!.outcome).toBe('unknown');
    const open = (await c.openOrders('futures', FUT)).map((o) => o.clientOid);
    expect(open).toContain('f_trunc');
    expect(open).not.toContain('f_502');
    s.faults.storm429UntilMs = Date.now() + 60_000;
    await expect(c.tickers()).rejects.toMatchObject({ category: 'rate-limit' });
  });

  it('read-after-write lag: an accepted order is invisible for a while, then appears', async () => {
    const { server: s, url } = await start();
    const c = connect(url);
    s.faults.visibilityLagMs = 300;
    accepted((await c.placeOrders('futures', FUT, [order('f_lag')]))[0]!);
    expect(await c.order('futures', FUT, { clientOid: 'f_lag' })).toBeNull();
    await new Promise((r) => setTimeout(r, 400));
    expect(await c.order('futures', FUT, { clientOid: 'f_lag' })).not.toBeNull();
  });

  it('clock skew: the venue clock runs ahead; the client resyncs and goes on', async () => {
    const { server: s, url } = await start();
    s.faults.clockSkewMs = 40_000;
    const c = connect(url);
    expect((await c.balances('spot')).length).toBeGreaterThan(0);
    expect(Math.abs(c.rest.clockOffsetMs - 40_000)).toBeLessThan(2000);
  });

  it('added latency and faults scripted over HTTP (/sim/faults)', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/sim/faults`, {
      method: 'POST',
      body: JSON.stringify({ latencyMs: 150, script: [{ endpoint: 'F2', kind: 'html-502', times: 2 }] }),
    });
    expect(res.status).toBe(200);
    const c = connect(url, { timeoutMs: 2000 });
    const t0 = Date.now();
    await c.tickers(); // two 502s, then the answer (GET retries)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(3 * 150);
    const stats = (await (await fetch(`${url}/sim/stats`)).json()) as { requests: Record<string, number> };
    expect(stats.requests.F2).toBe(3);
  });
});

function accepted(r: { outcome: string }): void {
  expect(r.outcome).toBe('accepted');
}

describe('order state endpoints: S15, F18, F19, F20', () => {
  const FUT = 'cmt_btcusdt';
  const SPOT = 'BTCUSDT_SPBL';
  const d = (x: string) => Decimal.from(x);
  const limitLong = (oid: string) => ({
    clientOid: oid,
    side: 'buy' as const,
    kind: 'limit' as const,
    timeInForce: 'gtc' as const,
    price: Decimal.from('88000'),
    size: Decimal.from('0.01'),
    positionSide: 'long' as const,
  });
  /** A spot buy resting 2 % under the last trade. */
  async function spotBuy(c: LiveClient, oid: string) {
    const last = (await c.recentTrades(SPOT, 1))[0]!.price;
    return {
      clientOid: oid,
      side: 'buy' as const,
      kind: 'limit' as const,
      timeInForce: 'gtc' as const,
      price: last.mul(d('0.98')).roundToStep(d('0.1'), 'down'),
      size: d('0.001'),
    };
  }

  async function signedGet(url: string, path: string, query: string) {
    const ts = String(Date.now());
    const res = await fetch(`${url}${path}?${query}`, { headers: signed(ts, 'GET', `${path}?${query}`) });
    return { status: res.status, text: await res.text() };
  }

  it("charge the venue's weights: S15 3/3, F18 2/2, F19 10/10, F20 5/5", async () => {
    const { server: s, url } = await start();
    const c = connect(url);
    const cases: Array<[() => Promise<unknown>, string, number]> = [
      [() => c.spot.openOrders({ symbol: SPOT }), 'spot', 3],
      [() => c.futures.orderDetail({ orderId: '1' }).catch(() => undefined), 'futures', 2],
      [() => c.futures.orderHistory({ symbol: FUT }), 'futures', 10],
      [() => c.futures.fills({ symbol: FUT }), 'futures', 5],
    ];
    for (const [call, surface, w] of cases) {
      const [ip, uid] = [spent(s, `${surface}:ip`), spent(s, `${surface}:uid`)];
      await call();
      expect([spent(s, `${surface}:ip`) - ip, spent(s, `${surface}:uid`) - uid]).toEqual([w, w]);
    }
  });

  it("F18 for an unknown id answers the venue's 50005 in the error envelope; the client says null", async () => {
    const { url } = await start();
    const r = await signedGet(url, '/capi/v2/order/detail', 'orderId=600000000000999999');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ code: '50005', msg: 'Order does not exist', data: null });
    expect(await connect(url).order('futures', FUT, { orderId: '600000000000999999' })).toBeNull();
  });

  it('F20 sends tradeId and orderId as raw JSON numbers beyond 2^53, sides and maker/taker in upper case', async () => {
    const { url } = await start();
    const c = connect(url);
    const [r] = await c.placeOrders('futures', FUT, [
      { clientOid: 'f20_raw', side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('0.01'), positionSide: 'long' },
    ]);
    accepted(r!);
    const { status, text } = await signedGet(url, '/capi/v2/order/fills', `symbol=${FUT}&limit=100`);
    expect(status).toBe(200);
    expect(text).toMatch(/"tradeId":8\d{17},"orderId":6\d{17},/);
    const open = JSON.parse(text) as { nextFlag: boolean; list: Array<Record<string, unknown>> };
    expect(open).toMatchObject({
      nextFlag: false,
      list: [
        { symbol: FUT, positionSide: 'LONG', orderSide: 'BUY', direction: 'TAKER', legacyOrdeDirection: 'OPEN_LONG', marginMode: 'SHARED', liquidateFee: '0' },
      ],
    });
    // realizePnl only on closing fills.
    expect(open.list[0]!.realizePnl).toBeUndefined();
    accepted(
      (
        await c.placeOrders('futures', FUT, [
          { clientOid: 'f20_close', side: 'sell', kind: 'market', timeInForce: 'ioc', size: d('0.01'), positionSide: 'long', reduceOnly: true },
        ])
      )[0]!,
    );
    const closed = JSON.parse((await signedGet(url, '/capi/v2/order/fills', `symbol=${FUT}&limit=1`)).text) as {
      nextFlag: boolean;
      totals: number;
      list: Array<Record<string, unknown>>;
    };
    expect(closed).toMatchObject({ nextFlag: true, list: [{ orderSide: 'SELL', positionSide: 'LONG', legacyOrdeDirection: 'CLOSE_LONG' }] });
    expect(closed.list[0]!.realizePnl).toMatch(/^-?\d+(\.\d+)?$/);
  });

  it('a filled and a canceled futures order are found in any state, by id (F18) and by client id (F5 then F19)', async () => {
    const { server: s, url } = await start();
    const c = connect(url);
    const [m] = await c.placeOrders('futures', FUT, [
      { clientOid: 'any_mkt', side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('0.01'), positionSide: 'long' },
    ]);
    const [l] = await c.placeOrders('futures', FUT, [limitLong('any_lim')]);
    const lid = (l as { orderId: string }).orderId;
    accepted((await c.cancelOrders('futures', FUT, { orderIds: [lid] }))[0]!);
    const filled = (await c.order('futures', FUT, { clientOid: 'any_mkt', createdAfterMs: Date.now() - 60_000 }))!;
    expect(filled).toMatchObject({ orderId: (m as { orderId: string }).orderId, status: 'filled', kind: 'market', price: null });
    expect(filled.filledSize.eq(d('0.01'))).toBe(true);
    expect(filled.avgFillPrice).not.toBeNull();
    expect(filled.fee!.gt(Decimal.ZERO)).toBe(true);
    expect(await c.order('futures', FUT, { orderId: lid })).toMatchObject({ status: 'canceled', clientOid: 'any_lim' });
    expect(await c.order('futures', FUT, { clientOid: 'any_lim' })).toMatchObject({ orderId: lid, status: 'canceled' });
    expect(s.snapshot().requests.F19).toBe(2);
    const fills = await c.fills('futures', FUT, filled.orderId);
    expect(fills.reduce((a, f) => a.add(f.size), Decimal.ZERO).eq(filled.filledSize)).toBe(true);
  });

  it('read-after-write lag: S15, F18, F19 and F20 do not show an accepted order (nor its fills) for a while', async () => {
    const { server: s, url } = await start();
    const c = connect(url);
    s.faults.visibilityLagMs = 400;
    const [sr] = await c.placeOrders('spot', SPOT, [await spotBuy(c, 'lag_spot')]);
    accepted(sr!);
    const sid = sr as { orderId: string };
    const [m] = await c.placeOrders('futures', FUT, [
      { clientOid: 'lag_mkt', side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('0.01'), positionSide: 'long' },
    ]);
    const mid = (m as { orderId: string }).orderId;
    expect((await c.openOrders('spot', SPOT)).map((o) => o.orderId)).not.toContain(sid.orderId);
    expect(await c.order('futures', FUT, { orderId: mid })).toBeNull();
    expect(await c.order('futures', FUT, { clientOid: 'lag_mkt' })).toBeNull();
    expect(await c.fills('futures', FUT, mid)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect((await c.openOrders('spot', SPOT)).map((o) => o.orderId)).toContain(sid.orderId);
    expect(await c.order('futures', FUT, { orderId: mid })).toMatchObject({ status: 'filled' });
    expect(await c.order('futures', FUT, { clientOid: 'lag_mkt' })).toMatchObject({ orderId: mid });
    expect((await c.fills('futures', FUT, mid)).length).toBeGreaterThan(0);
  });

  it('S15 pages by pageNo and limit; nextPage and totals are null as the venue sends them', async () => {
    const { url } = await start();
    const c = connect(url);
    const reqs = await Promise.all(Array.from({ length: 5 }, (_, i) => spotBuy(c, `pg_${i}`)));
    (await c.placeOrders('spot', SPOT, reqs)).forEach(accepted);
    const p0 = await c.spot.openOrders({ symbol: SPOT, limit: 2, pageNo: 0 });
    const p2 = await c.spot.openOrders({ symbol: SPOT, limit: 2, pageNo: 2 });
    expect(p0.orderInfoResultList.map((o) => o.clientOrderId)).toEqual(['pg_0', 'pg_1']);
    expect(p2.orderInfoResultList.map((o) => o.clientOrderId)).toEqual(['pg_4']);
    expect([p0.nextPage, p0.totals]).toEqual([null, null]);
    expect((await c.openOrders('spot', SPOT)).map((o) => o.clientOid)).toEqual(reqs.map((r) => r.clientOid));
  });
});

describe('determinism', () => {
  it('two servers with the same seed serve the same market', async () => {
    const a = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 99, startMs: 0, tickIntervalMs: 10 });
    const b = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 99, startMs: 0, tickIntervalMs: 10 });
    const c2 = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 100, startMs: 0, tickIntervalMs: 10 });
    const tape = (m: SyntheticMarket) => {
      const out: string[] = [];
      m.advanceTo(20_000, (s) => out.push(`${s.spec.symbol} ${s.ts} ${s.bid} ${s.ask} ${s.last} ${s.tradeSize} ${s.topSize}`));
      return out.join('\n');
    };
    const ta = tape(a);
    expect(tape(b)).toBe(ta);
    expect(tape(c2)).not.toBe(ta);
  });
});

describe('sextant sim, the process', () => {
  it('prints one JSON line with its URL when listening, serves, and stops cleanly on SIGTERM', async () => {
    const sim = await startSimProcess();
    const log = JSON.parse(sim.line) as { url: string; seed: number; level: string };
    expect(log).toMatchObject({ level: 'info', seed: 5 });
    const res = await fetch(`${log.url}/api/v2/public/exchangeInfo`);
    expect(((await res.json()) as { data: unknown[] }).data.length).toBe(3);
    expect(await sim.stop()).toBe(0);
  });
});

describe('market data and trigger-order endpoints beyond the interface', () => {
  const FUT = 'cmt_btcusdt';
  const SPOT = 'BTCUSDT_SPBL';

  async function get(url: string, path: string, query: string, auth = false) {
    const full = query ? `${path}?${query}` : path;
    const res = await fetch(`${url}${full}`, auth ? { headers: signed(String(Date.now()), 'GET', full) } : {});
    return { status: res.status, text: await res.text() };
  }

  it("charge the venue's weights: S10, S11, S13 1; F10, F12–F15, F17 1; F11 and F16 5; F21 3/3; F22 5/10", async () => {
    const { server: s, url } = await start();
    const c = connect(url);
    const cases: Array<[() => Promise<unknown>, string, number, number]> = [
      [() => c.spot.candles({ symbol: SPOT, period: '1m' }), 'spot', 1, 0],
      [() => c.spot.ticker({ symbol: SPOT }), 'spot', 1, 0],
      [() => c.spot.depth({ symbol: SPOT }), 'spot', 1, 0],
      [() => c.futures.candles({ symbol: FUT, granularity: '1m' }), 'futures', 1, 0],
      [() => c.futures.historyCandles({ symbol: FUT, granularity: '1m' }), 'futures', 5, 0],
      [() => c.futures.ticker({ symbol: FUT }), 'futures', 1, 0],
      [() => c.futures.depth({ symbol: FUT }), 'futures', 1, 0],
      [() => c.futures.currentFundRate(), 'futures', 1, 0],
      [() => c.futures.fundingTime({ symbol: FUT }), 'futures', 1, 0],
      [() => c.futures.historyFundRate({ symbol: FUT }), 'futures', 5, 0],
      [() => c.futures.index({ symbol: FUT }), 'futures', 1, 0],
      [() => c.futures.currentPlan({}), 'futures', 3, 3],
      [() => c.futures.historyPlan({ symbol: FUT }), 'futures', 5, 10],
    ];
    for (const [call, surface, ip, uid] of cases) {
      const before = [spent(s, `${surface}:ip`), spent(s, `${surface}:uid`)];
      await call();
      expect([spent(s, `${surface}:ip`) - before[0]!, spent(s, `${surface}:uid`) - before[1]!]).toEqual([ip, uid]);
    }
  });

  it('candle rows as the venue sends them: spot [0] a JSON number in the envelope, futures seven strings bare; newest first, the forming one first', async () => {
    const { url } = await start();
    const spot = JSON.parse((await get(url, '/api/v2/market/candles', `symbol=${SPOT}&period=1m`)).text) as { code: string; data: unknown[][] };
    expect(spot.code).toBe('00000');
    // The simulator serves the latest 300 rows, about what the venue was seen to serve.
    expect(spot.data).toHaveLength(300);
    expect(typeof spot.data[0]![0]).toBe('number');
    expect(spot.data[0]!.slice(1).every((v) => typeof v === 'string')).toBe(true);
    expect((spot.data[0]![0] as number) - (spot.data[1]![0] as number)).toBe(60_000);
    const fut = JSON.parse((await get(url, '/capi/v2/market/candles', `symbol=${FUT}&granularity=5m&limit=1000`)).text) as string[][];
    expect(fut).toHaveLength(1000);
    expect(fut[0]!.every((v) => typeof v === 'string') && fut[0]!.length === 7).toBe(true);
    expect(Number(fut[0]![0]) - Number(fut[1]![0])).toBe(300_000);
    expect(Number(fut[0]![0])).toBeLessThanOrEqual(Date.now());
    expect(Number(fut[0]![0])).toBeGreaterThan(Date.now() - 300_000);
  });

  it("F11 reads both bounds (the measured behaviour) by default; the docs' reading, endTime first, as an option", async () => {
    const at = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 24 * 3_600_000;
    const query = `symbol=${FUT}&granularity=1m&startTime=${at}&endTime=${at + 30 * 60_000}&limit=100`;
    const opens = (text: string) => (JSON.parse(text) as string[][]).map((r) => (Number(r[0]) - at) / 60_000);
    const { url } = await start();
    expect(opens((await get(url, '/capi/v2/market/historyCandles', query)).text)).toEqual(Array.from({ length: 31 }, (_, k) => 30 - k));
    // endTime alone has no effect: the latest rows.
    const latest = opens((await get(url, '/capi/v2/market/historyCandles', `symbol=${FUT}&granularity=1m&endTime=${at}`)).text);
    expect(latest).toHaveLength(100);
    expect(latest[0]).toBeGreaterThan(10 * 24 * 60 - 2);
    await server!.close();
    const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 3, startMs: systemClock.now(), tickIntervalMs: 50 });
    server = new SimServer({
      market,
      accounts: ACCOUNTS,
      credentials: CREDS,
      budget: BIG,
      clock: systemClock,
      logger: silentLogger,
      f11Reading: 'end-time-first',
    });
    const docs = await server.listen(0, '127.0.0.1');
    expect(opens((await get(docs, '/capi/v2/market/historyCandles', query)).text)).toEqual(Array.from({ length: 100 }, (_, k) => 30 - k));
  });

  it('the seeded past is a function of the seed and the start: two servers alike serve the same history', async () => {
    const startMs = Date.now();
    const hour = Math.floor(startMs / 3_600_000) * 3_600_000;
    const serve = async (seed: number) => {
      const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed, startMs, tickIntervalMs: 50 });
      const s = new SimServer({ market, accounts: ACCOUNTS, credentials: CREDS, budget: BIG, clock: systemClock, logger: silentLogger });
      const url = await s.listen(0, '127.0.0.1');
      const text = (
        await get(url, '/capi/v2/market/historyCandles', `symbol=${FUT}&granularity=1h&startTime=${hour - 48 * 3_600_000}&endTime=${hour - 3_600_000}`)
      ).text;
      await s.close();
      return text;
    };
    const a = await serve(9);
    expect(JSON.parse(a)).toHaveLength(48);
    expect(await serve(9)).toBe(a);
    expect(await serve(10)).not.toBe(a);
  });

  it("depth: the top of the book, 15 or 200 levels; any other limit, a bad period or price type is the venue's parameter error", async () => {
    const { url } = await start();
    const book = JSON.parse((await get(url, '/capi/v2/market/depth', `symbol=${FUT}&limit=200`)).text) as {
      asks: string[][];
      bids: string[][];
      timestamp: string;
    };
    expect([book.asks.length, book.bids.length]).toEqual([200, 200]);
    expect(Number(book.bids[0]![0])).toBeLessThan(Number(book.asks[0]![0]));
    expect(book.timestamp).toMatch(/^\d{13}$/);
    const refused = async (path: string, query: string) => {
      const r = await get(url, path, query);
      return [r.status, (JSON.parse(r.text) as { code: string }).code];
    };
    expect(await refused('/capi/v2/market/depth', `symbol=${FUT}&limit=20`)).toEqual([400, '40020']);
    expect(await refused('/api/v2/market/depth', `symbol=${SPOT}&limit=50`)).toEqual([400, '40409']);
    expect(await refused('/capi/v2/market/candles', `symbol=${FUT}&granularity=2h`)).toEqual([400, '40020']);
    expect(await refused('/api/v2/market/candles', `symbol=${SPOT}`)).toEqual([400, '40019']);
    expect(await refused('/capi/v2/market/candles', `symbol=${FUT}&granularity=1m&priceType=FAIR`)).toEqual([400, '40020']);
    expect(await refused('/capi/v2/market/ticker', 'symbol=cmt_nothing')).toEqual([400, '40020']);
    expect(await refused('/api/v2/market/ticker', 'symbol=NOTHING_SPBL')).toEqual([400, '40102']);
  });

  it('tickers: S11 in the envelope without bid or ask; F12 the F2 item of the contract', async () => {
    const { url } = await start();
    const spot = JSON.parse((await get(url, '/api/v2/market/ticker', `symbol=${SPOT}`)).text) as { data: Record<string, unknown> };
    expect(spot.data).toMatchObject({ symbol: SPOT, markPrice: '0', indexPrice: '0', openInterest: '0' });
    expect(spot.data).not.toHaveProperty('best_bid');
    expect(typeof spot.data.trades).toBe('number');
    expect(spot.data.priceChangePercent).toMatch(/^-?\d+(\.\d{1,6})?$/);
    const f12 = JSON.parse((await get(url, '/capi/v2/market/ticker', `symbol=${FUT}`)).text) as Record<string, string>;
    expect(Object.keys(f12).sort()).toEqual([
      'base_volume',
      'best_ask',
      'best_bid',
      'high_24h',
      'indexPrice',
      'last',
      'low_24h',
      'markPrice',
      'priceChangePercent',
      'symbol',
      'timestamp',
      'volume_24h',
    ]);
    expect(f12.markPrice).toBe(f12.last);
  });

  it('funding: F14 every contract, F15 the next multiple of 480 minutes, F16 settled rates newest first', async () => {
    const { url } = await start();
    const rates = JSON.parse((await get(url, '/capi/v2/market/currentFundRate', '')).text) as Array<Record<string, unknown>>;
    expect(rates.map((r) => r.symbol)).toEqual(['cmt_btcusdt', 'cmt_ethusdt', 'cmt_solusdt']);
    expect(rates[0]).toMatchObject({ collectCycle: 480 });
    expect(rates[0]!.fundingRate).toMatch(/^-?0\.\d{1,7}$/);
    const next = (JSON.parse((await get(url, '/capi/v2/market/funding_time', `symbol=${FUT}`)).text) as { fundingTime: number }).fundingTime;
    expect(next % (480 * 60_000)).toBe(0);
    const history = JSON.parse((await get(url, '/capi/v2/market/getHistoryFundRate', `symbol=${FUT}&limit=3`)).text) as Array<{ fundingTime: number }>;
    expect(history.map((h) => next - h.fundingTime)).toEqual([1, 2, 3].map((k) => k * 480 * 60_000));
    const index = JSON.parse((await get(url, '/capi/v2/market/index', `symbol=${FUT}&priceType=MARK`)).text) as Record<string, string>;
    expect(index.timestamp).toMatch(/^\d{13}$/);
  });

  it('F21 / F22 records: digits for status, type and order_type; order ids beyond 2^53; read-after-write lag applies', async () => {
    const { server: s, url } = await start();
    const c = connect(url);
    const last = (await c.ticker(FUT)).last!;
    const r = await c.placeTrigger({
      symbol: FUT,
      clientOid: 'trg_wire',
      positionSide: 'short',
      reduceOnly: true,
      size: Decimal.from('0.01'),
      triggerPrice: last.mul(Decimal.from('0.9')).roundToStep(Decimal.from('0.1'), 'down'),
      executePrice: last.mul(Decimal.from('0.9')).roundToStep(Decimal.from('0.1'), 'down'),
    });
    accepted(r);
    const { text } = await get(url, '/capi/v2/order/currentPlan', `symbol=${FUT}`, true);
    const [row] = JSON.parse(text) as Array<Record<string, unknown>>;
    expect(row).toMatchObject({ client_oid: 'trg_wire', status: '0', type: '4', order_type: '0', triggerTime: '0', presetTakeProfitPrice: null });
    expect(row!.order_id).toMatch(/^6\d{17}$/);
    accepted(await c.cancelTrigger(FUT, row!.order_id as string));
    const history = JSON.parse((await get(url, '/capi/v2/order/historyPlan', `symbol=${FUT}&delegateType=4`, true)).text) as {
      list: Array<Record<string, unknown>>;
      nextPage: boolean;
    };
    expect(history).toMatchObject({ nextPage: false, list: [{ order_id: row!.order_id, status: '-1' }] });
    expect((JSON.parse((await get(url, '/capi/v2/order/historyPlan', `symbol=${FUT}&delegateType=1`, true)).text) as { list: unknown[] }).list).toEqual([]);
    s.faults.visibilityLagMs = 400;
    accepted(
      await c.placeTrigger({
        symbol: FUT,
        clientOid: 'trg_lag',
        positionSide: 'long',
        reduceOnly: false,
        size: Decimal.from('0.01'),
        triggerPrice: last.mul(Decimal.from('1.1')).roundToStep(Decimal.from('0.1'), 'up'),
      }),
    );
    expect(await c.triggerOrders(FUT)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await c.triggerOrders(FUT)).map((o) => o.clientOid)).toEqual(['trg_lag']);
  });
});
