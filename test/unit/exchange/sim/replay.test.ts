// Replayed market data drives the same engine as the synthetic market.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { eachReplayRecord, readReplayFile } from '../../../../src/data/replay-file.js';
import { Decimal } from '../../../../src/domain/decimal.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../../../src/exchange/sim/simulated-exchange.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-replay-'));

describe('replay', () => {
  it('reads JSON lines, drives fills in virtual time, and names a bad line', async () => {
    const f = join(dir, 'ticks.jsonl');
    writeFileSync(
      f,
      [
        { ts: 1000, symbol: 'BTCUSDT_SPBL', price: '90000.0', size: '0.5' },
        { ts: 2000, symbol: 'BTCUSDT_SPBL', price: '89990.0', size: '0.5', buyerMaker: true },
        { ts: 3000, symbol: 'BTCUSDT_SPBL', price: '89900.0', size: '0.5', buyerMaker: true },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );
    const market = new ReplayMarket(
      DEFAULT_INSTRUMENTS.filter((s) => s.symbol === 'BTCUSDT_SPBL'),
      readReplayFile(f),
    );
    const sim = new SimulatedExchange(market, { spot: { USDT: '100000' }, futuresCollateral: '0', leverage: 1 });
    const [r] = await sim.placeOrders('spot', 'BTCUSDT_SPBL', [
      { clientOid: 'r1', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: Decimal.from('89950'), size: Decimal.from('0.1') },
    ]);
    expect(r!.outcome).toBe('accepted');
    sim.advanceTo(2000);
    expect((await sim.openOrders('spot', 'BTCUSDT_SPBL'))[0]!.filledSize.isZero()).toBe(true);
    sim.advanceTo(3000);
    const fills = await sim.fills('spot', 'BTCUSDT_SPBL');
    expect(fills.map((x) => [x.price.toString(), x.size.toString(), x.timestampMs])).toEqual([['89950', '0.1', 3000]]);
    expect((await sim.recentTrades('BTCUSDT_SPBL', 10)).map((t) => t.price.toString())).toEqual(['89900', '89990', '90000']);

    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"ts":1,"symbol":"X","price":"1","size":"1"}\n{"ts":2,"symbol":"X","price":1,"size":"1"}\n');
    expect(() => readReplayFile(bad)).toThrow(/bad\.jsonl:2: expected/);
    expect(
      () =>
        new ReplayMarket(DEFAULT_INSTRUMENTS, [
          { ts: 2, symbol: 'A', price: '1', size: '1' },
          { ts: 1, symbol: 'A', price: '1', size: '1' },
        ]),
    ).toThrow(/out of time order/);
  });

  it('reads a file a chunk at a time whatever its size; a recording out of order replays sorted, ties as they came', () => {
    const f = join(dir, 'big.jsonl');
    // 60,000 lines (several 1 MiB chunks, lines cut at chunk ends), no newline at the end, a multi-byte character.
    const lines = Array.from({ length: 60_000 }, (_, i) =>
      JSON.stringify({
        ts: 1000 + i,
        symbol: i % 2 ? 'BTCUSDT_SPBL' : 'cmt_ethusdt',
        price: i % 2 ? '90000.1' : '3000.25',
        size: '0.01',
        note: i === 777 ? 'é€' : undefined,
      }),
    );
    writeFileSync(f, lines.join('\n'));
    let n = 0;
    let lastTs = 0;
    eachReplayRecord(f, (r) => {
      expect(r.ts).toBe(lastTs === 0 ? 1000 : lastTs + 1);
      lastTs = r.ts;
      n++;
    });
    expect(n).toBe(60_000);

    const market = new ReplayMarket(DEFAULT_INSTRUMENTS);
    for (const [ts, symbol, price] of [
      [3000, 'BTCUSDT_SPBL', '3'],
      [1000, 'BTCUSDT_SPBL', '1'],
      [2000, 'cmt_ethusdt', '20'],
      [2000, 'BTCUSDT_SPBL', '2'],
      [1000, 'UNKNOWN', '9'],
    ] as const) {
      market.add({ ts, symbol, price, size: '0.01' });
    }
    market.begin();
    expect(market.length).toBe(4);
    const seen: string[] = [];
    market.advanceTo(5000, (m) => seen.push(`${m.ts}:${m.spec.symbol}:${m.last}`));
    expect(seen).toEqual(['1000:BTCUSDT_SPBL:10', '2000:cmt_ethusdt:2000', '2000:BTCUSDT_SPBL:20', '3000:BTCUSDT_SPBL:30']);
  });

  it('candles of a replay: the minutes of its records, no past before the first one (F11 answers what there is)', async () => {
    const min = 60_000;
    const t0 = 1_700_000_040_000;
    const records = [
      [0, '3000'],
      [10_000, '3010'],
      [70_000, '2990'],
      [200_000, '3005'],
    ].map(([dt, price]) => ({ ts: t0 + Number(dt), symbol: 'cmt_ethusdt', price: String(price), size: '0.5' }));
    const sim = new SimulatedExchange(new ReplayMarket(DEFAULT_INSTRUMENTS, records), { spot: {}, futuresCollateral: '0', leverage: 1 });
    sim.advanceTo(t0 + 200_000);
    const bars = await sim.historyCandles('cmt_ethusdt', '1m', { startMs: t0 - 100 * min, endMs: t0 + 10 * min });
    // A minute without a record has no candle.
    expect(
      bars.map((b) => [(b.openMs - t0) / min, b.open.toString(), b.high.toString(), b.low.toString(), b.close.toString(), b.baseVolume.toString()]),
    ).toEqual([
      [0, '3000', '3010', '3000', '3010', '1'],
      [1, '2990', '2990', '2990', '2990', '0.5'],
      [3, '3005', '3005', '3005', '3005', '0.5'],
    ]);
    expect(await sim.candles('cmt_ethusdt', '1h')).toHaveLength(1);
  });
});
