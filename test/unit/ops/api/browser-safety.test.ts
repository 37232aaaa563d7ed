// What a web page in the trader's browser can do to the daemon's HTTP server, over real HTTP: a foreign Host (a DNS
// rebinding page's name) is refused on every path; a state change from a foreign Origin or Referer is refused, token
// or not; a state change needs a credential on loopback too; the sign-in link sets an HttpOnly SameSite=Strict
// cookie that never holds the token; refusals are logged once a minute per status, method and caller's address.
import { afterEach, describe, expect, it } from '@jest/globals';
import { ControlServer, type Refusal } from '../../../../src/ops/api/server.js';
import { API_PREFIX, ROUTES } from '../../../../src/ops/api/routes.js';
import { dashboardRoutes } from '../../../../src/ops/dashboard/index.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { rawRequest } from '../../../fixtures/raw-http.js';
import { FakeControl, HEALTHY, METRICS } from './fake-control.js';

const TOKEN = 'browser-safety-t0ken-5d1e';
const health = HEALTHY;
const metrics = METRICS;

let server: ControlServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(opts: { allowedHosts?: string[]; allowedOrigins?: string[]; host?: string } = {}) {
  const control = new FakeControl();
  const refusals: Refusal[] = [];
  const clock = new ManualClock(1_000_000);
  server = new ControlServer({
    health,
    metrics,
    token: TOKEN,
    control,
    clock,
    plugins: [dashboardRoutes],
    onRefused: (r) => refusals.push(r),
    ...(opts.allowedHosts ? { allowedHosts: opts.allowedHosts } : {}),
    ...(opts.allowedOrigins ? { allowedOrigins: opts.allowedOrigins } : {}),
  });
  const url = await server.listen(0, opts.host ?? '127.0.0.1');
  const port = Number(new URL(url).port);
  return { port, control, refusals, clock };
}

const raw = rawRequest;

const bearer = { authorization: `Bearer ${TOKEN}` };
/** Every path the server answers: probes, scrape, dashboard, sign-in, and each route of the control API. */
const EVERY_GET = [
  '/health',
  '/ready',
  '/metrics',
  '/',
  '/dashboard/app.js',
  '/dashboard/style.css',
  `/login?token=${TOKEN}`,
  ...ROUTES.filter((r) => r.method === 'GET').map((r) => `${API_PREFIX}${r.path.replace(':clientOid', 'sx_mm_1')}`),
];
const EVERY_POST = ROUTES.filter((r) => r.method === 'POST').map((r) => `${API_PREFIX}${r.path.replace(':id', 'mm')}`);
const BODY = JSON.stringify({ reason: 'x' });
const bodyFor = (path: string) =>
  path.endsWith('/pause')
    ? JSON.stringify({ cancelOrders: false, reason: 'x' })
    : path.includes('force-exit')
      ? JSON.stringify({ symbol: 'BTCUSDT_SPBL', reason: 'x' })
      : BODY;

describe('the Host header', () => {
  it('a name the daemon does not serve is refused (421) on every path, token or not, before any route runs', async () => {
    const { port, control, refusals } = await start();
    for (const host of [`attacker.example:${port}`, 'attacker.example', `localhost.attacker.example:${port}`, `127.0.0.1.nip.io:${port}`, `[::2]:${port}`]) {
      for (const path of EVERY_GET) {
        const r = await raw(port, 'GET', path, { host, ...bearer });
        expect({ host, path, status: r.status }).toEqual({ host, path, status: 421 });
        expect(JSON.parse(r.body).error).toMatch(/is not served here.*daemon\.http\.allowedHosts/);
        expect(r.headers['set-cookie']).toBeUndefined();
      }
      for (const path of EVERY_POST) {
        const r = await raw(port, 'POST', path, { host, origin: `http://${host}`, ...bearer }, bodyFor(path));
        expect({ host, path, status: r.status }).toEqual({ host, path, status: 421 });
      }
    }
    // No Host at all is refused too (node's parser answers 400 before the server sees it).
    expect([400, 421]).toContain((await raw(port, 'GET', '/health', { host: '' })).status);
    expect(control.calls).toEqual([]);
    expect(control.refreshed).toBe(0);
    // One log line per kind and caller, not one per request.
    expect(refusals.filter((r) => r.host === `attacker.example:${port}`)).toHaveLength(2);
    expect(refusals[0]).toMatchObject({ status: 421, host: `attacker.example:${port}`, suppressed: 0 });
    expect(JSON.stringify(refusals)).not.toContain(TOKEN);
  });

  it("the daemon's own names pass: loopback's, and those configured (a name, a name on one port, a domain's names)", async () => {
    const { port } = await start({ allowedHosts: ['bot.example.com', 'prom.internal:9999', '*.lan.example'] });
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      'localhost',
      'bot.example.com',
      'Bot.Example.Com.',
      'prom.internal:9999',
      'box.lan.example:443',
    ]) {
      expect({ host, status: (await raw(port, 'GET', '/health', { host })).status }).toEqual({ host, status: 200 });
    }
    for (const host of ['prom.internal', 'prom.internal:9464', 'lan.example', 'evilbot.example.com', 'bot.example.com.attacker.example']) {
      expect({ host, status: (await raw(port, 'GET', '/health', { host })).status }).toEqual({ host, status: 421 });
    }
  });

  it("bound to every address: the machine's own addresses pass, names do not", async () => {
    const { port } = await start({ host: '0.0.0.0' });
    expect((await raw(port, 'GET', '/health', { ...bearer })).status).toBe(200);
    expect((await raw(port, 'GET', '/health', { host: `attacker.example:${port}`, ...bearer })).status).toBe(421);
  });
});

describe('the origin of a state change', () => {
  it('a foreign Origin is refused (403) for every POST, with a valid token too, and nothing reaches the Control', async () => {
    const { port, control } = await start();
    const foreign = [
      'http://attacker.example',
      `http://attacker.example:${port}`,
      'null',
      `https://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      'http://127.0.0.1',
      'not a url',
    ];
    for (const path of EVERY_POST) {
      for (const origin of foreign) {
        const r = await raw(port, 'POST', path, { origin, ...bearer }, bodyFor(path));
        expect({ path, origin, status: r.status }).toEqual({ path, origin, status: 403 });
        expect(JSON.parse(r.body).error).toMatch(/is not this daemon's/);
      }
      // No Origin: the Referer stands for it.
      const byReferer = await raw(port, 'POST', path, { referer: 'http://attacker.example/page', ...bearer }, bodyFor(path));
      expect({ path, status: byReferer.status }).toEqual({ path, status: 403 });
      // A browser's own word that the request is cross-site.
      const site = await raw(port, 'POST', path, { 'sec-fetch-site': 'cross-site', ...bearer }, bodyFor(path));
      expect({ path, status: site.status }).toEqual({ path, status: 403 });
    }
    expect(control.calls).toEqual([]);
  });

  it("the daemon's own origin and a configured one pass; no Origin at all (the command line) passes", async () => {
    const { port, control } = await start({ allowedHosts: ['bot.example.com'], allowedOrigins: ['https://bot.example.com'] });
    const halt = (headers: Record<string, string>) => raw(port, 'POST', `${API_PREFIX}/trading/halt`, { ...bearer, ...headers }, BODY);
    expect((await halt({ origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await halt({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await halt({ host: 'bot.example.com', origin: 'https://bot.example.com' })).status).toBe(200);
    expect((await halt({ referer: `http://127.0.0.1:${port}/` })).status).toBe(200);
    expect((await halt({})).status).toBe(200);
    expect(control.calls).toHaveLength(5);
    // A plain cross-site form post is refused by its body's type whatever its origin says (kept from before).
    const form = await raw(port, 'POST', `${API_PREFIX}/trading/halt`, { ...bearer, 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
  });
});

describe('the credential', () => {
  it('a state change needs it on loopback: none, a wrong one, or an old session cookie is refused (401)', async () => {
    const { port, control } = await start();
    const own = { origin: `http://127.0.0.1:${port}` };
    for (const path of EVERY_POST) {
      const refused: Array<Record<string, string>> = [
        {},
        { authorization: `Bearer ${TOKEN}0` },
        { authorization: 'Bearer ' },
        { cookie: `sextant_session_${port}=${TOKEN}` },
        { cookie: 'sextant_session=abc' },
      ];
      for (const headers of refused) {
        const r = await raw(port, 'POST', path, { ...own, ...headers }, bodyFor(path));
        expect({ path, headers, status: r.status }).toEqual({ path, headers, status: 401 });
      }
    }
    // Reads, the event stream and the scrape need it too; the probes and the page's files do not.
    for (const path of [`${API_PREFIX}/status`, `${API_PREFIX}/balances`, `${API_PREFIX}/stream`, '/metrics'])
      expect({ path, status: (await raw(port, 'GET', path, {})).status }).toEqual({ path, status: 401 });
    for (const path of ['/health', '/ready', '/', '/dashboard/app.js'])
      expect({ path, status: (await raw(port, 'GET', path, {})).status }).toEqual({ path, status: 200 });
    expect(control.calls).toEqual([]);
  });

  it('the sign-in link sets an HttpOnly SameSite=Strict cookie (not the token) that reads and commands accept, as the dashboard', async () => {
    const { port, control } = await start();
    const wrong = await raw(port, 'GET', `/login?token=${TOKEN}x`, {});
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(wrong.body).toMatch(/sextant dashboard/);
    const signIn = await raw(port, 'GET', `/login?token=${encodeURIComponent(TOKEN)}`, {});
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe('/');
    expect(signIn.headers['cache-control']).toBe('no-store');
    const cookie = signIn.headers['set-cookie']![0]!;
    expect(cookie).toMatch(new RegExp(`^sextant_session_${port}=[A-Za-z0-9_-]{40,}; Path=/; HttpOnly; SameSite=Strict$`));
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0]!;
    expect((await raw(port, 'GET', `${API_PREFIX}/status`, { cookie: `other=1; ${session}` })).status).toBe(200);
    const halt = await raw(port, 'POST', `${API_PREFIX}/trading/halt`, { cookie: session, origin: `http://127.0.0.1:${port}` }, BODY);
    expect(halt.status).toBe(200);
    expect(control.calls[0]!.actor).toEqual({ via: 'dashboard', who: 'session' });
    // Another port's cookie of the same value is not this daemon's.
    expect((await raw(port, 'GET', `${API_PREFIX}/status`, { cookie: session.replace(`_${port}=`, '_1=') })).status).toBe(401);
    // The page and its script hold no credential.
    for (const path of ['/', '/dashboard/app.js']) {
      const page = await raw(port, 'GET', path, { cookie: session });
      expect(page.body).not.toContain(TOKEN);
      expect(page.body).not.toContain(session.split('=')[1]!);
      expect(page.headers['referrer-policy']).toBe('same-origin');
    }
  });
});

describe('refusals in the log', () => {
  it("one line a minute per status, method and caller's address, with the count of those in between", async () => {
    const { port, refusals, clock } = await start();
    for (let i = 0; i < 5; i++) await raw(port, 'POST', `${API_PREFIX}/trading/halt`, { origin: 'http://attacker.example' }, BODY);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ status: 403, method: 'POST', path: `${API_PREFIX}/trading/halt`, origin: 'http://attacker.example', suppressed: 0 });
    await raw(port, 'GET', `${API_PREFIX}/status`, {});
    expect(refusals).toHaveLength(2);
    expect(refusals[1]).toMatchObject({ status: 401 });
    clock.advance(60_000);
    await raw(port, 'POST', `${API_PREFIX}/trading/halt`, { origin: 'http://attacker.example' }, BODY);
    expect(refusals).toHaveLength(3);
    expect(refusals[2]).toMatchObject({ status: 403, suppressed: 4 });
    // A page varying what it sends (its Referer, its rebinding name) is still one caller.
    clock.advance(60_000);
    for (let i = 0; i < 30; i++) {
      await raw(port, 'POST', `${API_PREFIX}/trading/halt`, { referer: `http://attacker.example/${i}` }, BODY);
      await raw(port, 'GET', '/health', { host: `a${i}.attacker.example:${port}` });
    }
    expect(refusals.slice(3).map((r) => [r.status, r.method])).toEqual([
      [403, 'POST'],
      [421, 'GET'],
    ]);
  });
});
