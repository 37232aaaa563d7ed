// A fake of the control API's contract (/api/v1) for the dashboard's page tests: canned JSON the test can change,
// an event stream the test pushes to, commands recorded (with an answer the test chooses). It is served by the real
// ControlServer (its Host, origin and credential checks, its /login sign-in link and session cookie) beside the real
// dashboard routes: a page opened through `signInUrl` is signed in, one opened at `url` is not.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ControlServer } from '../../../../src/ops/api/server.js';
import type { Actor, ControlEvent, ControlStatus, FillView, OrderView, StrategyView } from '../../../../src/ops/control.js';
import { dashboardRoutes } from '../../../../src/ops/dashboard/index.js';

export interface FakeState {
  status: ControlStatus;
  strategies: StrategyView[];
  orders: OrderView[];
  fills: FillView[];
  balances: Array<{ surface: string; asset: string; total: string; available: string | null }>;
  positions: Array<{
    symbol: string;
    side: string;
    size: string;
    entryPrice: string | null;
    markPrice: string | null;
    unrealizedPnl: string | null;
    liquidationPrice: string | null;
  }>;
  equity: Array<{ surface: string; value: string; atMs: number }>;
  events: ControlEvent[];
}

/** The token the fake's server is given (the real server takes 16 characters at least). */
export const FAKE_TOKEN = 'page-test-t0ken-8c2d41';

export interface FakeControlApi {
  /** The server's root: the dashboard, not signed in. */
  url: string;
  /** The dashboard's sign-in link (/login?token=…): the session cookie, then the dashboard. */
  signInUrl: string;
  state: FakeState;
  /** Commands received: path, body and how the caller proved itself (`session`: the dashboard's cookie). */
  commands: Array<{ path: string; body: unknown; who: string }>;
  /** How each read's caller proved itself, in order. */
  readsBy: string[];
  /** The next command's answer (default: ok). */
  answerNext(status: number, body: unknown): void;
  /** Sends an event to every open stream; resolves with how many got it. */
  push(e: ControlEvent): number;
  streams(): number;
  close(): Promise<void>;
}

export const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);

export function cannedState(): FakeState {
  const order = (n: number, strategyId: string, symbol: string, side: string): OrderView => ({
    clientOid: `c${n}_${strategyId}_x`,
    orderId: `90071992547409${90 + n}`,
    strategyId,
    surface: symbol.endsWith('_SPBL') ? 'spot' : 'futures',
    symbol,
    side,
    kind: 'limit',
    price: `6543${n}.10`,
    size: '0.002',
    filledSize: '0',
    avgPrice: null,
    state: 'open',
    role: null,
    createdAtMs: T0 + 1000 * n,
    updatedAtMs: T0 + 1000 * n,
  });
  return {
    status: {
      version: '0.0.0-test',
      mode: 'live',
      venue: 'embedded simulator http://127.0.0.1:40000',
      startedAtMs: T0 - 3_725_000,
      nowMs: T0 + 60_000,
      tradingState: 'halted',
      latches: [{ name: 'kill-switch', reason: 'drawdown 12 % > 10 %', atMs: T0 }],
      fenced: null,
      reconciliation: { lastAtMs: T0 + 55_000, unresolved: 0 },
      budget: [
        { pool: 'futures:ip', available: 900, queued: 0 },
        { pool: 'spot:uid', available: 100, queued: 3 },
        { pool: 'futures:orders', available: null, queued: 0 },
      ],
      polls: [
        { poll: 'tickers', ageMs: 400 },
        { poll: 'positions', ageMs: null },
      ],
      lease: null,
    },
    strategies: [
      {
        id: 'mm-btc',
        name: 'spot-market-maker',
        symbols: ['BTCUSDT_SPBL'],
        params: {},
        state: 'running',
        errors: 0,
        lastError: null,
        pnl: { realized: '12.34000000', fees: '0.51', fills: 7 },
        openOrders: 2,
        positions: [],
      },
      {
        id: 'grid-eth',
        name: '<img src=x onerror="window.__pwned=1">',
        symbols: ['cmt_ethusdt'],
        params: {},
        state: 'paused',
        errors: 3,
        lastError: '<b>boom</b> & "quotes"',
        pnl: { realized: '-1.5', fees: '0.2', fills: 2 },
        openOrders: 0,
        positions: [{ symbol: 'cmt_ethusdt', side: 'long', size: '0.05', entryPrice: '3000.5', unrealizedPnl: '' }],
      },
    ],
    orders: [order(1, 'mm-btc', 'BTCUSDT_SPBL', 'buy'), order(2, 'mm-btc', 'BTCUSDT_SPBL', 'sell')],
    fills: [
      {
        clientOid: 'c1',
        orderId: '1',
        fillId: 'f1',
        strategyId: 'mm-btc',
        symbol: 'BTCUSDT_SPBL',
        price: '65000.1',
        size: '0.002',
        fee: '0.01',
        atMs: T0 + 1000,
      },
      { clientOid: 'c2', orderId: '2', fillId: 'f2', strategyId: null, symbol: null, price: '65010.2', size: '0.001', fee: '0', atMs: T0 + 2000 },
    ],
    balances: [{ surface: 'spot', asset: 'USDT', total: '10000.00000001', available: null }],
    positions: [
      { symbol: 'cmt_ethusdt', side: 'long', size: '0.05', entryPrice: '3000.5', markPrice: '3001', unrealizedPnl: '0.025', liquidationPrice: '1234.56' },
    ],
    equity: Array.from({ length: 30 }, (_, i) => ({ surface: 'spot', value: String(10_000 + ((i * 37) % 11) - i), atMs: T0 + i * 2000 })),
    events: [
      { kind: 'order', atMs: T0 + 1000, text: 'order c1 open', data: {} },
      { kind: 'state', atMs: T0 + 2000, text: 'trading halted: <script>window.__pwned=2</script>', data: {} },
    ],
  };
}

/** Who the server's checks found the caller to be. */
const whoOf = (request: FastifyRequest) => (request as FastifyRequest & { actor?: Actor }).actor?.who ?? 'unchecked';

export async function startFakeControlApi(): Promise<FakeControlApi> {
  const state = cannedState();
  const commands: FakeControlApi['commands'] = [];
  const readsBy: FakeControlApi['readsBy'] = [];
  const open = new Set<ServerResponse>();
  let next: { status: number; body: unknown } | undefined;
  const fakeApi = async (app: FastifyInstance) => {
    const read = (path: string, value: () => unknown) =>
      app.get(`/api/v1${path}`, async (request) => {
        readsBy.push(whoOf(request));
        return value();
      });
    read('/status', () => state.status);
    read('/strategies', () => state.strategies);
    read('/orders', () => state.orders);
    read('/fills', () => state.fills);
    read('/balances', () => state.balances);
    read('/positions', () => state.positions);
    read('/equity', () => state.equity);
    read('/events', () => state.events);
    app.get('/api/v1/stream', (request, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      reply.raw.write(': connected\n\n');
      open.add(reply.raw);
      request.raw.on('close', () => open.delete(reply.raw));
    });
    app.post('/api/v1/*', async (request, reply) => {
      commands.push({ path: request.url.slice('/api/v1'.length), body: request.body, who: whoOf(request) });
      const answer = next ?? { status: 200, body: { ok: true, detail: 'done' } };
      next = undefined;
      return reply.code(answer.status).send(answer.body);
    });
  };
  const server = new ControlServer({
    health: { health: () => ({ ok: true, detail: {} }), ready: () => ({ ok: true, detail: {} }) },
    metrics: { contentType: 'text/plain', metrics: async () => '' },
    token: FAKE_TOKEN,
    plugins: [dashboardRoutes, fakeApi],
  });
  const url = await server.listen(0, '127.0.0.1');
  return {
    url,
    signInUrl: `${url}/login?token=${FAKE_TOKEN}`,
    state,
    commands,
    readsBy,
    answerNext: (status, body) => void (next = { status, body }),
    push: (e) => {
      for (const res of open) res.write(`event: ${e.kind}\ndata: ${JSON.stringify(e)}\n\n`);
      return open.size;
    },
    streams: () => open.size,
    close: async () => {
      for (const res of open) res.end();
      await server.close();
    },
  };
}
