// The normalised reads the layers above use: instruments, tickers, trades, open orders, positions, balances.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { Decimal } from '../../src/domain/decimal.js';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { createLogger } from '../../src/util/logger.js';
import { FakeVenue } from '../fixtures/fake-venue.js';
import { clientFor } from '../fixtures/live-client.js';

let venue: FakeVenue;
let client: LiveClient;
const lines: string[] = [];

beforeAll(async () => {
  venue = await FakeVenue.start();
  const sink = new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) });
  client = clientFor(venue, {}, createLogger({ level: 'warn', destination: sink as never }));
});
afterAll(async () => {
  await client.close();
  await venue.close();
});

const dec = (s: string) => Decimal.from(s);

describe('normalised reads', () => {
  it('futures instruments: decimal places become steps, priceEndStep scales the tick, contract_val "0" is unknown', async () => {
    venue.script('F1', { status: 200, body: '[{"symbol":"cmt_ethusdt","underlying_index":"ETH","quote_currency":"USDT","contract_val":"0","size_increment":"3","tick_size":"2","priceEndStep":5,"makerFeeRate":"0.0002","takerFeeRate":"0.0006","minOrderSize":"0.001","maxOrderSize":"1000","maxPositionSize":"5000"}]' });
    const [eth] = await client.instruments('futures');
    expect(eth!.tickSize.toString()).toBe('0.05');
    expect(eth!.stepSize.toString()).toBe('0.001');
    expect(eth!.contractValue).toBeNull();
    const [btc] = await client.instruments('futures');
    expect(btc!.tickSize.toString()).toBe('0.1');
    expect(btc!.stepSize.toString()).toBe('0.0001');
    expect(btc!.contractValue!.toString()).toBe('0.0001');
    expect(btc!.maxLeverage).toBe(400);
  });

  it('spot instruments', async () => {
    const [btc] = await client.instruments('spot');
    expect(btc).toMatchObject({ surface: 'spot', symbol: 'BTCUSDT_SPBL', base: 'BTC', quote: 'USDT', tradingEnabled: true, buyLimitPriceRatio: null });
    expect(btc!.tickSize.eq(dec('0.1'))).toBe(true);
    expect(btc!.minSize.eq(dec('0.00001'))).toBe(true);
  });

  it('tickers: absent mark price is null, never 0', async () => {
    const [btc, eth] = await client.tickers();
    expect(btc!.markPrice!.toString()).toBe('90755.2');
    expect(btc!.timestampMs).toBe(1764482511864);
    expect(eth!.markPrice).toBeNull();
    expect(eth!.indexPrice).toBeNull();
  });

  it('tickers: an empty best bid is unknown', async () => {
    venue.script('F2', { status: 200, body: '[{"symbol":"cmt_btcusdt","last":"1","best_ask":"2","best_bid":"","timestamp":"5"}]' });
    const [t] = await client.tickers();
    expect(t!.bestBid).toBeNull();
    expect(t!.bestAsk!.toString()).toBe('2');
  });

  it('spot recent trades', async () => {
    const [t] = await client.recentTrades('BTCUSDT_SPBL', 10);
    expect(t).toMatchObject({ tradeId: '778a5376-a0b6-4c8f-ab64-dd6ea40f896e', timestampMs: 1743668713364, buyerMaker: true });
    expect(t!.price.toString()).toBe('83609.7');
  });

  it('futures open orders: every page, sides derived from type, price_avg "0" is no fill price', async () => {
    const one = (i: number) => `{"symbol":"cmt_btcusdt","size":"0.01","client_oid":"c${i}","createTime":"1","filled_qty":"0","fee":"0","order_id":"${689987455633326746n + BigInt(i)}","price":"88888.0","price_avg":"0","status":"open","type":"close_short","order_type":"postOnly"}`;
    venue.script('F5', { status: 200, body: `[${Array.from({ length: 100 }, (_, i) => one(i)).join(',')}]` }, { status: 200, body: `[${one(100)}]` });
    const orders = await client.openOrders('futures');
    expect(orders).toHaveLength(101);
    expect(venue.calls('F5').slice(-2).map((r) => r.query)).toEqual(['limit=100&page=0', 'limit=100&page=1']);
    expect(orders[100]).toMatchObject({ orderId: '689987455633326846', side: 'buy', positionSide: 'short', reduceOnly: true, timeInForce: 'post_only', kind: 'limit', avgFillPrice: null, status: 'open' });
  });

  it('spot open orders from order history: final orders left out', async () => {
    const orders = await client.openOrders('spot', 'WXTUSDT_SPBL');
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ orderId: '602941812964852154', status: 'open', side: 'sell', kind: 'limit', avgFillPrice: null });
  });

  it('an unknown status is reported with endpoint and field, and kept as unknown (not dropped, not guessed)', async () => {
    venue.script('S1', { status: 200, body: '{"code":"00000","msg":"success","requestTime":1,"data":{"orderInfoResultList":[{"symbol":"A_SPBL","orderId":1,"price":"1","quantity":"2","orderType":"limit","side":"buy","status":"frozen_by_risk","fillQuantity":"0.5","fillTotalAmount":"0.55","cTime":"1"}],"nextPage":false}}' });
    const orders = await client.openOrders('spot', 'A_SPBL');
    expect(orders[0]).toMatchObject({ status: 'unknown', rawStatus: 'frozen_by_risk' });
    expect(orders[0]!.avgFillPrice!.toString()).toBe('1.1');
    const warn = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'unknown spot order status');
    expect(warn).toMatchObject({ endpoint: 'S1', field: 'data.orderInfoResultList[0].status', value: 'frozen_by_risk' });
  });

  it('positions: zero-size records left out, side case-insensitive, entry price exact', async () => {
    const ps = await client.positions('cmt_btcusdt');
    expect(ps).toHaveLength(1);
    expect(ps[0]).toMatchObject({ symbol: 'cmt_btcusdt', side: 'short' });
    expect(ps[0]!.entryPrice!.toString()).toBe('90755.3');
  });

  it('balances: spot assets and futures collateral', async () => {
    const spot = await client.balances('spot');
    expect(spot.map((b) => [b.asset, b.total.toString(), b.available!.toString()])).toEqual([
      ['BTC', '0.004', '0.004'],
      ['USDT', '10000999657.89270285', '10000999657.89270285'],
    ]);
    const fut = await client.balances('futures');
    expect(fut).toEqual([{ surface: 'futures', asset: 'USDT', available: null, frozen: null, total: dec('4663.20125463') }]);
  });

  it('a required value sent as "" fails with endpoint and field, never becomes 0', async () => {
    venue.script('S8', { status: 200, body: '{"code":"00000","msg":"success","requestTime":1,"data":[{"coinName":"BTC","available":"","frozen":"0","equity":""}]}' });
    await expect(client.balances('spot')).rejects.toMatchObject({ category: 'bad-response', endpoint: 'S8', field: 'data[0].equity' });
  });
});
