// The dashboard's routes on a fastify server: the page at / loading only this origin's assets (no inline script,
// no CDN) under a strict content security policy; the script, the stylesheet and lightweight-charts' standalone
// build as node_modules has it; ETags answered 304; nothing else under /dashboard/. Over HTTP on loopback. The served script compiles and
// builds nothing from HTML strings.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { DASHBOARD_CSP, dashboardRoutes } from '../../../../src/ops/dashboard/index.js';

let app: FastifyInstance;
let base = '';

beforeAll(async () => {
  app = Fastify();
  await app.register(dashboardRoutes);
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

/** A request over HTTP: status, headers (lower-case names) and body text. */
async function get(path: string, init: RequestInit = {}) {
  const res = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
  return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

afterAll(async () => {
  await app.close();
});

describe('dashboard routes', () => {
  it("serves the page: this origin's script and style only, under the content security policy", async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const srcs = [...res.body.matchAll(/<script([^>]*)>/g)].map((m) => /src="([^"]+)"/.exec(m[1]!)?.[1]);
    expect(srcs).toEqual(['/dashboard/lightweight-charts.js', '/dashboard/app.js']);
    expect(res.body).not.toMatch(/<script[^>]*>[^<]/); // no inline script
    expect(res.body).not.toMatch(/https?:\/\//); // nothing from elsewhere
    expect(res.body).not.toMatch(/ style=/); // no inline style (the policy refuses it)
    for (const id of ['trading-state', 'strategies', 'orders', 'fills', 'balances', 'positions', 'budget', 'polls', 'events', 'equity', 'drawdown'])
      expect(res.body).toContain(`id="${id}"`);
  });

  it("serves lightweight-charts' standalone build as node_modules has it, the script and the stylesheet", async () => {
    const root = dirname(createRequire(import.meta.url).resolve('lightweight-charts/package.json'));
    const lib = await get('/dashboard/lightweight-charts.js');
    expect(lib.statusCode).toBe(200);
    expect(lib.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(lib.body).toBe(readFileSync(join(root, 'dist', 'lightweight-charts.standalone.production.js'), 'utf8'));
    const css = await get('/dashboard/style.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toContain('.state[data-state=halted]');
    const js = await get('/dashboard/app.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(() => new vm.Script(js.body)).not.toThrow();
    // Text goes in as text: no HTML parsing of what the API sends.
    expect(js.body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    expect(js.body).toContain("'/api/v1'");
  });

  it('answers an unchanged asset 304 by its ETag, and 404 for anything else under /dashboard/', async () => {
    const first = await get('/dashboard/app.js');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get('/dashboard/app.js', { headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await get('/dashboard/app.js', { headers: { 'if-none-match': '"other"' } })).statusCode).toBe(200);
    expect((await get('/dashboard/../package.json')).statusCode).toBe(404);
    expect((await get('/dashboard/nothing.js')).statusCode).toBe(404);
    expect((await get('/', { method: 'POST' })).statusCode).toBe(404);
  });
});
