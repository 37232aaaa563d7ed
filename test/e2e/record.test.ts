// `sextant record` polls the venue's public market data and writes a file a backtest replays: the spot trade tape
// with sizes and sides, each trade once; futures tickers with bid and ask, sized by what traded; never a size 0.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { record } from '../../src/data/recorder.js';
import { createLiveClient } from '../../src/app/kernel.js';
import { readDataFileMeta } from '../../src/data/data-file.js';
import { readReplayFile } from '../../src/data/replay-file.js';
import { parseConfig } from '../../src/config/load.js';
import { MarketData } from '../../src/data/market-data.js';
import { Decimal } from '../../src/domain/decimal.js';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';

function simVenue(tickIntervalMs: number): SimServer {
  return new SimServer({
    market: new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 5, startMs: systemClock.now(), tickIntervalMs }),
    accounts: { spot: {}, futuresCollateral: '0', leverage: 1 },
    credentials: { apiKey: 'k123', apiSecret: 's123', passphrase: 'p123' },
    budget: { spot: { ip: 1e6, uid: 1e6 }, futures: { ip: 1e6, uid: 1e6 }, windowMs: 10_000, orderRequestsPerSecond: 1e6 },
    clock: systemClock,
    logger: silentLogger,
  });
}

describe('recording the simulator over HTTP', () => {
  it('has every public trade once with its size and side, futures rows with bid and ask, and no size "0"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-rec-'));
    const venue = simVenue(50);
    const url = await venue.listen(0, '127.0.0.1');
    const loaded = parseConfig(`exchange: { spotBaseUrl: "${url}", futuresBaseUrl: "${url}" }\ndaemon: { polls: { tickersMs: 200 } }\n`, 'rec.yaml', {});
    const client = createLiveClient(loaded, silentLogger, systemClock);
    const out = join(dir, 'tape.jsonl');
    try {
      const data = new MarketData(client, {
        spotSymbols: ['BTCUSDT_SPBL'],
        futuresSymbols: ['cmt_btcusdt'],
        polls: loaded.config.daemon.polls,
        clock: systemClock,
        logger: silentLogger,
        choices: { spotOpenOrders: 'S15', futuresTickers: 'F2', spotTickers: 'trade' },
      });
      const startMs = systemClock.now();
      const n = await record(data, out, new Promise((resolve) => setTimeout(resolve, 2500)), {
        header: { symbols: ['BTCUSDT_SPBL', 'cmt_btcusdt'], venue: url, startMs },
      });
      // The file says what it is: ticks of the symbols recorded, from this venue, since the start.
      expect(readDataFileMeta(out)).toEqual({
        sextant: 'market-data',
        version: 1,
        kind: 'ticks',
        symbols: ['BTCUSDT_SPBL', 'cmt_btcusdt'],
        source: `record ${url}`,
        fromMs: startMs,
      });
      const records = readReplayFile(out);
      expect(records).toHaveLength(n);
      expect(readFileSync(out, 'utf8')).not.toMatch(/"size":"0"/);
      for (const r of records) expect({ r, positive: Decimal.from(r.size).gt(Decimal.ZERO) }).toEqual({ r, positive: true });
      // The spot tape: exactly the venue's trades up to the last one recorded, oldest first, each once.
      const spot = records.filter((r) => r.symbol === 'BTCUSDT_SPBL');
      const lastTs = spot[spot.length - 1]!.ts;
      const venueTrades = (await client.recentTrades('BTCUSDT_SPBL', 1000)).reverse().filter((t) => t.timestampMs <= lastTs);
      expect(spot.length).toBeGreaterThan(20);
      expect(spot).toEqual(
        venueTrades.map((t) => ({ ts: t.timestampMs, symbol: 'BTCUSDT_SPBL', price: t.price.toString(), size: t.size.toString(), buyerMaker: t.buyerMaker })),
      );
      expect(new Set(spot.map((r) => r.buyerMaker))).toEqual(new Set([true, false]));
      // Futures: tickers with bid and ask, each a trade of what the volume grew by.
      const futures = records.filter((r) => r.symbol === 'cmt_btcusdt');
      expect(futures.length).toBeGreaterThan(3);
      for (const r of futures) {
        expect(r).toEqual({
          ts: expect.any(Number),
          symbol: 'cmt_btcusdt',
          price: expect.any(String),
          size: expect.any(String),
          bid: expect.any(String),
          ask: expect.any(String),
        });
        expect(Decimal.from(r.bid!).lte(Decimal.from(r.ask!))).toBe(true);
      }
      const ts = futures.map((r) => r.ts);
      expect(ts).toEqual([...new Set(ts)].sort((a, b) => a - b));
    } finally {
      await client.close();
      await venue.close();
    }
  }, 30_000);
});

describe('sextant record', () => {
  it('records the tape as replay records a backtest replays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-rec-'));
    const venue = simVenue(50);
    const url = await venue.listen(0, '127.0.0.1');
    const cfg = join(dir, 'rec.yaml');
    writeFileSync(cfg, `exchange: { spotBaseUrl: "${url}", futuresBaseUrl: "${url}" }\ndaemon: { polls: { tickersMs: 200 } }\n`);
    const out = join(dir, 'ticks.jsonl');
    const code = await new Promise<number | null>((resolve) => {
      const p = spawn(process.execPath, ['bin/sextant.js', 'record', '-c', cfg, '--symbols', 'BTCUSDT_SPBL,cmt_ethusdt', '--seconds', '2', '--out', out], {
        env: { PATH: process.env.PATH },
      });
      p.on('close', resolve);
    });
    await venue.close();
    expect(code).toBe(0);
    expect(readDataFileMeta(out)).toEqual({
      sextant: 'market-data',
      version: 1,
      kind: 'ticks',
      symbols: ['BTCUSDT_SPBL', 'cmt_ethusdt'],
      source: `record ${url}`,
      fromMs: expect.any(Number),
    });
    const records = readReplayFile(out);
    expect(new Set(records.map((r) => r.symbol))).toEqual(new Set(['BTCUSDT_SPBL', 'cmt_ethusdt']));
    expect(records.length).toBeGreaterThan(6);
    // Per symbol in time order, replayable.
    for (const s of ['BTCUSDT_SPBL', 'cmt_ethusdt']) {
      const ts = records.filter((r) => r.symbol === s).map((r) => r.ts);
      expect(ts).toEqual([...ts].sort((a, b) => a - b));
    }
    // A backtest replays the recording as it is.
    const bt = await new Promise<number | null>((resolve) => {
      const p = spawn(process.execPath, ['bin/sextant.js', 'backtest', '--data', out, '--out', join(dir, 'bt')], { env: { PATH: process.env.PATH } });
      p.on('close', resolve);
    });
    expect(bt).toBe(0);
  }, 30_000);
});
