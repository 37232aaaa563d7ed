// The control API over HTTP on a fake Control: every route's answer and its schema, bad input named, unknown
// strategies and orders, the token on loopback and beyond it, commands switched off, who gave a command, the
// OpenAPI document (validated), and the event stream (events, heartbeat by the clock, closed on shutdown). The
// Host, Origin and cookie checks are browser-safety.test.ts's.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterEach, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ControlServer } from '../../../../src/ops/api/server.js';
import { API_PREFIX, ROUTES } from '../../../../src/ops/api/routes.js';
import { sseFrame } from '../../../../src/ops/api/sse.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { FakeControl, HEALTHY, METRICS } from './fake-control.js';

const TOKEN = 'api-t0ken-for-tests-9f2';
const health = HEALTHY;
const metrics = METRICS;

let server: ControlServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(opts: { host?: string; commands?: boolean; control?: FakeControl; clock?: ManualClock } = {}) {
  const control = opts.control ?? new FakeControl();
  server = new ControlServer({ health, metrics, token: TOKEN, control, commands: opts.commands ?? true, ...(opts.clock ? { clock: opts.clock } : {}) });
  const url = await server.listen(0, opts.host ?? '127.0.0.1');
  return { base: `http://127.0.0.1:${new URL(url).port}`, control };
}

/** A request with the token unless `token` says otherwise (null: none). */
const call = async (base: string, method: string, path: string, opts: { body?: unknown; token?: string | null; headers?: Record<string, string> } = {}) => {
  const token = opts.token === undefined ? TOKEN : opts.token;
  const res = await fetch(`${base}${API_PREFIX}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    ...(opts.body !== undefined ? { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown>, challenge: res.headers.get('www-authenticate') };
};

const GETS: Array<[string, string]> = [
  ['/status', '/status'],
  ['/strategies', '/strategies'],
  ['/orders', '/orders?scope=recent&strategy=mm&limit=1'],
  ['/orders/:clientOid', '/orders/sx_mm_1'],
  ['/fills', '/fills?strategy=mm&limit=5'],
  ['/balances', '/balances'],
  ['/positions', '/positions'],
  ['/equity', '/equity?since=2000'],
  ['/events', '/events?limit=10'],
];
const COMMANDS: Array<[string, unknown]> = [
  ['/strategies/mm/pause', { cancelOrders: true, reason: 'inventory check' }],
  ['/strategies/mm/resume', {}],
  ['/strategies/mm/cancel-orders', undefined],
  ['/reload', undefined],
  ['/trading/halt', { reason: 'venue incident' }],
  ['/trading/reduce', { reason: 'wind down' }],
  ['/trading/reset', { reason: 'all clear' }],
];

describe('the control API on loopback, with the token', () => {
  it("answers every read with its schema's shape", async () => {
    const { base, control } = await start();
    control.emit({ kind: 'order', atMs: 5, text: 'mm BTCUSDT_SPBL: sx_mm_1 accepted', data: { type: 'accepted' } });
    for (const [route, path] of GETS) {
      const r = await call(base, 'GET', path);
      const schema = ROUTES.find((x) => x.method === 'GET' && x.path === route)!.ok as z.ZodType;
      expect({ path, status: r.status, valid: schema.safeParse(r.body).success }).toEqual({ path, status: 200, valid: true });
    }
    expect(control.refreshed).toBe(1);
    expect((await call(base, 'GET', '/orders?scope=recent&limit=1')).body).toHaveLength(1);
    expect((await call(base, 'GET', '/equity?since=2000')).body).toEqual([{ surface: 'spot', value: '10001.5', atMs: 5_000 }]);
    // Ids above 2^53 and decimals stay strings, digit for digit.
    expect((await call(base, 'GET', '/orders')).body).toEqual([expect.objectContaining({ orderId: '700000000000000000123', price: '90000.5' })]);
  });

  it('takes every command, with who gave it: the surface from the client header, and how it proved itself', async () => {
    const { base, control } = await start();
    for (const [path, body] of COMMANDS) {
      const r = await call(base, 'POST', path, { ...(body !== undefined ? { body } : {}), headers: { 'x-sextant-client': 'cli' } });
      expect({ path, status: r.status, ok: r.body.ok }).toEqual({ path, status: 200, ok: true });
    }
    expect(control.calls.map((c) => c.command)).toEqual(['pause', 'resume', 'cancel-orders', 'reload', 'halt', 'reduce', 'reset']);
    expect(control.calls[0]).toEqual({
      command: 'pause',
      args: ['mm', { cancelOrders: true, reason: 'inventory check' }],
      actor: { via: 'cli', who: 'token' },
    });
    expect(control.calls[4]!.args).toEqual(['venue incident']);
    // A refusal keeps its status and says why.
    expect(await call(base, 'POST', '/trading/flatten', { body: { reason: 'now' }, headers: { 'x-sextant-client': 'robot' } })).toMatchObject({
      status: 409,
      body: { error: 'a flatten pass is under way' },
    });
    expect(control.calls.at(-1)!.actor).toEqual({ via: 'api', who: 'token' });
  });

  it('refuses bad input with 400 naming the field, and nothing reaches the Control', async () => {
    const { base, control } = await start();
    const bad: Array<[string, string, unknown, RegExp]> = [
      ['GET', '/orders?limit=0', undefined, /^query\.limit: /],
      ['GET', '/orders?scope=all', undefined, /^query\.scope: /],
      ['GET', '/orders?limit=ten', undefined, /^query\.limit: /],
      ['GET', '/fills?limit=1001', undefined, /^query\.limit: /],
      ['GET', '/orders?stratgy=mm', undefined, /^query: Unrecognized key: "stratgy"/],
      ['GET', '/equity?since=yesterday', undefined, /^query\.since: /],
      ['GET', '/events?limit=501', undefined, /^query\.limit: /],
      ['GET', '/status?verbose=1', undefined, /^query: Unrecognized key/],
      ['POST', '/strategies/mm/pause', { cancelOrders: 'yes' }, /^body\.cancelOrders: /],
      ['POST', '/strategies/mm/pause', [1], /^body: /],
      ['POST', '/trading/halt', {}, /^body\.reason: /],
      ['POST', '/trading/halt', { reason: '   ' }, /^body\.reason: a reason is required/],
      ['POST', '/trading/reset', undefined, /^body\.reason: /],
      ['POST', '/trading/flatten', { reason: 'x', force: true }, /^body: Unrecognized key: "force"/],
      ['POST', '/trading/reduce', '{"reason":', /^body: not valid JSON$/],
    ];
    for (const [method, path, body, error] of bad) {
      const r = await call(base, method, path, body !== undefined ? { body } : {});
      expect({ path, status: r.status }).toEqual({ path, status: 400 });
      expect(r.body.error).toMatch(error);
    }
    expect(control.calls).toEqual([]);
  });

  it('answers 404 for an unknown strategy or order, and an unknown path', async () => {
    const { base } = await start();
    for (const [method, path] of [
      ['GET', '/orders?strategy=nope'],
      ['GET', '/fills?strategy=nope'],
      ['POST', '/strategies/nope/pause'],
      ['POST', '/strategies/nope/resume'],
      ['POST', '/strategies/nope/cancel-orders'],
      ['GET', '/orders/sx_nope_1'],
      ['GET', '/nothing'],
    ]) {
      const r = await call(base, method!, path!);
      expect({ path, status: r.status, error: typeof r.body.error }).toEqual({ path, status: 404, error: 'string' });
    }
  });
});

describe('the token', () => {
  it('on loopback too: the control API needs it, reads and commands; /health and /ready stay open', async () => {
    const { base, control } = await start();
    expect(await call(base, 'GET', '/status', { token: null })).toMatchObject({
      status: 401,
      challenge: 'Bearer',
      body: { error: expect.stringMatching(/^unauthorized/) },
    });
    expect((await call(base, 'GET', '/status', { token: 'wrong' })).status).toBe(401);
    expect((await call(base, 'GET', '/status', { token: TOKEN })).status).toBe(200);
    expect((await call(base, 'POST', '/trading/halt', { body: { reason: 'x' }, token: null })).status).toBe(401);
    expect((await call(base, 'POST', '/trading/halt', { body: { reason: 'x' }, token: `${TOKEN}x` })).status).toBe(401);
    expect(control.calls).toEqual([]);
    expect(await call(base, 'POST', '/trading/halt', { body: { reason: 'x' }, token: TOKEN })).toMatchObject({ status: 200, body: { ok: true } });
    expect(control.calls[0]!.actor).toEqual({ via: 'api', who: 'token' });
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/ready`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    // The path as routed, however it is spelt.
    for (const path of ['/%6detrics', `${API_PREFIX}/%73tatus`, `${API_PREFIX}/strategies/mm/%70ause`]) {
      const res = await fetch(`${base}${path}`, { method: path.endsWith('ause') ? 'POST' : 'GET' });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
    expect(control.calls).toHaveLength(1);
  });

  it('beyond loopback: every path needs it; a token shorter than 16 characters is refused', async () => {
    expect(() => new ControlServer({ health, metrics, token: 'short-token', control: new FakeControl() })).toThrow(/too short/);
    const { base } = await start({ host: '0.0.0.0' });
    for (const path of ['/health', '/ready', '/metrics', `${API_PREFIX}/status`, `${API_PREFIX}/openapi.json`, `${API_PREFIX}/stream`, '/']) {
      const res = await fetch(`${base}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(await res.text()).not.toContain(TOKEN);
    }
    expect((await call(base, 'GET', '/strategies', { token: TOKEN })).status).toBe(200);
  });
});

describe('commands switched off (daemon.http.commands: false)', () => {
  it('answers 403 to a valid token (401 first without one); reads go on', async () => {
    const { base, control } = await start({ commands: false });
    expect((await call(base, 'POST', '/trading/halt', { body: { reason: 'x' }, token: null })).status).toBe(401);
    const r = await call(base, 'POST', '/trading/halt', { body: { reason: 'x' }, token: TOKEN });
    expect(r).toMatchObject({ status: 403, body: { error: expect.stringMatching(/commands are disabled/) } });
    expect((await call(base, 'GET', '/status', { token: TOKEN })).status).toBe(200);
    expect((await call(base, 'POST', '/strategies/mm/pause', { body: {} })).status).toBe(403);
    expect(control.calls).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 and describes every route with its parameters, body and answers', async () => {
    const { base } = await start();
    const doc = (await call(base, 'GET', '/openapi.json')).body as {
      openapi: string;
      paths: Record<string, Record<string, { parameters: Array<{ name: string }>; requestBody?: unknown; responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
    // The validator does refuse a broken document (a parameter of an unknown kind).
    const broken = structuredClone(doc);
    (broken.paths[`${API_PREFIX}/orders`]!.get!.parameters[0] as unknown as { in: string }).in = 'body';
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow();
    for (const r of ROUTES) {
      const op = doc.paths[`${API_PREFIX}${r.path}`.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()];
      expect({ route: r.path, described: !!op }).toEqual({ route: r.path, described: true });
      expect(op!.responses['200']).toBeDefined();
      expect(op!.responses['401']).toBeDefined();
      if (r.kind === 'command') expect(op!.responses['403']).toBeDefined();
      if (r.body) expect(op!.requestBody).toBeDefined();
    }
    expect(doc.paths[`${API_PREFIX}/orders`]!.get!.parameters.map((p) => p.name)).toEqual(['scope', 'strategy', 'limit']);
    expect(doc.paths[`${API_PREFIX}/strategies/{id}/pause`]!.post!.parameters.map((p) => p.name)).toEqual(['id']);
  });
});

/** Reads the stream until `want` has arrived; returns everything read. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, seen: { text: string }, want: string): Promise<string> {
  const decoder = new TextDecoder();
  while (!seen.text.includes(want)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${JSON.stringify(want)}: ${seen.text}`);
    seen.text += decoder.decode(value, { stream: true });
  }
  return seen.text;
}

describe('the event stream', () => {
  it('carries each event as `event: <kind>` and its JSON, a heartbeat every 15 s of the clock, and ends on shutdown', async () => {
    const clock = new ManualClock(0);
    const { base, control } = await start({ clock });
    const res = await fetch(`${base}${API_PREFIX}/stream`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const seen = { text: '' };
    await readUntil(reader, seen, ': connected');
    expect(control.listening).toBe(1);
    const fill = {
      kind: 'fill' as const,
      atMs: 7,
      text: 'mm BTCUSDT_SPBL: sx_mm_1 buy filled 0.002 at 90000.5',
      data: { clientOid: 'sx_mm_1', orderId: '700000000000000000123' },
    };
    control.emit(fill);
    await readUntil(reader, seen, '"fill"');
    expect(seen.text).toContain(sseFrame(fill));
    expect(sseFrame(fill)).toBe(`event: fill\ndata: ${JSON.stringify(fill)}\n\n`);
    expect(seen.text).not.toContain('heartbeat');
    clock.advance(14_999);
    control.emit({ ...fill, kind: 'state', text: 'trading halted' });
    await readUntil(reader, seen, 'event: state');
    expect(seen.text).not.toContain('heartbeat');
    clock.advance(1);
    await readUntil(reader, seen, ': heartbeat\n\n');
    clock.advance(15_000);
    expect((await readUntil(reader, seen, ': heartbeat\n\n: heartbeat\n\n')).match(/heartbeat/g)).toHaveLength(2);
    await server!.close();
    server = undefined;
    for (;;) if ((await reader.read()).done) break;
    expect(control.listening).toBe(0);
  });

  it('lets a client go: its listener is removed when it disconnects', async () => {
    const { base, control } = await start();
    const controller = new AbortController();
    const res = await fetch(`${base}${API_PREFIX}/stream`, { signal: controller.signal, headers: { authorization: `Bearer ${TOKEN}` } });
    const reader = res.body!.getReader();
    await readUntil(reader, { text: '' }, ': connected');
    expect(control.listening).toBe(1);
    controller.abort();
    // The server notices the close on its side: a request after it is answered once the socket is gone.
    for (let i = 0; i < 50 && control.listening > 0; i++) await call(base, 'GET', '/status');
    expect(control.listening).toBe(0);
  });
});
