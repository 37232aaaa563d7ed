// The simulator's HTTP face for positions and the ledger (F23–F30) as the venue: weights, exact shapes (big ids as raw
// JSON numbers, F24's envelope, F29's added fields, F30's `ctime`), refusals with the venue's codes, liquidation
// orders and fills, and funding signed on the wire both ways (exchange.fundingFeeSign), read back by the live client.
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import type { FundingFeeSign } from '../../src/exchange/wire/enums.js';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { FundingSchedule } from '../../src/exchange/sim/funding-schedule.js';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { systemClock, type Clock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { clientFor } from '../fixtures/live-client.js';
import { ScaledClock } from '../fixtures/scaled-clock.js';

const CREDS = { apiKey: 'k-act', apiSecret: 's-act', passphrase: 'p-act' };
// Weight windows are fixed and aligned to the clock; one that never rolls over keeps a boundary out of the weight deltas.
const BIG = { spot: { ip: 1e9, uid: 1e9 }, futures: { ip: 1e9, uid: 1e9 }, windowMs: 1e13, orderRequestsPerSecond: 1e9 };
const FUT = 'cmt_btcusdt';
const d = (s: string) => Decimal.from(s);

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const x of opened.splice(0).reverse()) await x.close();
});

interface Started {
  server: SimServer;
  url: string;
  clock: Clock;
  client(sign?: FundingFeeSign): LiveClient;
}

async function start(opts: { collateral?: string; sign?: FundingFeeSign; clock?: Clock } = {}): Promise<Started> {
  const clock = opts.clock ?? systemClock;
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 3, startMs: clock.now(), tickIntervalMs: 50 });
  const server = new SimServer({
    market,
    accounts: { spot: { USDT: '1000' }, futuresCollateral: opts.collateral ?? '100000', leverage: 20 },
    credentials: CREDS,
    budget: BIG,
    clock,
    logger: silentLogger,
    ...(opts.sign ? { fundingFeeSign: opts.sign } : {}),
  });
  const url = await server.listen(0, '127.0.0.1');
  opened.push(server);
  const client = (sign?: FundingFeeSign) => {
    const c = clientFor({ url, opts: CREDS } as never, { clock, ...(sign ? { fundingFeeSign: sign } : {}) });
    opened.push(c);
    return c;
  };
  return { server, url, clock, client };
}

/** A signed request straight to the simulator: its status and exact body text. */
async function call(s: Started, method: 'GET' | 'POST', path: string, payload = ''): Promise<{ status: number; text: string }> {
  const ts = String(s.clock.now());
  const target = method === 'GET' && payload ? `${path}?${payload}` : path;
  const body = method === 'POST' ? payload : '';
  const sign = createHmac('sha256', CREDS.apiSecret).update(`${ts}${method}${target}${body}`).digest('base64');
  const headers = {
    'ACCESS-KEY': CREDS.apiKey,
    'ACCESS-PASSPHRASE': CREDS.passphrase,
    'ACCESS-TIMESTAMP': ts,
    'ACCESS-SIGN': sign,
    'Content-Type': 'application/json',
  };
  const res = await fetch(`${s.url}${target}`, { method, headers, ...(method === 'POST' ? { body } : {}) });
  return { status: res.status, text: await res.text() };
}

const openLong = (size: string) => ({
  clientOid: `ol_${size.replace('.', '_')}`,
  side: 'buy' as const,
  kind: 'market' as const,
  timeInForce: 'ioc' as const,
  size: d(size),
  positionSide: 'long' as const,
});

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never happened: ${what}`);
}

describe('positions and ledger endpoints on the wire', () => {
  it("charge the venue's weights: F23–F26 2/5 2/5 2/5 2/3, F27 and F28 40/50, F29 10/15, F30 2/5", async () => {
    const s = await start();
    const c = s.client();
    const used = (k: string) =>
      Object.entries(s.server.snapshot().windows)
        .filter(([name]) => name.startsWith(`${k}@`))
        .reduce((sum, [, w]) => sum + w.used, 0);
    const cases: Array<[() => Promise<unknown>, number, number]> = [
      [() => c.placeTpSl({ symbol: FUT, clientOid: 'w_tp', role: 'take-profit', positionSide: 'long', size: d('0.01'), triggerPrice: d('99000') }), 2, 5],
      [() => c.modifyTpSl({ symbol: FUT, orderId: '1', triggerPrice: d('1') }), 2, 5],
      [() => c.placeOrder(FUT, openLong('0.01')), 2, 5],
      [() => c.cancelOrder({ orderId: '1' }), 2, 3],
      [() => c.closePositions(FUT), 40, 50],
      [() => c.cancelAllFutures('plan'), 40, 50],
      [() => c.allPositions(), 10, 15],
      [() => c.ledger({ kind: 'funding' }), 2, 5],
    ];
    for (const [run, ip, uid] of cases) {
      const before = [used('futures:ip'), used('futures:uid')];
      await run();
      expect([used('futures:ip') - before[0]!, used('futures:uid') - before[1]!]).toEqual([ip, uid]);
    }
  });

  it("F23: [{orderId, success}] with the id a raw number beyond 2^53; success false with no reason; malformed parameters the venue's 40020", async () => {
    const s = await start();
    const tp = (side: string, extra = '') =>
      `{"symbol":"${FUT}","clientOrderId":"tp_${side}","planType":"profit_plan","triggerPrice":"99000.0","executePrice":"0","size":"0.01","positionSide":"${side}","marginMode":1${extra}}`;
    expect(await call(s, 'POST', '/capi/v2/order/placeTpSlOrder', tp('long'))).toEqual({ status: 200, text: '[{"orderId":0,"success":false}]' });
    await s.client().placeOrder(FUT, openLong('0.01'));
    const ok = await call(s, 'POST', '/capi/v2/order/placeTpSlOrder', tp('long'));
    expect(ok.text).toMatch(/^\[\{"orderId":6\d{17},"success":true\}\]$/);
    const refused = async (body: string) => JSON.parse((await call(s, 'POST', '/capi/v2/order/placeTpSlOrder', body)).text) as { code: string };
    expect((await refused(tp('LONG'))).code).toBe('40020');
    expect((await refused(tp('long', ',"planType":"trail_plan"'))).code).toBe('40020');
    expect((await refused(tp('long', ',"marginMode":3'))).code).toBe('40020');
    expect((await refused(`{"symbol":"${FUT}","clientOrderId":"x","triggerPrice":"1","size":"1","positionSide":"long"}`)).code).toBe('40019');
    // The TP/SL is a close-long trigger order (type 3) in F21.
    const listed = JSON.parse((await call(s, 'GET', '/capi/v2/order/currentPlan', `symbol=${FUT}`)).text) as Array<Record<string, unknown>>;
    expect(listed).toMatchObject([{ client_oid: 'tp_long', type: '3', status: '0', triggerPrice: '99000' }]);
  });

  it('F24: the envelope with data ""; the order id a bare number; an unknown one 50005 in the error envelope', async () => {
    const s = await start();
    const c = s.client();
    await c.placeOrder(FUT, openLong('0.01'));
    const id = (await c.placeTpSl({ symbol: FUT, clientOid: 'm_sl', role: 'stop-loss', positionSide: 'long', size: d('0.01'), triggerPrice: d('50000') })) as {
      orderId: string;
    };
    const ok = await call(
      s,
      'POST',
      '/capi/v2/order/modifyTpSlOrder',
      `{"orderId":${id.orderId},"triggerPrice":"51000","executePrice":"0","triggerPriceType":3}`,
    );
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toEqual({ code: '00000', msg: 'success', requestTime: expect.any(Number), data: '' });
    expect((await c.triggerOrders(FUT))[0]!.triggerPrice!.toString()).toBe('51000');
    const unknown = await call(s, 'POST', '/capi/v2/order/modifyTpSlOrder', '{"orderId":600000000000999999,"triggerPrice":"1"}');
    expect([unknown.status, JSON.parse(unknown.text)]).toEqual([
      400,
      { code: '50005', msg: 'Order does not exist', requestTime: expect.any(Number), data: null },
    ]);
  });

  it('F25 / F26: one order placed and canceled; F27 / F28 ids as raw numbers', async () => {
    const s = await start();
    const below = (await s.client().ticker(FUT)).last!.mul(d('0.98')).roundToStep(d('0.1'), 'down').toString();
    const placed = await call(
      s,
      'POST',
      '/capi/v2/order/placeOrder',
      `{"symbol":"${FUT}","client_oid":"one_1","size":"0.01","type":"1","order_type":"0","match_price":"0","price":"${below}"}`,
    );
    const id = (JSON.parse(placed.text) as { order_id: string }).order_id;
    expect(JSON.parse(placed.text)).toEqual({ client_oid: null, order_id: expect.stringMatching(/^6\d{17}$/) });
    expect(
      JSON.parse(
        (
          await call(
            s,
            'POST',
            '/capi/v2/order/placeOrder',
            `{"symbol":"${FUT}","client_oid":"one_2","size":"0.01","type":"9","order_type":"0","match_price":"0","price":"1"}`,
          )
        ).text,
      ),
    ).toMatchObject({ code: '40020' });
    expect(JSON.parse((await call(s, 'POST', '/capi/v2/order/cancel_order', '{"clientOid":"one_1"}')).text)).toEqual({
      order_id: id,
      client_oid: 'one_1',
      result: true,
      err_msg: null,
    });
    expect(JSON.parse((await call(s, 'POST', '/capi/v2/order/cancel_order', `{"orderId":"${id}"}`)).text)).toEqual({
      order_id: id,
      client_oid: null,
      result: false,
      err_code: '50005',
      err_msg: 'Order does not exist',
    });
    expect(JSON.parse((await call(s, 'POST', '/capi/v2/order/cancel_order', '{}')).text)).toMatchObject({ code: '40019' });

    expect((await s.client().placeOrder(FUT, openLong('0.01'))).outcome).toBe('accepted');
    expect((await s.client().placeOrder(FUT, { ...openLong('0.02'), kind: 'limit', timeInForce: 'gtc', price: d(below) })).outcome).toBe('accepted');
    expect((await call(s, 'POST', '/capi/v2/order/cancelAllOrders', '{"cancelOrderType":"normal"}')).text).toMatch(
      /^\[\{"orderId":6\d{17},"success":true\}\]$/,
    );
    expect(JSON.parse((await call(s, 'POST', '/capi/v2/order/cancelAllOrders', '{}')).text)).toMatchObject({ code: '40019' });
    expect((await call(s, 'POST', '/capi/v2/order/closePositions', `{"symbol":"${FUT}"}`)).text).toMatch(
      /^\[\{"positionId":\d{16,},"successOrderId":6\d{17},"errorMessage":"","success":true\}\]$/,
    );
    expect((await call(s, 'POST', '/capi/v2/order/closePositions', '{"symbol":"cmt_nothing"}')).status).toBe(400);
  });

  it('F29 and F4: the added fields, the id a raw number, "0" for no liquidation price (the client reads null)', async () => {
    const s = await start();
    const c = s.client();
    await c.placeOrder(FUT, openLong('0.01'));
    const text = (await call(s, 'GET', '/capi/v2/account/position/allPosition')).text;
    expect(text).toMatch(/^\[\{"id":\d{16,},/);
    const [row] = JSON.parse(text) as Array<Record<string, unknown>>;
    expect(row).toMatchObject({
      symbol: FUT,
      side: 'LONG',
      size: '0.01',
      contractVal: '0.0001',
      liquidatePrice: '0',
      funding_fee: '0',
      cum_funding_fee: '0',
      margin_mode: 'SHARED',
    });
    const view = s.server.engine.positionViews(FUT)[0]!;
    expect([row!.marginSize, row!.unrealizePnl, row!.open_value]).toEqual([view.margin.toString(), expect.stringMatching(/^-?\d/), view.openValue.toString()]);
    const [p] = await c.allPositions();
    expect([p!.positionId, p!.liquidationPrice]).toEqual([view.positionId, null]);
    const [single] = JSON.parse((await call(s, 'GET', '/capi/v2/account/position/singlePosition', `symbol=${FUT}`)).text) as Array<Record<string, unknown>>;
    expect(single).toMatchObject({ symbol: FUT, marginSize: row!.marginSize, liquidatePrice: '0' });
    const acct = JSON.parse((await call(s, 'GET', '/capi/v2/account/accounts')).text) as {
      collateral: Array<Record<string, unknown>>;
      position: Array<Record<string, unknown>>;
    };
    expect(acct.collateral[0]).toMatchObject({ is_liquidating: false, cum_position_funding_amount: '0' });
    expect(acct.position[0]).toMatchObject({ id: view.positionId, created_time: expect.stringMatching(/^\d+$/) });
    expect(acct.position[0]).not.toHaveProperty('symbol');
  });

  it('F30: billId a raw number, `ctime` a number; a businessType of a shared kind filtered; "" and null taken as unset', async () => {
    const s = await start();
    const c = s.client();
    await c.placeOrder(FUT, openLong('0.01'));
    await c.placeOrder(FUT, { clientOid: 'os', side: 'sell', kind: 'market', timeInForce: 'ioc', size: d('0.02'), positionSide: 'short' });
    const all = await call(s, 'POST', '/capi/v2/account/bills', '{"coin":"","symbol":"","businessType":"","startTime":null,"endTime":null,"limit":10}');
    expect(all.text).toMatch(
      /^\{"hasNextPage":false,"items":\[\{"billId":9\d{17},"coin":"USDT","symbol":"cmt_btcusdt","amount":"-[\d.]+","businessType":"position_open_short",.*"ctime":\d{13}\}/,
    );
    const shorts = JSON.parse((await call(s, 'POST', '/capi/v2/account/bills', '{"businessType":"position_open_short","limit":100}')).text) as {
      items: Array<{ businessType: string }>;
    };
    expect(shorts.items.map((i) => i.businessType)).toEqual(['position_open_short']);
    expect(JSON.parse((await call(s, 'POST', '/capi/v2/account/bills', '{"limit":1}')).text)).toMatchObject({
      hasNextPage: true,
      items: [{ businessType: 'position_open_short' }],
    });
    expect(JSON.parse((await call(s, 'POST', '/capi/v2/account/bills', '{"coin":"BTC"}')).text)).toEqual({ hasNextPage: false, items: [] });
    expect(JSON.parse((await call(s, 'POST', '/capi/v2/account/bills', '{"businessType":"airdrop"}')).text)).toMatchObject({ code: '40020' });
    expect(JSON.parse((await call(s, 'POST', '/capi/v2/account/bills', '{"limit":101}')).text)).toMatchObject({ code: '40020' });
  });

  it('a liquidation: burst_liquidate_long in F19, FORCE_LIQUIDATE with its fee in F20, start/finish bills in F30', async () => {
    const s = await start({ collateral: '1000' });
    const c = s.client();
    const r = await c.placeOrder(FUT, openLong('0.2'));
    expect(r.outcome).toBe('accepted');
    const res = await fetch(`${s.url}/sim/market`, { method: 'POST', body: JSON.stringify({ symbol: FUT, shiftTicks: -60_000 }) });
    expect(res.status).toBe(200);
    await until(
      () => c.allPositions(),
      (ps) => ps.length === 0,
      'the long liquidated',
    );
    const history = JSON.parse((await call(s, 'GET', '/capi/v2/order/history', `symbol=${FUT}`)).text) as Array<Record<string, string>>;
    const burst = history.find((o) => o.type === 'burst_liquidate_long')!;
    expect(burst).toMatchObject({ status: 'filled', filled_qty: '0.2' });
    const fills = JSON.parse((await call(s, 'GET', '/capi/v2/order/fills', `symbol=${FUT}&orderId=${burst.order_id}`)).text) as {
      list: Array<Record<string, string>>;
    };
    expect(fills.list[0]).toMatchObject({ liquidateType: 'FORCE_LIQUIDATE', orderSide: 'SELL', positionSide: 'LONG' });
    expect(d(fills.list[0]!.liquidateFee!).gt(Decimal.ZERO)).toBe(true);
    expect(fills.list[0]!.liquidateFee).toBe(fills.list[0]!.fillFee);
    expect(await c.order('futures', FUT, { orderId: burst.order_id! })).toMatchObject({
      status: 'filled',
      rawType: 'burst_liquidate_long',
      side: 'sell',
      reduceOnly: true,
    });
    const kinds = (await c.ledger({ limit: 100 })).entries.map((e) => e.rawKind);
    expect(kinds).toEqual(expect.arrayContaining(['start_liquidate', 'finish_liquidate', 'order_liquidate_fee_income']));
    expect((await c.ledger({ kind: 'liquidation-start' })).entries).toHaveLength(1);
  });
});

describe('funding signed on the wire as configured, read back by the live client', () => {
  const EIGHT_HOURS = 8 * 3_600_000;

  it.each(['collateral-change', 'paid-positive'] as const)(
    'server %s: the wire follows it; a client of the same setting reads changes of collateral, the other the opposite',
    async (sign) => {
      // A clock 2.5 s before a settlement of a rate other than 0: the position opened now is charged when the
      // simulator crosses it.
      const schedule = new FundingSchedule(3, DEFAULT_INSTRUMENTS);
      let boundary = Math.floor(Date.now() / EIGHT_HOURS) * EIGHT_HOURS;
      while (schedule.rate(FUT, boundary).isZero()) boundary -= EIGHT_HOURS;
      const s = await start({ sign, clock: new ScaledClock(1, boundary - 2500) });
      expect(s.server.engine.funding.nextSettlementMs(FUT, s.clock.now())).toBe(boundary);
      expect(s.server.engine.funding.rate(FUT, boundary).isZero()).toBe(false);
      const same = s.client(sign);
      const other = s.client(sign === 'paid-positive' ? 'collateral-change' : 'paid-positive');
      expect((await same.placeOrder(FUT, openLong('0.5'))).outcome).toBe('accepted');
      const [p] = await until(
        () => same.allPositions(),
        (ps) => ps[0]?.fundingFee?.isZero() === false,
        'funding settled',
      );
      const view = s.server.engine.positionViews(FUT)[0]!;
      const account = s.server.engine.accountView();
      expect(view.fundingFee.isZero()).toBe(false);
      // The engine's amounts are changes of collateral; on the wire they are as configured.
      const wire = (x: Decimal) => (sign === 'paid-positive' ? x.neg() : x).toString();
      const [row] = JSON.parse((await call(s, 'GET', '/capi/v2/account/position/allPosition')).text) as Array<Record<string, string>>;
      expect([row!.funding_fee, row!.cum_funding_fee]).toEqual([wire(view.fundingFee), wire(view.cumFundingFee)]);
      const acct = JSON.parse((await call(s, 'GET', '/capi/v2/account/accounts')).text) as { collateral: Array<Record<string, unknown>> };
      expect(acct.collateral[0]!.cum_position_funding_amount).toBe(wire(account.cumFunding));
      expect([p!.fundingFee!.toString(), p!.cumFundingFee!.toString()]).toEqual([view.fundingFee.toString(), view.cumFundingFee.toString()]);
      expect((await same.balances('futures'))[0]!.cumFunding!.toString()).toBe(account.cumFunding.toString());
      const [q] = await other.allPositions();
      expect(q!.fundingFee!.toString()).toBe(view.fundingFee.neg().toString());
      // Bills are changes of collateral whatever the setting.
      const bills = (await same.ledger({ kind: 'funding', symbol: FUT })).entries;
      expect(bills.map((b) => b.amount.toString())).toEqual([view.fundingFee.toString()]);
    },
  );
});
