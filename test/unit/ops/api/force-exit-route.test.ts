// The control API's force exit and realised-PnL reads over HTTP on a fake Control: POST
// /strategies/:id/force-exit takes {symbol, reason?} (anything else is 400, nothing reaching the Control), answers the
// Control's 200, 404 and 409, is a command (403 when commands are off); GET /profit and /performance answer with
// their schemas' shapes; the OpenAPI document describes them.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { API_PREFIX, ROUTES } from '../../../../src/ops/api/routes.js';
import { ControlServer } from '../../../../src/ops/api/server.js';
import { FakeControl, HEALTHY, METRICS } from './fake-control.js';

const TOKEN = 'api-t0ken-for-force-exit-tests';
const health = HEALTHY;
const metrics = METRICS;

let server: ControlServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(commands = true) {
  const control = new FakeControl();
  server = new ControlServer({ health, metrics, token: TOKEN, control, commands });
  const url = await server.listen(0, '127.0.0.1');
  return { base: `http://127.0.0.1:${new URL(url).port}`, control };
}

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${API_PREFIX}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'x-sextant-client': 'cli', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: JSON.parse(await res.text()) as Record<string, unknown> };
}

describe('POST /strategies/:id/force-exit', () => {
  it('passes the strategy, the symbol, the reason and who asked to the Control, and answers what it answered', async () => {
    const { base, control } = await start();
    expect(await call(base, 'POST', '/strategies/mm/force-exit', { symbol: 'BTCUSDT_SPBL', reason: 'inventory too large' })).toEqual({
      status: 200,
      body: { ok: true, detail: 'force-exit done' },
    });
    expect(control.calls).toEqual([{ command: 'force-exit', args: ['mm', 'BTCUSDT_SPBL', 'inventory too large'], actor: { via: 'cli', who: 'token' } }]);
    expect(await call(base, 'POST', '/strategies/mm/force-exit', { symbol: 'BTCUSDT_SPBL' })).toMatchObject({ status: 200 });
    expect(control.calls[1]!.args).toEqual(['mm', 'BTCUSDT_SPBL', undefined]);
    expect(await call(base, 'POST', '/strategies/nope/force-exit', { symbol: 'BTCUSDT_SPBL' })).toEqual({ status: 404, body: { error: 'no strategy nope' } });
    expect(await call(base, 'POST', '/strategies/mm/force-exit', { symbol: 'cmt_btcusdt' })).toEqual({
      status: 409,
      body: { error: 'nothing to close: mm holds nothing on cmt_btcusdt by its fills' },
    });
  });

  it('refuses a body without a symbol, or with anything else, with 400; and 403 when commands are off', async () => {
    const { base, control } = await start();
    for (const [body, error] of [
      [{}, /^body\.symbol: /],
      [{ symbol: '' }, /^body\.symbol: /],
      [{ symbol: 'BTCUSDT_SPBL', size: '1' }, /^body: Unrecognized key: "size"/],
      [undefined, /^body/],
    ] as const) {
      const r = await call(base, 'POST', '/strategies/mm/force-exit', body);
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
      expect(r.body.error).toMatch(error);
    }
    expect(control.calls).toEqual([]);
    await server!.close();
    const off = await start(false);
    expect((await call(off.base, 'POST', '/strategies/mm/force-exit', { symbol: 'BTCUSDT_SPBL' })).status).toBe(403);
    expect(off.control.calls).toEqual([]);
  });
});

describe('GET /profit and /performance', () => {
  it("answer the Control's reads with their schemas' shapes, and are in the OpenAPI document", async () => {
    const { base, control } = await start();
    for (const path of ['/profit', '/performance']) {
      const r = await call(base, 'GET', path);
      const schema = ROUTES.find((x) => x.method === 'GET' && x.path === path)!.ok as z.ZodType;
      expect({ path, status: r.status, valid: schema.safeParse(r.body).success }).toEqual({ path, status: 200, valid: true });
    }
    expect((await call(base, 'GET', '/profit')).body).toEqual(control.profit());
    expect((await call(base, 'GET', '/performance')).body).toEqual(control.performance());
    const doc = (await call(base, 'GET', '/openapi.json')).body as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: { required?: string[] } }> }; responses: Record<string, unknown> }>
      >;
    };
    const op = doc.paths[`${API_PREFIX}/strategies/{id}/force-exit`]!.post!;
    expect(Object.keys(op.responses).sort()).toEqual(expect.arrayContaining(['200', '400', '403', '404', '409']));
    expect(op.requestBody!.content['application/json']!.schema.required).toEqual(['symbol']);
    expect(doc.paths[`${API_PREFIX}/profit`]!.get).toBeDefined();
    expect(doc.paths[`${API_PREFIX}/performance`]!.get).toBeDefined();
  });
});
