// Dry-run: market data from the venue's public endpoints (here `sextant sim` stands in for it; no keys), orders
// matched by the in-process simulator against that data. The venue sees public requests only.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { ENDPOINTS, isEndpointId } from '../../src/exchange/endpoints.js';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { OPS_AUTH, OPS_TOKEN } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-dry-'));

describe('sextant run in dry-run mode', () => {
  it('trades on simulated fills against live public data and never calls a private endpoint', async () => {
    const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 21, startMs: systemClock.now(), tickIntervalMs: 50 });
    const venue = new SimServer({
      market,
      accounts: { spot: {}, futuresCollateral: '0', leverage: 1 },
      credentials: { apiKey: 'x1234', apiSecret: 'y1234', passphrase: 'z1234' },
      budget: { spot: { ip: 1e6, uid: 1e6 }, futures: { ip: 1e6, uid: 1e6 }, windowMs: 10_000, orderRequestsPerSecond: 1e6 },
      clock: systemClock,
      logger: silentLogger,
    });
    const url = await venue.listen(0, '127.0.0.1');
    const cfg = join(dir, 'dry.yaml');
    writeFileSync(
      cfg,
      stringify({
        mode: 'dry-run',
        exchange: {
          spotBaseUrl: url,
          futuresBaseUrl: url,
          rateLimit: { spot: { ip: { budget: 100000 }, uid: { budget: 100000 } }, futures: { ip: { budget: 100000 }, uid: { budget: 100000 } } },
        },
        sim: { accounts: { spot: { USDT: '100000', BTC: '1' }, futuresCollateral: '100000', leverage: 20 } },
        journal: { path: join(dir, 'journal.sqlite') },
        daemon: { http: { port: 0 }, polls: { tickersMs: 300, ordersMs: 600, balancesMs: 1000, positionsMs: 1000 }, reconcileCron: '* * * * * *' },
        execution: { graceMs: 500, lostAfterChecks: 2 },
        strategies: [
          {
            id: 'mm',
            name: 'spot-market-maker',
            symbols: ['BTCUSDT_SPBL'],
            params: { halfSpreadBps: 2, size: '0.002', maxInventory: '0.05', toleranceBps: 1 },
          },
        ],
        log: { level: 'info' },
      }),
    );
    const p = spawn(process.execPath, ['bin/sextant.js', 'run', '--config', cfg], { env: { PATH: process.env.PATH, SEXTANT_HTTP_TOKEN: OPS_TOKEN } });
    let out = '';
    p.stdout.on('data', (d) => (out += String(d)));
    p.stderr.on('data', (d) => (out += String(d)));
    const exited = new Promise<number | null>((resolve) => p.on('close', resolve));
    try {
      const end = Date.now() + 40_000;
      let opsUrl: string | undefined;
      let filled = false;
      while (Date.now() < end && !filled) {
        await new Promise((r) => setTimeout(r, 300));
        const line = out.split('\n').find((l) => l.includes('daemon running'));
        if (!line) continue;
        opsUrl ??= (JSON.parse(line) as { opsUrl: string }).opsUrl;
        const m = await (await fetch(`${opsUrl}/metrics`, { headers: OPS_AUTH })).text().catch(() => '');
        filled = /sextant_execution_events_total\{type="(partially-)?filled"\} [1-9]/.test(m);
      }
      expect({ filled, started: out.includes('dry-run: live market data, simulated fills') }).toEqual({ filled: true, started: true });
      const seen = venue.snapshot().requests;
      const privateCalls = Object.keys(seen).filter((id) => !isEndpointId(id) || ENDPOINTS[id].auth);
      expect(privateCalls).toEqual([]);
      // The spot pair's ticker and book (S11, S13) are read: the paper venue quotes against a real bid and ask.
      expect({ S11: seen.S11! > 0, S13: seen.S13! > 0 }).toEqual({ S11: true, S13: true });
    } finally {
      p.kill('SIGTERM');
      expect(await exited).toBe(0);
      await venue.close();
    }
  }, 60_000);
});
