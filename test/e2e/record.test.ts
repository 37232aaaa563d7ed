// `sextant record` polls the venue's public market data and writes a file a backtest replays.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { readReplayFile } from '../../src/app/kernel.js';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';

describe('sextant record', () => {
  it('records tickers and last trades as replay records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-rec-'));
    const venue = new SimServer({
      market: new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 5, startMs: systemClock.now(), tickIntervalMs: 50 }),
      accounts: { spot: {}, futuresCollateral: '0', leverage: 1 }, credentials: { apiKey: 'k123', apiSecret: 's123', passphrase: 'p123' },
      budget: { spot: { ip: 1e6, uid: 1e6 }, futures: { ip: 1e6, uid: 1e6 }, windowMs: 10_000, orderRequestsPerSecond: 1e6 }, clock: systemClock, logger: silentLogger,
    });
    const url = await venue.listen(0, '127.0.0.1');
    const cfg = join(dir, 'rec.yaml');
    writeFileSync(cfg, `exchange: { spotBaseUrl: "${url}", futuresBaseUrl: "${url}" }\ndaemon: { polls: { tickersMs: 200 } }\n`);
    const out = join(dir, 'ticks.jsonl');
    const code = await new Promise<number | null>((resolve) => {
      const p = spawn(process.execPath, ['bin/sextant.js', 'record', '-c', cfg, '--symbols', 'BTCUSDT_SPBL,cmt_btcusdt', '--seconds', '2', '--out', out], { env: { PATH: process.env.PATH } });
      p.on('close', resolve);
    });
    await venue.close();
    expect(code).toBe(0);
    const records = readReplayFile(out);
    expect(new Set(records.map((r) => r.symbol))).toEqual(new Set(['BTCUSDT_SPBL', 'cmt_btcusdt']));
    expect(records.length).toBeGreaterThan(6);
    // Per symbol in time order, replayable.
    for (const s of ['BTCUSDT_SPBL', 'cmt_btcusdt']) {
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
