// The authentication halt: after N venue auth/permission failures in a row, signed requests stop locally (public ones
// go on), until reset; a success clears the count; 40008 (timestamp, resynced) is not an authentication failure, and
// neither is a 403 without the venue's code (a proxy, CDN or firewall in front of the venue: it never saw the keys).
import { afterEach, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import type { ExchangeError } from '../../src/exchange/errors.js';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { RestClient } from '../../src/exchange/live/rest-client.js';
import { Transport } from '../../src/exchange/live/transport.js';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeVenue, envelopeError } from '../fixtures/fake-venue.js';
import { caught, clientFor } from '../fixtures/live-client.js';

const CREDS = { apiKey: 'k-halt', apiSecret: 's-halt', passphrase: 'p-halt' };
const BIG = { spot: { ip: 1e9, uid: 1e9 }, futures: { ip: 1e9, uid: 1e9 }, windowMs: 10_000, orderRequestsPerSecond: 1e9 };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function sim(): Promise<{ server: SimServer; url: string }> {
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 11, startMs: systemClock.now(), tickIntervalMs: 50 });
  const server = new SimServer({
    market,
    accounts: { spot: { USDT: '1000' }, futuresCollateral: '1000', leverage: 20 },
    credentials: CREDS,
    budget: BIG,
    clock: systemClock,
    logger: silentLogger,
  });
  const url = await server.listen(0, '127.0.0.1');
  closers.push(() => server.close());
  return { server, url };
}

function connect(url: string, over: Parameters<typeof clientFor>[1]): LiveClient {
  const c = clientFor({ url, opts: CREDS } as never, over);
  closers.push(() => c.close());
  return c;
}

describe('authentication halt', () => {
  it('wrong secret: exactly N signed requests reach the venue, then none; public requests still go; reset lets one through', async () => {
    const { server, url } = await sim();
    const c = connect(url, { credentials: { ...CREDS, apiSecret: 'wrong' }, authFailuresBeforeHalt: 3 });
    const errors: ExchangeError[] = [];
    errors.push(await caught(c.balances('futures')));
    errors.push(await caught(c.openOrders('futures', 'cmt_btcusdt')));
    expect(c.authHalt()).toBeUndefined();
    errors.push(await caught(c.spot.assets()));
    expect(server.snapshot().authFailures).toBe(3);
    const halt = c.authHalt()!;
    expect(halt.reason).toMatch(/^signed requests stopped after 3 authentication errors in a row \(last: S8 code 40009: API verification failed\)/);
    expect(Math.abs(halt.atMs - Date.now())).toBeLessThan(5000);
    expect(errors.map((e) => [e.category, e.code])).toEqual([
      ['auth', '40009'],
      ['auth', '40009'],
      ['auth', '40009'],
    ]);

    const before = server.snapshot().requests;
    for (const e of [
      await caught(c.balances('spot')),
      await caught(c.fills('futures', 'cmt_btcusdt')),
      await caught(c.order('futures', 'cmt_btcusdt', { orderId: '1' })),
    ]) {
      expect(e).toMatchObject({ category: 'auth', outcomeUnknown: false, message: halt.reason });
    }
    const [placed] = await c.placeOrders('futures', 'cmt_btcusdt', [
      { clientOid: 'h_1', side: 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from('0.01'), positionSide: 'long' },
    ]);
    // Refused locally, so surely not placed: rejected, never unknown.
    expect(placed).toMatchObject({ outcome: 'rejected', clientOid: 'h_1' });
    const halted = await caught(c.futures.accounts());
    expect(halted).toMatchObject({ category: 'auth', retryable: false, outcomeUnknown: false, code: undefined, httpStatus: undefined });
    expect(halted.message).toBe(halt.reason);
    expect(server.snapshot().requests).toEqual(before);
    expect(server.snapshot().authFailures).toBe(3);

    // Public endpoints are not signed: they go on.
    expect((await c.tickers()).length).toBeGreaterThan(0);
    expect(server.snapshot().requests.F2).toBe((before.F2 ?? 0) + 1);

    c.resetAuthHalt();
    expect(c.authHalt()).toBeUndefined();
    await caught(c.futures.accounts());
    expect(server.snapshot().authFailures).toBe(4);
  });

  it('a signed request waiting in the limiter when the halt starts does not go out', async () => {
    const { server, url } = await sim();
    // A limiter that lets one request through at a time: the others wait in it while the first is answered.
    let tail: Promise<unknown> = Promise.resolve();
    const serial = {
      schedule: <T>(_e: unknown, send: () => Promise<T>): Promise<T> => {
        const run = tail.then(send);
        tail = run.catch(() => undefined).then(() => new Promise((r) => setTimeout(r, 20)));
        return run;
      },
      onRateLimited: async () => undefined,
    };
    const transport = new Transport({ timeoutMs: 2000 });
    closers.push(async () => transport.close());
    const rest = new RestClient({
      spotBaseUrl: url,
      futuresBaseUrl: url,
      credentials: { ...CREDS, passphrase: 'wrong' },
      locale: 'en-US',
      transport,
      limiter: serial as never,
      clock: systemClock,
      logger: silentLogger,
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      authFailuresBeforeHalt: 1,
    });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => rest.call('F3', {})));
    expect(results.map((r) => (r.status === 'rejected' ? ((r.reason as ExchangeError).code ?? 'local') : 'ok'))).toEqual([
      '40012',
      'local',
      'local',
      'local',
      'local',
    ]);
    expect(server.snapshot().requests.F3).toBe(1);
    expect(rest.authHalt()!.reason).toMatch(/after 1 authentication errors in a row \(last: F3 code 40012: Incorrect API key\/Passphrase\)/);
  });

  it("a proxy's plain 403 neither counts nor clears the count: three of them do not halt, three venue refusals do", async () => {
    const { server, url } = await sim();
    const good = connect(url, { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    server.faults.scripted.push({ endpoint: 'F3', kind: 'proxy-403', times: 3 });
    for (let i = 0; i < 3; i++) {
      const e = await caught(good.futures.accounts());
      expect(e).toMatchObject({ category: 'unavailable', retryable: true, httpStatus: 403, code: undefined });
      expect(e.message).toMatch(/^HTTP 403: <html>/);
    }
    expect(good.authHalt()).toBeUndefined();
    await good.futures.accounts();
    expect(server.snapshot().requests.F3).toBe(4);

    // Wrong keys: the proxy's answers between the venue's refusals leave the count as it was.
    const bad = connect(url, { credentials: { ...CREDS, apiKey: 'revoked' }, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    expect(await caught(bad.futures.accounts())).toMatchObject({ category: 'auth', code: '40006' });
    server.faults.scripted.push({ endpoint: 'F3', kind: 'proxy-403', times: 3 });
    for (let i = 0; i < 3; i++) expect(await caught(bad.futures.accounts())).toMatchObject({ category: 'unavailable', httpStatus: 403 });
    expect(bad.authHalt()).toBeUndefined();
    await caught(bad.futures.accounts());
    expect(bad.authHalt()).toBeUndefined();
    await caught(bad.futures.accounts());
    expect(bad.authHalt()!.reason).toMatch(/^signed requests stopped after 3 authentication errors in a row \(last: F3 code 40006: Invalid ACCESS_KEY\)/);
    expect(bad.authHalt()!.reason).toMatch(/then run `sextant clear-auth-halt`$/);
    expect(server.snapshot().authFailures).toBe(3);
    expect(server.snapshot().requests.F3).toBe(4 + 6);
  });

  it('the default is 3', async () => {
    const { server, url } = await sim();
    const c = connect(url, { credentials: { ...CREDS, apiKey: 'nope' } });
    for (let i = 0; i < 5; i++) await caught(c.balances('spot'));
    expect(server.snapshot().authFailures).toBe(3);
  });
});

describe('what counts', () => {
  let venue: FakeVenue;
  async function fake(): Promise<FakeVenue> {
    venue = await FakeVenue.start();
    closers.push(() => venue.close());
    return venue;
  }

  it('a success clears the count: failures that are not in a row never halt', async () => {
    await fake();
    const c = connect(venue.url, {
      authFailuresBeforeHalt: 2,
      credentials: { apiKey: venue.opts.apiKey, apiSecret: venue.opts.apiSecret, passphrase: venue.opts.passphrase },
    });
    const denied = { status: 400, body: envelopeError('40014', 'Invalid permissions') };
    for (let i = 0; i < 3; i++) {
      venue.script('F3', denied);
      await expect(c.futures.accounts()).rejects.toMatchObject({ category: 'permission' });
      await c.futures.accounts();
    }
    expect(c.authHalt()).toBeUndefined();
    venue.script('F3', denied, denied);
    await caught(c.futures.accounts());
    await caught(c.futures.accounts());
    expect(c.authHalt()!.reason).toMatch(/after 2 authentication errors in a row \(last: F3 code 40014: Invalid permissions\)/);
  });

  it('other failures neither count nor clear; public answers do not clear either', async () => {
    await fake();
    const c = connect(venue.url, {
      authFailuresBeforeHalt: 2,
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      credentials: { apiKey: venue.opts.apiKey, apiSecret: venue.opts.apiSecret, passphrase: venue.opts.passphrase },
    });
    venue.script(
      'F3',
      { status: 400, body: envelopeError('40006', 'Invalid ACCESS_KEY') },
      { status: 400, body: envelopeError('40020', 'Parameter is invalid') },
      { status: 521, body: '<html>down</html>' },
    );
    await caught(c.futures.accounts());
    await caught(c.futures.accounts());
    await c.futures.tickers();
    await caught(c.futures.accounts());
    expect(c.authHalt()!.reason).toMatch(/last: F3 HTTP 521: <html>down<\/html>\)/);
  });

  it("only the venue's own codes count: a 403 or 401 without one (a firewall's JSON or page, an empty body) does not; its 40022 does", async () => {
    await fake();
    const c = connect(venue.url, {
      authFailuresBeforeHalt: 2,
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      credentials: { apiKey: venue.opts.apiKey, apiSecret: venue.opts.apiSecret, passphrase: venue.opts.passphrase },
    });
    const denied = { status: 403, body: envelopeError('40022', 'Insufficient permissions for this operation') };
    venue.script('F3', { status: 403, body: '{"message":"Forbidden"}' }, { status: 403, body: '' }, { status: 403, body: '{"error":"Forbidden"}' });
    for (let i = 0; i < 3; i++) expect(await caught(c.futures.accounts())).toMatchObject({ category: 'unavailable', retryable: true, httpStatus: 403 });
    // A bare 401 is still an authentication error, but carries no venue code: not counted either.
    venue.script('F3', { status: 401, body: '<html><body>401 Authorization Required</body></html>' }, { status: 401, body: '' });
    for (let i = 0; i < 2; i++) expect(await caught(c.futures.accounts())).toMatchObject({ category: 'auth', httpStatus: 401, code: undefined });
    expect(c.authHalt()).toBeUndefined();
    venue.script('F3', denied, denied);
    expect(await caught(c.futures.accounts())).toMatchObject({ category: 'permission', code: '40022' });
    expect(c.authHalt()).toBeUndefined();
    await caught(c.futures.accounts());
    expect(c.authHalt()!.reason).toMatch(/after 2 authentication errors in a row \(last: F3 code 40022: Insufficient permissions for this operation\)/);
  });

  it('40008 (timestamp expired) goes through the clock resync and is never counted as an authentication failure', async () => {
    await fake();
    const c = connect(venue.url, {
      authFailuresBeforeHalt: 1,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      credentials: { apiKey: venue.opts.apiKey, apiSecret: venue.opts.apiSecret, passphrase: venue.opts.passphrase },
    });
    const expired = { status: 400, body: envelopeError('40008', 'Request timestamp expired') };
    for (let i = 0; i < 3; i++) {
      venue.script('F3', expired);
      await c.futures.accounts();
    }
    venue.script('F3', expired, expired);
    await expect(c.futures.accounts()).rejects.toMatchObject({ category: 'timestamp' });
    expect(c.authHalt()).toBeUndefined();
    expect(venue.calls('F0').length).toBeGreaterThanOrEqual(4);
    await c.futures.accounts();
  });

  it('the clock resync itself after 40008 on a skewed venue: no halt, the request succeeds', async () => {
    venue = await FakeVenue.start({ clockSkewMs: 45_000 });
    closers.push(() => venue.close());
    const c = connect(venue.url, {
      authFailuresBeforeHalt: 1,
      credentials: { apiKey: venue.opts.apiKey, apiSecret: venue.opts.apiSecret, passphrase: venue.opts.passphrase },
    });
    await c.futures.accounts();
    await c.spot.assets();
    expect(c.authHalt()).toBeUndefined();
  });
});
