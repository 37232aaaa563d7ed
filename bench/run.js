// Benchmarks of the exchange client's building blocks (run with `npm run bench`; uses the compiled dist/).
// Prints one line per figure. Figures vary with the machine: compare ratios within one run.
import http from 'node:http';
import { Decimal } from '../dist/domain/decimal.js';
import { sign } from '../dist/exchange/wire/signature.js';
import { parseJson } from '../dist/exchange/wire/json.js';
import { interpretResponse } from '../dist/exchange/live/rest-client.js';
import { LiveClient } from '../dist/exchange/live/live-client.js';
import { systemClock } from '../dist/util/clock.js';
import { silentLogger } from '../dist/util/logger.js';

function timeIt(name, n, fn) {
  for (let i = 0; i < Math.min(n, 1000); i++) fn(i); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - t0) / n;
  console.log(`${name.padEnd(58)} ${(1e9 / ns).toFixed(0).padStart(10)} ops/s  ${ns.toFixed(0).padStart(7)} ns/op`);
}

const S6 = '{"code":"00000","msg":"success","requestTime":1743736915184,"data":{"resultList":[' +
  Array.from({ length: 20 }, (_, i) => `{"orderId":${602876318261969338n + BigInt(i)},"clientOrderId":"sx_a_${i}"}`).join(',') + ']}}';
const F2 = JSON.stringify(Array.from({ length: 50 }, (_, i) => ({
  symbol: `cmt_c${i}usdt`, last: '90755.3', best_ask: '90755.4', best_bid: '90755.3', high_24h: '91130.0', low_24h: '90097.3',
  volume_24h: '2321170547.37995', timestamp: '1764482511864', priceChangePercent: '0.000474', base_volume: '25615.0755', markPrice: '90755.2', indexPrice: '90797.161',
})));

console.log('# building blocks');
timeIt('sign (HMAC-SHA256 + Base64) of a 200-byte POST', 200_000, (i) => sign('secret', String(1700000000000 + i), 'POST', '/capi/v2/order/batchOrders', '', '{"symbol":"cmt_btcusdt","orderDataList":[{"client_oid":"sx_1","size":"0.01","type":"1","order_type":"0","match_price":"0","price":"88888.0"}]}'));
timeIt('JSON.parse of an S6 answer (20 ids > 2^53, lossy)', 50_000, () => JSON.parse(S6));
timeIt('parseJson of the same answer (lossless)', 50_000, () => parseJson(S6));
timeIt('parseJson of a 50-ticker F2 answer (no long ints: fast path)', 20_000, () => parseJson(F2));
timeIt('interpretResponse F2: parse + validate 50 tickers', 5_000, () => interpretResponse('F2', { status: 200, headers: {}, body: F2 }));
timeIt('Decimal.parse + add + toString', 500_000, (i) => Decimal.from('90755.3').add(Decimal.from(i % 2 ? '0.1' : '0.25')).toString());

console.log('# one request through limiter, signing, got and validation (loopback, keep-alive)');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url.startsWith('/capi/v2/market/tickers') ? F2 : '[]');
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}`;
const big = { budget: 10_000_000, windowMs: 10_000 };
const client = new LiveClient({
  spotBaseUrl: url, futuresBaseUrl: url, credentials: { apiKey: 'k', apiSecret: 's', passphrase: 'p' }, locale: 'en-US', timeoutMs: 5000,
  retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 }, maxPages: 5, clock: systemClock, logger: silentLogger,
  rateLimit: { spot: { ip: big, uid: big }, futures: { ip: big, uid: big }, orderRequests: { budget: 1_000_000, windowMs: 1000 }, usableFraction: 1, cooloffMs: 1000 },
});
const lat = [];
for (let i = 0; i < 50; i++) await client.futures.tickers();
const t0 = performance.now();
for (let i = 0; i < 500; i++) {
  const s = performance.now();
  await client.futures.tickers();
  lat.push(performance.now() - s);
}
const secs = (performance.now() - t0) / 1000;
lat.sort((a, b) => a - b);
const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
console.log(`F2 sequential, 50 tickers per answer: ${(500 / secs).toFixed(0)} req/s, latency p50 ${q(0.5)} ms, p99 ${q(0.99)} ms`);
const t1 = performance.now();
await Promise.all(Array.from({ length: 500 }, () => client.futures.currentOrders({})));
console.log(`F5 500 concurrent (signed): ${(500 / ((performance.now() - t1) / 1000)).toFixed(0)} req/s`);
await client.close();
server.close();

// ---------------------------------------------------------------------------------------------------------
console.log('# simulator engine, in process');
const { MatchingEngine } = await import('../dist/exchange/sim/engine.js');
const { SyntheticMarket } = await import('../dist/exchange/sim/market.js');
const { DEFAULT_INSTRUMENTS } = await import('../dist/exchange/sim/instruments.js');
const { ManualClock } = await import('../dist/util/clock.js');

function engineRun(restingPerSymbol, ticksTotal) {
  const clock = new ManualClock(1_700_000_000_000);
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 1, startMs: clock.now(), tickIntervalMs: 100 });
  const engine = new MatchingEngine(market.symbols, { spot: { USDT: '1000000000', BTC: '1000', ETH: '100000', SOL: '10000000' }, futuresCollateral: '1000000000', leverage: 20 }, clock);
  let n = 0;
  for (const m of market.symbols) {
    const b = engine.book(m.spec.symbol);
    const last = b.inst.tickSize.mul(Decimal.fromInt(m.last));
    for (let i = 0; i < restingPerSymbol; i++) {
      const side = i % 2 ? 'buy' : 'sell';
      // Resting 4 % away: inside the band, out of reach of ordinary ticks.
      const price = last.mul(Decimal.from(side === 'buy' ? '0.96' : '1.04')).roundToStep(b.inst.tickSize, 'down');
      const req = { clientOid: `b_${n++}`, side, kind: 'limit', timeInForce: 'gtc', price, size: b.inst.minSize };
      if (m.spec.surface === 'futures') Object.assign(req, { positionSide: side === 'buy' ? 'long' : 'short', reduceOnly: false });
      engine.place(m.spec.surface, m.spec.symbol, [req]);
    }
  }
  const onTick = (m) => engine.onTick(m);
  const perStep = market.symbols.length;
  const steps = Math.ceil(ticksTotal / perStep);
  const t0 = process.hrtime.bigint();
  market.advanceTo(clock.now() + steps * 100, onTick);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  return { ticks: engine.stats.ticks, secs, open: engine.openOrders('spot').length + engine.openOrders('futures').length };
}
engineRun(4, 200_000); // warm-up
for (const resting of [0, 4]) {
  const runs = [1, 2, 3].map(() => engineRun(resting, 3_000_000));
  const best = runs.map((r) => r.ticks / r.secs).sort((a, b) => b - a)[0];
  console.log(`ticks/s with ${resting} resting orders per symbol (6 symbols, market generation included): best ${(best / 1e6).toFixed(2)} M (runs ${runs.map((r) => (r.ticks / r.secs / 1e6).toFixed(2)).join(' / ')})`);
}

{
  const clock = new ManualClock(1_700_000_000_000);
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 2, startMs: clock.now(), tickIntervalMs: 100 });
  const engine = new MatchingEngine(market.symbols, { spot: { USDT: '1000000000000', BTC: '100000' }, futuresCollateral: '1000', leverage: 20 }, clock);
  const m = market.symbols.find((x) => x.spec.symbol === 'BTCUSDT_SPBL');
  const b = engine.book('BTCUSDT_SPBL');
  const N = 20_000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const side = i % 2 ? 'buy' : 'sell';
    engine.place('spot', 'BTCUSDT_SPBL', [{ clientOid: `m_${i}`, side, kind: 'market', timeInForce: 'ioc', size: b.inst.minSize.mul(Decimal.fromInt(10)) }]);
    if (i % 10 === 0) market.advanceTo(clock.now() + 100, (x) => { clock.set(x.ts); engine.onTick(x); });
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`orders matched per second (spot market orders, each filled with fees and balances): ${(N / secs).toFixed(0)} (fills: ${engine.stats.fills})`);
  void m;
}

// ---------------------------------------------------------------------------------------------------------
// Backtest throughput through the full pipeline (JSON lines: name, value, unit, ratio to a bare loop).
{
  const { loadConfig } = await import('../dist/config/load.js');
  const { runBacktest } = await import('../dist/app/backtest.js');
  const { readReplayFile } = await import('../dist/app/kernel.js');
  const loaded = loadConfig('config/backtest.yaml', {});
  const records = readReplayFile(loaded.config.backtest.data);
  const t0 = performance.now();
  await runBacktest(loaded, silentLogger, { outDir: '.bench-backtest' });
  const secs = (performance.now() - t0) / 1000;
  // The same events through a bare loop (parse the price, keep a running sum).
  const b0 = performance.now();
  let sum = 0;
  for (let k = 0; k < 50; k++) for (const r of records) sum += Number(r.price);
  const bareSecs = (performance.now() - b0) / 1000 / 50;
  const eps = records.length / secs;
  console.log(JSON.stringify({ name: 'backtest_events_per_second', value: Math.round(eps), unit: 'events/s', bare_loop: Math.round(records.length / bareSecs), ratio: +(eps / (records.length / bareSecs)).toExponential(2), note: `default backtest (${records.length} events, 2 strategies placing orders), journal on disk`, sum: sum > 0 }));
  const { rmSync } = await import('node:fs');
  rmSync('.bench-backtest', { recursive: true, force: true });
}
