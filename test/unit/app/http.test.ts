// The ops endpoints over HTTP: who needs the bearer token where, and how the token is read.
import { afterEach, describe, expect, it } from '@jest/globals';
import { Metrics, OpsServer, isLoopback, type HealthSource } from '../../../src/app/http.js';

const TOKEN = 'ops-t0ken-for-tests-7c41';
const source: HealthSource = {
  health: () => ({ ok: true, detail: { strategies: [{ id: 'mm', errors: 0, faulted: false }] } }),
  ready: () => ({ ok: true, detail: { fenced: false, tradingState: 'active' } }),
};

let server: OpsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Starts a server bound to `host` on a free port; requests go to loopback, which any binding here answers. */
async function start(host: string, token: string): Promise<string> {
  server = new OpsServer(new Metrics(), source, token);
  const url = await server.listen(0, host);
  return `http://127.0.0.1:${new URL(url).port}`;
}

const status = async (url: string, authorization?: string) => (await fetch(url, authorization ? { headers: { authorization } } : {})).status;

describe('ops server bound beyond loopback', () => {
  it('every path needs the token: /health and /ready too', async () => {
    const base = await start('0.0.0.0', TOKEN);
    for (const path of ['/health', '/ready', '/metrics', '/nope']) {
      const res = await fetch(`${base}${path}`);
      expect({ path, status: res.status, challenge: res.headers.get('www-authenticate') }).toEqual({ path, status: 401, challenge: 'Bearer' });
      expect(await res.text()).not.toMatch(/strategies|fenced|tradingState/);
    }
    expect(await status(`${base}/health`, `Bearer ${TOKEN}`)).toBe(200);
    expect(await status(`${base}/ready`, `Bearer ${TOKEN}`)).toBe(200);
    expect(await status(`${base}/metrics`, `Bearer ${TOKEN}`)).toBe(200);
  });

  it('the Bearer scheme in any case; a wrong, longer, shorter or missing token is refused', async () => {
    const base = await start('0.0.0.0', TOKEN);
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) expect(await status(`${base}/health`, `${scheme} ${TOKEN}`)).toBe(200);
    expect(await status(`${base}/health`, `Bearer  ${TOKEN} `)).toBe(200);
    for (const bad of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN.toUpperCase()}`,
      'Bearer',
      `Basic ${TOKEN}`,
      TOKEN,
      `Bearer ${TOKEN} extra`,
    ]) {
      expect({ bad, status: await status(`${base}/health`, bad) }).toEqual({ bad, status: 401 });
    }
  });
});

describe('ops server on loopback', () => {
  it('/health and /ready are open; /metrics needs the token', async () => {
    const base = await start('127.0.0.1', TOKEN);
    expect(await status(`${base}/health`)).toBe(200);
    expect(await status(`${base}/ready`)).toBe(200);
    expect(await status(`${base}/metrics`)).toBe(401);
    expect(await status(`${base}/metrics`, `bearer ${TOKEN}`)).toBe(200);
  });

  it('a source that fails (a scrape while Redis is down) answers 500 and the server goes on', async () => {
    server = new OpsServer(new Metrics(), { ...source, beforeScrape: () => Promise.reject(new Error('redis://:hunter2@10.0.0.1 is down')) }, TOKEN);
    const url = await server.listen(0, '127.0.0.1');
    const r = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(500);
    expect(await r.text()).not.toContain('hunter2');
    expect(await status(`${url}/health`)).toBe(200);
  });

  it('knows its loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.0.0.53', 'localhost', '::1', '::ffff:127.0.0.1']) expect({ h, loopback: isLoopback(h) }).toEqual({ h, loopback: true });
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '127.0.0.1.example.com', '1127.0.0.1'])
      expect({ h, loopback: isLoopback(h) }).toEqual({ h, loopback: false });
  });
});
