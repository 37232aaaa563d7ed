// A fleet on one budget, measured by the simulator: 4 processes behind one address, 2 accounts (2 processes each),
// each with its own limiter sharing the pools through the real Redis, saturate one `sextant sim` with reads and
// order requests. In no interval of a window's length, aligned or not, does the weight from the address or from
// either account exceed its budget, and the binding pool (the address's) is used to at least 80 %.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { accountDigest } from '../../src/domain/credentials.js';
import type { VenueBudget } from '../../src/domain/venue-budget.js';
import type { RateLimiterConfig } from '../../src/exchange/live/rate-limiter.js';
import type { SimStats } from '../../src/exchange/sim/server.js';

const ACCOUNTS = [
  { apiKey: 'fleet-key-a', apiSecret: 'fleet-secret-a', passphrase: 'fleet-pass-a' },
  { apiKey: 'fleet-key-b', apiSecret: 'fleet-secret-b', passphrase: 'fleet-pass-b' },
];
// The venue's own weight window: a spread of arrivals costs a short window more of its budget.
const WINDOW_MS = 10_000;
const BUDGET: VenueBudget = { spot: { ip: 1000, uid: 1000 }, futures: { ip: 1000, uid: 1000 }, windowMs: WINDOW_MS, orderRequestsPerSecond: 10 };
const keyPrefix = `sextant-fleet-test-${process.pid}-${Date.now()}`;

function limits(): RateLimiterConfig {
  const w = (budget: number) => ({ budget, windowMs: WINDOW_MS });
  return {
    spot: { ip: w(BUDGET.spot.ip), uid: w(BUDGET.spot.uid) },
    futures: { ip: w(BUDGET.futures.ip), uid: w(BUDGET.futures.uid) },
    orderRequests: { budget: BUDGET.orderRequestsPerSecond, windowMs: 1000 },
    usableFraction: 0.9,
    // The config's default: four saturating processes on two cores spread their arrivals by ~150 ms here.
    arrivalSpreadMs: 250,
    cooloffMs: 2000,
    egress: 'fleet-test-egress',
    redis: { url: 'redis://127.0.0.1:6379', keyPrefix },
  };
}

/** Runs one fleet process to its end; its JSON report line. */
function child(cfg: object): Promise<{ sent: number; failed: number; rateLimited: number }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['test/fixtures/fleet-child.mjs', JSON.stringify(cfg)], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim()) as { sent: number; failed: number; rateLimited: number })
        : reject(new Error(`fleet process ended with ${code}: ${err}`)),
    );
  });
}

describe('a fleet of 4 processes and 2 accounts on one budget through Redis (127.0.0.1:6379)', () => {
  let sim: ChildProcess | undefined;
  afterAll(async () => {
    sim?.disconnect();
    const r = new Redis({ host: '127.0.0.1', port: 6379 });
    const keys = await r.keys(`${keyPrefix}:*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  });

  it("no window of any address or account over its budget; the address's budget used to at least 80 %", async () => {
    // The venue in a process of its own, as a venue is: the arrivals it times are not held up by this runner's work.
    const venue = fork('test/fixtures/fleet-sim-child.mjs', [JSON.stringify({ accounts: ACCOUNTS, budget: BUDGET })], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    sim = venue;
    const url = await new Promise<string>((resolve, reject) => {
      venue.once('message', (m) => resolve((m as { url: string }).url));
      venue.once('exit', (code) => reject(new Error(`the simulator exited (${code})`)));
    });
    // Every process starts together once all have loaded, and saturates for two windows.
    const startAtMs = Date.now() + 2500;
    const endAtMs = startAtMs + 2 * WINDOW_MS;
    const reports = await Promise.all(
      [0, 1, 2, 3].map((i) => child({ url, creds: ACCOUNTS[i % 2], rateLimit: limits(), readLoops: 6, orderLoops: 2, startAtMs, endAtMs })),
    );
    expect(reports.every((r) => r.sent > 0)).toBe(true);

    const stats = await new Promise<SimStats>((resolve) => {
      venue.once('message', (m) => resolve((m as { stats: SimStats }).stats));
      venue.send('stats');
    });
    const windows = Object.entries(stats.windows);
    const seen = (pool: string) => windows.filter(([name]) => name.startsWith(`${pool}@`)).map(([name, w]) => ({ name, most: w.most, budget: w.budget }));
    // One address; each account counted on its own, under its digest.
    expect(seen('futures:ip').map((w) => w.name)).toEqual(['futures:ip@127.0.0.1']);
    const accounts = ACCOUNTS.map((a) => accountDigest(a.apiKey)).sort();
    expect(
      seen('futures:uid')
        .map((w) => w.name.split('@')[1])
        .sort(),
    ).toEqual(accounts);
    expect(
      seen('futures:orders')
        .map((w) => w.name.split('@')[1])
        .sort(),
    ).toEqual(accounts);
    const over = windows.filter(([, w]) => w.most > w.budget).map(([name, w]) => `${name}: ${w.most} > ${w.budget}`);
    expect(over).toEqual([]);
    expect(stats.rejected429).toBe(0);
    // The binding pool under saturation: the address's IP weight, shared by all four, used to four fifths at least (the
    // usable fraction is 0.9: a loaded 2-core runner that slows the four processes took it to 84.7 % once).
    const ip = seen('futures:ip')[0]!;
    expect(ip.most).toBeGreaterThanOrEqual(0.8 * BUDGET.futures.ip);
  }, 60_000);
});
