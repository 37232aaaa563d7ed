// Canary secrets: forced errors, echoed requests, trace logging and the CLI never show the key, secret or
// passphrase (raw, Base64 or hex), nor a request signature.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { createLogger } from '../../src/util/logger.js';
import { FakeVenue, type RecordedRequest } from '../fixtures/fake-venue.js';
import { clientFor } from '../fixtures/live-client.js';
import { runCli } from '../fixtures/cli.js';

const CANARY = { apiKey: 'CANARYKEY7f3a9e', apiSecret: 'CANARYSECRET91bd2x', passphrase: 'CANARYPASSc0ffee' };

function forms(s: string): string[] {
  return [s, Buffer.from(s).toString('base64').replace(/=+$/, ''), Buffer.from(s).toString('hex')];
}

function leaks(text: string, signatures: string[]): string[] {
  const found: string[] = [];
  for (const v of Object.values(CANARY)) for (const f of forms(v)) if (text.includes(f)) found.push(f);
  for (const sig of signatures) if (text.includes(sig)) found.push(sig);
  return found;
}

const echo = (r: RecordedRequest) =>
  JSON.stringify({ code: '40015', msg: `System error for request ${JSON.stringify(r.headers)} ${r.body}`, requestTime: 1, data: null });

let venue: FakeVenue;
let client: LiveClient;
const out: string[] = [];

beforeAll(async () => {
  venue = await FakeVenue.start(CANARY);
  const sink = new Writable({ write: (c, _e, cb) => (out.push(String(c)), cb()) });
  const logger = createLogger({ level: 'trace', destination: sink as never });
  client = clientFor(venue, { retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 } }, logger);
  // Everything the app would log, with the same logger.
  logger.info({ config: { exchange: { apiKey: CANARY.apiKey } }, headers: { 'ACCESS-KEY': CANARY.apiKey, 'ACCESS-PASSPHRASE': CANARY.passphrase } }, 'startup');
});
afterAll(async () => {
  await client.close();
  await venue.close();
});

describe('secret canaries', () => {
  it('never appear in errors or logs, whatever the venue echoes', async () => {
    const errors: unknown[] = [];
    const attempt = async (p: Promise<unknown>) => p.catch((e: unknown) => errors.push(e));
    venue.handler = (r) => (r.id === 'S8' || r.id === 'F6' ? { status: 500, body: echo(r) } : undefined);
    await attempt(client.spot.assets()); // 500 with the request echoed, retried
    await attempt(
      client.futures.placeBatch({
        symbol: 'cmt_btcusdt',
        orderDataList: [{ client_oid: 'a', size: '1', type: '1', order_type: '0', match_price: '0', price: '1' }],
      }),
    );
    venue.handler = (r) => (r.id === 'F3' ? { status: 200, body: `{"account":"${String(r.headers['access-sign'])} ${CANARY.apiKey}"}` } : undefined);
    await attempt(client.futures.accounts()); // malformed answer quoting the key
    venue.handler = (r) =>
      r.id === 'F5'
        ? { status: 400, body: JSON.stringify({ code: '40012', msg: `Incorrect API key/Passphrase ${CANARY.passphrase}`, requestTime: 1, data: null }) }
        : undefined;
    await attempt(client.futures.currentOrders({}));
    venue.handler = undefined;

    expect(errors).toHaveLength(4);
    const signatures = venue.requests.map((r) => String(r.headers['access-sign'] ?? '')).filter((s) => s.length > 0);
    // The canaries really went over the wire, so a leak would be visible.
    expect(venue.requests.some((r) => r.headers['access-key'] === CANARY.apiKey)).toBe(true);
    expect(signatures.length).toBeGreaterThan(3);

    const errorText = errors
      .map((e) => `${String(e)} ${JSON.stringify(e)} ${(e as Error).stack ?? ''} ${JSON.stringify((e as { venueMessage?: string }).venueMessage)}`)
      .join('\n');
    expect(leaks(errorText, signatures)).toEqual([]);
    const logText = out.join('');
    expect(logText).toContain('retrying');
    expect(logText).toContain('[redacted]');
    expect(leaks(logText, signatures)).toEqual([]);
  });

  it('the CLI prints none of them, on success or on error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-canary-'));
    writeFileSync(join(dir, 'secret'), `${CANARY.apiSecret}\n`);
    const cfg = join(dir, 'c.yaml');
    writeFileSync(cfg, 'log: { level: trace }\n');
    venue.handler = (r) => (r.id === 'S8' ? { status: 400, body: echo(r) } : undefined);
    const env = {
      ...process.env,
      SEXTANT_API_KEY: CANARY.apiKey,
      SEXTANT_API_SECRET_FILE: join(dir, 'secret'),
      SEXTANT_API_PASSPHRASE: CANARY.passphrase,
      SEXTANT_SPOT_BASE_URL: venue.url,
      SEXTANT_FUTURES_BASE_URL: venue.url,
    };
    const run = async (args: string[]) => {
      const r = await runCli(args, env);
      return { code: r.code, text: r.stdout + r.stderr };
    };
    const failed = await run(['api', 'S8', '--config', cfg, '--log-level', 'trace']);
    const ok = await run(['api', 'F3', '--config', cfg, '--log-level', 'trace']);
    venue.handler = undefined;
    expect(failed.code).toBe(1);
    expect(failed.text).toMatch(/S8 \/api\/v2\/account\/assets \| HTTP 400 \| code 40015/);
    expect(ok.code).toBe(0);
    const signatures = venue.requests.map((r) => String(r.headers['access-sign'] ?? '')).filter((s) => s.length > 0);
    expect(leaks(failed.text + ok.text, signatures)).toEqual([]);
  });
});

describe('credentials inside base URLs', () => {
  const USER = 'URLUSERc4n4ry';
  const PASS = 'URLPASSc4n4ry';
  const basic = Buffer.from(`${USER}:${PASS}`).toString('base64');
  const withCredentials = (url: string) => url.replace('://', `://${USER}:${PASS}@`);
  const found = (text: string) => [USER, PASS, basic, encodeURIComponent(PASS)].filter((f) => text.includes(f));

  it('never show in `plan`, in the error of a failed call, nor in its logs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-url-canary-'));
    const cfg = join(dir, 'c.yaml');
    writeFileSync(
      cfg,
      [
        'exchange:',
        `  spotBaseUrl: ${JSON.stringify(withCredentials(venue.url))}`,
        `  futuresBaseUrl: ${JSON.stringify(withCredentials('http://127.0.0.1:1'))}`,
        '  timeoutMs: 2000',
        '  retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 }',
        // The test Redis has no users: a password alone is taken (with a warning), a user name would be refused.
        `  rateLimit: { redis: { url: ${JSON.stringify(`redis://:${PASS}@127.0.0.1:6379`)} } }`,
        '',
      ].join('\n'),
    );
    const env = { PATH: process.env.PATH, SEXTANT_API_KEY: CANARY.apiKey, SEXTANT_API_SECRET: CANARY.apiSecret, SEXTANT_API_PASSPHRASE: CANARY.passphrase };
    const run = (args: string[]) => runCli(args, env);
    const plan = await run(['plan', '--config', cfg]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(`spot     ${venue.url.replace('://', '://[redacted]@')}`);
    // The venue echoes the request headers (the Basic authorization the URL's credentials became) in its error.
    venue.handler = (r) => (r.id === 'S8' ? { status: 500, body: echo(r) } : undefined);
    const failed = await run(['api', 'S8', '--config', cfg, '--log-level', 'trace']);
    venue.handler = undefined;
    const unreachable = await run(['api', 'F3', '--config', cfg, '--log-level', 'trace']);
    expect(venue.requests.at(-1)!.headers.authorization).toBe(`Basic ${basic}`);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/S8 \/api\/v2\/account\/assets \| HTTP 500 .*"authorization":"Basic \[redacted\]"/);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/ECONNREFUSED/);
    expect(found(plan.stdout + plan.stderr + failed.stdout + failed.stderr + unreachable.stdout + unreachable.stderr)).toEqual([]);
  });
});
