// Face 2 of the simulator: the venue's HTTP wire protocol on one port (spot /api/v2 and futures /capi/v2):
// authentication like the venue, IP/UID weight budgets and the order-endpoint rate with 429s, the exact
// response shapes, and scriptable faults (latency, 5xx or dropped connection after acceptance, timeouts,
// HTML 502 pages, truncated JSON, 429 storms, clock skew, read-after-write lag). Control paths under /sim/.
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { Decimal } from '../../domain/decimal.js';
import type { Credentials } from '../../domain/credentials.js';
import type { Fill, Surface } from '../../domain/market.js';
import { futuresSide } from '../../domain/order.js';
import type { Clock, TimeSource } from '../../util/clock.js';
import { close, listen } from '../../util/http-server.js';
import type { Logger } from '../../util/logger.js';
import type { OrderRequest } from '../client.js';
import { ENDPOINTS, type EndpointId } from '../endpoints.js';
import { parseJson, stringifyJson } from '../wire/json.js';
import { FUTURES_TYPE_FROM_CODE, TIF_FROM_CODE, TIF_FROM_NAME, type FuturesAction } from '../wire/enums.js';
import { CLIENT_OID_RE } from '../wire/requests.js';
import { sign } from '../wire/signature.js';
import { MatchingEngine, type CancelOutcome, type SimAccounts, type SimOrder } from './engine.js';
import { SyntheticMarket, type MarketSource } from './market.js';
import * as fmt from './wire-format.js';

export type FaultKind = 'accept-then-500' | 'accept-then-drop' | 'timeout' | 'html-502' | 'truncated-json' | '429' | 'latency';

export interface ScriptedFault {
  /** Which endpoint it hits; any endpoint when absent. */
  endpoint?: EndpointId;
  kind: FaultKind;
  /** How many requests it hits (default 1). */
  times?: number;
  /** For latency and timeout: how long to hold the answer. */
  ms?: number;
}

export interface FaultSettings {
  /** Added to every answer. */
  latencyMs: number;
  /** The venue's clock runs this far ahead of ours (negative: behind). */
  clockSkewMs: number;
  /** An accepted order stays invisible to reads for this long. */
  visibilityLagMs: number;
  /** Every request is answered 429 until this time (venue clock). */
  storm429UntilMs: number;
  scripted: ScriptedFault[];
}

export interface SimBudget {
  spot: { ip: number; uid: number };
  futures: { ip: number; uid: number };
  windowMs: number;
  /** Requests per second on order endpoints (place, cancel, trigger). */
  orderRequestsPerSecond: number;
}

export const DEFAULT_SIM_BUDGET: SimBudget = { spot: { ip: 500, uid: 500 }, futures: { ip: 1000, uid: 1000 }, windowMs: 10_000, orderRequestsPerSecond: 10 };

export interface SimServerOptions {
  market: MarketSource;
  accounts: SimAccounts;
  credentials: Credentials;
  budget: SimBudget;
  clock: Clock;
  logger: Logger;
  /** Final orders and fills kept per symbol for history reads (S1, S2, S3, F18, F19, F20); unlimited when absent. */
  retain?: number;
  /** Told of each request as it arrives, before it is read (benchmarks measure arrival times). */
  onRequest?: (method: string, path: string) => void;
}

interface Counter {
  window: number;
  used: number;
}

export interface SimStats {
  requests: Record<string, number>;
  rejected429: number;
  authFailures: number;
  windows: Record<string, { window: number; used: number; budget: number }>;
  engine: MatchingEngine['stats'];
}

class WireError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const AUTH_CODES = new Set(['40001', '40002', '40003', '40005', '40006', '40007', '40008', '40009', '40011', '40012']);

const BY_ROUTE = new Map<string, EndpointId>(Object.values(ENDPOINTS).map((e) => [`${e.method} ${e.path}`, e.id]));

export class SimServer {
  readonly engine: MatchingEngine;
  readonly faults: FaultSettings = { latencyMs: 0, clockSkewMs: 0, visibilityLagMs: 0, storm429UntilMs: 0, scripted: [] };
  private readonly server: http.Server;
  private readonly counters = new Map<string, Counter>();
  private readonly stats = { requests: {} as Record<string, number>, rejected429: 0, authFailures: 0 };
  private readonly contractIds = new Map<string, number>();
  private readonly engineClock: TimeSource;
  url = '';

  constructor(private readonly o: SimServerOptions) {
    this.engineClock = { now: () => this.venueNow() };
    this.engine = new MatchingEngine(o.market.symbols, o.accounts, this.engineClock, o.retain);
    o.market.symbols.forEach((m, i) => this.contractIds.set(m.spec.symbol, 10000001 + i));
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 5000;
  }

  private venueNow(): number {
    return this.o.clock.now() + this.faults.clockSkewMs;
  }

  async listen(port: number, host: string): Promise<string> {
    this.url = await listen(this.server, port, host);
    return this.url;
  }

  async close(): Promise<void> {
    await close(this.server);
  }

  /** Applies every market tick up to the venue's now. */
  private catchUp(): void {
    this.o.market.advanceTo(this.venueNow(), (m) => this.engine.onTick(m));
  }

  snapshot(): SimStats {
    const windows: SimStats['windows'] = {};
    for (const [k, c] of this.counters) windows[k] = { ...c, budget: this.budgetOf(k) };
    return { ...this.stats, requests: { ...this.stats.requests }, windows, engine: { ...this.engine.stats } };
  }

  private budgetOf(key: string): number {
    const [surface, pool] = key.split(':') as [Surface, string];
    if (pool === 'orders') return this.o.budget.orderRequestsPerSecond;
    return this.o.budget[surface][pool as 'ip' | 'uid'];
  }

  /** Charges the request to its pools (fixed windows aligned to the clock, as venues count); false when over. */
  private charge(id: EndpointId, now: number): boolean {
    const e = ENDPOINTS[id];
    const charges: Array<[string, number, number]> = [[`${e.surface}:ip`, e.weight.ip, this.o.budget.windowMs]];
    if (e.auth && e.weight.uid > 0) charges.push([`${e.surface}:uid`, e.weight.uid, this.o.budget.windowMs]);
    if (e.orderRateLimited) charges.push([`${e.surface}:orders`, 1, 1000]);
    let ok = true;
    for (const [key, w, windowMs] of charges) {
      const win = Math.floor(now / windowMs);
      let c = this.counters.get(key);
      if (!c || c.window !== win) {
        c = { window: win, used: 0 };
        this.counters.set(key, c);
      }
      c.used += w;
      if (c.used > this.budgetOf(key)) ok = false;
    }
    return ok;
  }

  private takeFault(id: EndpointId | undefined): ScriptedFault | undefined {
    const i = this.faults.scripted.findIndex((f) => !f.endpoint || f.endpoint === id);
    if (i < 0) return undefined;
    const f = this.faults.scripted[i]!;
    const left = (f.times ?? 1) - 1;
    if (left <= 0) this.faults.scripted.splice(i, 1);
    else this.faults.scripted[i] = { ...f, times: left };
    return f;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.o.onRequest?.(req.method ?? '', req.url ?? '/');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    const query = q < 0 ? '' : raw.slice(q + 1);
    const method = req.method ?? 'GET';
    if (path.startsWith('/sim/')) return this.control(method, path, body, res);
    const id = BY_ROUTE.get(`${method} ${path}`);
    if (!id) return send(res, 404, JSON.stringify({ timestamp: this.venueNow(), status: 404, error: 'Not Found', path }));
    this.stats.requests[id] = (this.stats.requests[id] ?? 0) + 1;
    const e = ENDPOINTS[id];
    const now = this.venueNow();

    if (this.faults.latencyMs > 0) await sleep(this.faults.latencyMs);
    const fault = this.takeFault(id);
    if (fault?.kind === 'latency') await sleep(fault.ms ?? 100);
    if (now < this.faults.storm429UntilMs || fault?.kind === '429' || !this.charge(id, now)) {
      this.stats.rejected429++;
      return send(res, 429, this.errorBody('429', 'Too many requests'));
    }
    if (fault?.kind === 'html-502') return send(res, 502, '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>', 'text/html');

    let status = 200;
    let out: string;
    try {
      if (e.auth) this.authenticate(req, method, path, query, body, now);
      this.catchUp();
      const payload = this.dispatch(id, e.method === 'GET' ? parseQuery(query) : parseBody(body));
      out = e.surface === 'spot' ? stringifyJson({ code: '00000', msg: 'success', requestTime: now, data: payload }) : stringifyJson(payload);
    } catch (err) {
      if (!(err instanceof WireError)) throw err;
      if (AUTH_CODES.has(err.code)) this.stats.authFailures++;
      status = err.status;
      out = this.errorBody(err.code, err.message);
    }
    switch (fault?.kind) {
      case 'accept-then-500':
        return send(res, 500, this.errorBody('40015', 'System error'), 'application/json');
      case 'accept-then-drop':
        req.socket.destroy();
        return;
      case 'timeout':
        await sleep(fault.ms ?? 30_000);
        if (!res.destroyed) send(res, status, out);
        return;
      case 'truncated-json':
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(out)) });
        res.write(out.slice(0, Math.max(1, Math.floor(out.length / 2))));
        setTimeout(() => res.socket?.destroy(), 5);
        return;
      default:
        return send(res, status, out);
    }
  }

  private errorBody(code: string, msg: string): string {
    return JSON.stringify({ code, msg, requestTime: this.venueNow(), data: null });
  }

  private authenticate(req: http.IncomingMessage, method: string, path: string, query: string, body: string, now: number): void {
    const h = req.headers;
    const fail = (code: string, msg: string, status = 400): never => {
      throw new WireError(status, code, msg);
    };
    if (!h['access-key']) fail('40001', 'Header "ACCESS_KEY" is required');
    if (!h['access-sign']) fail('40002', 'Header "ACCESS_SIGN" is required');
    if (!h['access-timestamp']) fail('40003', 'Header "ACCESS_TIMESTAMP" is required');
    if (!h['access-passphrase']) fail('40011', 'Header "ACCESS_PASSPHRASE" is required');
    if (!String(h['content-type'] ?? '').startsWith('application/json')) fail('40007', 'Invalid Content_Type, use "application/json" format');
    if (!same(String(h['access-key']), this.o.credentials.apiKey)) fail('40006', 'Invalid ACCESS_KEY');
    if (!same(String(h['access-passphrase']), this.o.credentials.passphrase)) fail('40012', 'Incorrect API key/Passphrase');
    const ts = String(h['access-timestamp']);
    if (!/^\d{13}$/.test(ts)) fail('40005', 'Invalid ACCESS_TIMESTAMP');
    if (Math.abs(Number(ts) - now) > 30_000) fail('40008', 'Request timestamp expired');
    const expected = sign(this.o.credentials.apiSecret, ts, method, path, query, body);
    if (!same(String(h['access-sign']), expected)) fail('40009', 'API verification failed');
  }

  private control(method: string, path: string, body: string, res: http.ServerResponse): void {
    if (method === 'GET' && path === '/sim/stats') return send(res, 200, stringifyJson(this.snapshot()));
    // The venue as it truly is, whatever read lag the faults impose: what an auditor compares a journal with.
    if (method === 'GET' && path === '/sim/state') {
      this.catchUp();
      const openOrders = (['spot', 'futures'] as const).flatMap((surface) =>
        this.engine.openOrders(surface).map((o) => ({ surface, symbol: o.symbol, orderId: o.orderId, clientOid: o.clientOid, status: o.status })),
      );
      const positions = this.engine.specs('futures').flatMap((spec) => this.engine.positions(spec.symbol).map((p) => ({ symbol: p.symbol, side: p.side, size: p.size.toString() })));
      return send(res, 200, stringifyJson({ openOrders, positions }));
    }
    if (method === 'POST' && path === '/sim/faults') {
      try {
        const f = parseJson(body || '{}') as Partial<FaultSettings> & { script?: ScriptedFault[]; storm429Ms?: number };
        if (typeof f.latencyMs === 'number') this.faults.latencyMs = f.latencyMs;
        if (typeof f.clockSkewMs === 'number') this.faults.clockSkewMs = f.clockSkewMs;
        if (typeof f.visibilityLagMs === 'number') this.faults.visibilityLagMs = f.visibilityLagMs;
        if (typeof f.storm429Ms === 'number') this.faults.storm429UntilMs = this.venueNow() + f.storm429Ms;
        if (Array.isArray(f.script)) this.faults.scripted.push(...f.script);
        return send(res, 200, stringifyJson(this.faults));
      } catch (err) {
        return send(res, 400, JSON.stringify({ error: (err as Error).message }));
      }
    }
    if (method === 'POST' && path === '/sim/market') {
      const m = this.o.market;
      try {
        const b = parseJson(body || '{}') as { symbol?: unknown; shiftTicks?: unknown };
        if (!(m instanceof SyntheticMarket)) throw new Error('only the synthetic market can be shifted');
        if (typeof b.symbol !== 'string' || typeof b.shiftTicks !== 'number') throw new Error('expected {"symbol": string, "shiftTicks": number}');
        this.catchUp();
        m.shift(b.symbol, b.shiftTicks);
        return send(res, 200, JSON.stringify({ ok: true }));
      } catch (err) {
        return send(res, 400, JSON.stringify({ error: (err as Error).message }));
      }
    }
    send(res, 404, JSON.stringify({ error: 'unknown control path' }));
  }

  // ------------------------------------------------------------------ endpoints

  private visible(o: SimOrder): boolean {
    return this.faults.visibilityLagMs <= 0 || o.createdAt <= this.venueNow() - this.faults.visibilityLagMs;
  }

  /** A fill shows once its order does (fills come after their order's acceptance). */
  private fillVisible(f: Fill): boolean {
    return this.faults.visibilityLagMs <= 0 || f.timestampMs <= this.venueNow() - this.faults.visibilityLagMs;
  }

  private specOf(symbol: string, surface: Surface) {
    const spec = this.engine.specs(surface).find((s) => s.symbol === symbol);
    if (!spec) throw surface === 'spot' ? new WireError(400, '40102', 'Trading pair configuration does not exist') : new WireError(400, '40020', 'Parameter symbol is invalid');
    return spec;
  }

  private dispatch(id: EndpointId, p: Record<string, unknown>): unknown {
    const now = this.venueNow();
    switch (id) {
      case 'S0':
        return now;
      case 'F0':
        return { epoch: (now / 1000).toFixed(3), iso: new Date(now).toISOString(), timestamp: now };
      case 'S7': {
        const wanted = new Set(String(p.symbols ?? p.symbol ?? '').split(',').filter(Boolean));
        return this.engine.specs('spot').filter((s) => wanted.size === 0 || wanted.has(s.symbol)).map(fmt.spotSymbolInfo);
      }
      case 'S8':
        return this.engine.spotBalances().map((b, i) => ({ coinId: i + 1, coinName: b.asset, available: b.available!.toString(), frozen: b.frozen!.toString(), equity: b.total.toString() }));
      case 'S9': {
        const symbol = str(p, 'symbol', 'spot');
        this.specOf(symbol, 'spot');
        const limit = Math.min(1000, Math.max(1, Number(p.limit ?? 100)));
        return this.engine.trades(symbol, limit).map((t) => ({
          symbol, tradeId: t.tradeId, fillTime: t.ts, fillPrice: t.price.toString(), fillQuantity: t.size.toString(),
          tradeValue: t.price.mul(t.size).toString(), bestMatch: true, buyerMaker: t.buyerMaker,
        }));
      }
      case 'S1': {
        const symbol = str(p, 'symbol', 'spot');
        this.specOf(symbol, 'spot');
        const { pageIndex, pageSize } = paging(p, 'pageIndex', 'pageSize', 10, 100);
        const after = p.after === undefined ? -Infinity : Number(p.after);
        const before = p.before === undefined ? Infinity : Number(p.before);
        const all = this.engine.history(symbol).filter((o) => this.visible(o) && o.createdAt >= after && o.createdAt <= before);
        const page = all.slice(pageIndex * pageSize, (pageIndex + 1) * pageSize);
        return { orderInfoResultList: page.map((o) => fmt.spotOrderRecord(this.engine, o)), nextPage: (pageIndex + 1) * pageSize < all.length, totals: all.length };
      }
      case 'S2': {
        const symbol = str(p, 'symbol', 'spot');
        const spec = this.specOf(symbol, 'spot');
        const { pageIndex, pageSize } = paging(p, 'pageIndex', 'pageSize', 10, 100);
        const orderId = p.orderId === undefined ? undefined : String(p.orderId);
        const all = this.engine.fills(symbol, orderId);
        const page = all.slice(pageIndex * pageSize, (pageIndex + 1) * pageSize);
        return { fillsOrderResultList: page.map((f) => fmt.spotFillRecord(spec, f)), nextPage: (pageIndex + 1) * pageSize < all.length, totals: all.length };
      }
      case 'S15': {
        const symbol = str(p, 'symbol', 'spot');
        this.specOf(symbol, 'spot');
        const { pageIndex, pageSize } = paging(p, 'pageNo', 'limit', 100, ENDPOINTS.S15.maxPageSize!);
        const all = this.engine.openOrders('spot', symbol).filter((o) => this.visible(o));
        const page = all.slice(pageIndex * pageSize, (pageIndex + 1) * pageSize);
        // The venue sends nextPage and totals as null: a short page is the end.
        return { orderInfoResultList: page.map((o) => fmt.spotOrderRecord(this.engine, o)), nextPage: null, totals: null };
      }
      case 'S3': {
        if (p.orderId === undefined && p.clientOrderId === undefined) throw new WireError(400, '40913', 'Either orderId or clientId is required');
        const o = this.engine.findOrder(undefined, p.orderId !== undefined ? { orderId: String(p.orderId) } : { clientOid: String(p.clientOrderId) });
        return o && o.surface === 'spot' && this.visible(o) ? [fmt.spotOrderRecord(this.engine, o)] : [];
      }
      case 'S6': {
        const symbol = str(p, 'symbol', 'spot');
        this.specOf(symbol, 'spot');
        const list = batch(p, 'orderList', ENDPOINTS.S6.maxBatch!, 'spot');
        const reqs = list.map((item) => spotItem(item));
        const results = this.engine.place('spot', symbol, reqs);
        const accepted = results.flatMap((r) => (r.ok ? [{ orderId: fmt.rawLong(r.orderId), clientOrderId: r.clientOid }] : []));
        // A refused item is left out of resultList; when nothing was accepted, the first refusal is the answer.
        if (accepted.length === 0) {
          const first = results.find((r) => !r.ok);
          if (first && !first.ok) throw new WireError(400, first.refusal.code, first.refusal.message);
        }
        return { resultList: accepted };
      }
      case 'S4': {
        const symbol = str(p, 'symbol', 'spot');
        this.specOf(symbol, 'spot');
        const orderIds = optList(p, 'orderIds');
        const clientOids = optList(p, 'clientOids');
        if (!orderIds && !clientOids) throw new WireError(400, '40913', 'Either orderId or clientId is required');
        const n = (orderIds ?? clientOids)!.length;
        if (n > ENDPOINTS.S4.maxBatch!) throw new WireError(400, '40912', 'Batch cancel limit exceeded (max 50 orders)');
        return spotCancelData(this.engine.cancel('spot', symbol, orderIds ? { orderIds } : { clientOids: clientOids! }));
      }
      case 'S5': {
        const symbol = str(p, 'symbol', 'spot');
        this.specOf(symbol, 'spot');
        return spotCancelData(this.engine.cancelAll('spot', symbol));
      }
      case 'F1': {
        const symbol = p.symbol === undefined ? undefined : String(p.symbol);
        return this.engine.specs('futures').filter((s) => !symbol || s.symbol === symbol).map(fmt.futuresContract);
      }
      case 'F2':
        return this.engine.tickers('futures').map((t) => ({
          symbol: t.symbol, last: t.last!.toString(), best_ask: t.bestAsk!.toString(), best_bid: t.bestBid!.toString(),
          high_24h: t.high24h!.toString(), low_24h: t.low24h!.toString(), volume_24h: t.volume24h!.toString(), timestamp: String(t.timestampMs),
          priceChangePercent: '0', base_volume: t.baseVolume24h!.toString(), markPrice: t.markPrice!.toString(), indexPrice: t.indexPrice!.toString(),
        }));
      case 'F3':
        return {
          account: {
            id: '1', user_id: '1', client_account_id: '1', is_system_account: false, default_fee_setting: null,
            contract_id_to_fee_setting: {}, contract_id_to_mode_setting: {}, contract_id_to_leverage_setting: {},
            create_order_rate_limit_per_minute: 0, create_order_delay_milliseconds: 0, extra_type: '', extra_data_json: '',
            status: 'NORMAL', created_time: '0', updated_time: String(now),
          },
          collateral: [{
            account_id: '1', coin_id: 2, margin_mode: 'SHARED', cross_contract_id: 0, isolated_position_id: '0',
            amount: this.engine.futuresCollateral().toString(), pending_deposit_amount: '0', pending_withdraw_amount: '0',
            pending_transfer_in_amount: '0', pending_transfer_out_amount: '0', is_liquidating: false, legacy_amount: '0',
            created_time: '0', updated_time: String(now),
          }],
          position: this.engine.specs('futures').flatMap((s) => fmt.futuresPositionRecord(this.engine, s.symbol, this.contractIds.get(s.symbol)!, true)),
          version: '1',
        };
      case 'F4': {
        const symbol = str(p, 'symbol', 'futures');
        this.specOf(symbol, 'futures');
        return fmt.futuresPositionRecord(this.engine, symbol, this.contractIds.get(symbol)!, false);
      }
      case 'F5': {
        const symbol = p.symbol === undefined ? undefined : String(p.symbol);
        if (symbol) this.specOf(symbol, 'futures');
        const { pageIndex, pageSize } = paging(p, 'page', 'limit', 100, 100);
        const startTime = p.startTime === undefined ? -Infinity : Number(p.startTime);
        const endTime = p.endTime === undefined ? Infinity : Number(p.endTime);
        const all = this.engine
          .openOrders('futures', symbol)
          .filter((o) => this.visible(o) && (p.orderId === undefined || o.orderId === String(p.orderId)) && o.createdAt >= startTime && o.createdAt <= endTime);
        return all.slice(pageIndex * pageSize, (pageIndex + 1) * pageSize).map((o) => fmt.futuresOrderRecord(this.engine, this.specOf(o.symbol, 'futures'), o));
      }
      case 'F18': {
        const orderId = str(p, 'orderId', 'futures');
        const o = this.engine.findOrder(undefined, { orderId });
        if (!o || o.surface !== 'futures' || !this.visible(o)) throw new WireError(400, '50005', 'Order does not exist');
        return fmt.futuresOrderRecord(this.engine, this.specOf(o.symbol, 'futures'), o);
      }
      case 'F19': {
        // Final orders, newest first, in a creation-time window (which orders the venue lists here is inference).
        const symbol = p.symbol === undefined ? undefined : String(p.symbol);
        const specs = symbol ? [this.specOf(symbol, 'futures')] : this.engine.specs('futures');
        const { pageSize } = paging(p, 'page', 'pageSize', 100, ENDPOINTS.F19.maxPageSize!);
        const from = timeParam(p, 'createDate', -Infinity);
        const to = timeParam(p, 'endCreateDate', Infinity);
        return specs
          .flatMap((spec) => this.engine.history(spec.symbol).filter((o) => (o.status === 'filled' || o.status === 'canceled') && this.visible(o) && o.createdAt >= from && o.createdAt <= to))
          .sort((a, b) => b.createdAt - a.createdAt)
          .slice(0, pageSize)
          .map((o) => fmt.futuresOrderRecord(this.engine, this.specOf(o.symbol, 'futures'), o));
      }
      case 'F20': {
        const symbol = p.symbol === undefined ? undefined : String(p.symbol);
        const specs = symbol ? [this.specOf(symbol, 'futures')] : this.engine.specs('futures');
        const { pageSize: limit } = paging(p, 'page', 'limit', 100, ENDPOINTS.F20.maxPageSize!);
        const orderId = p.orderId === undefined ? undefined : String(p.orderId);
        const start = timeParam(p, 'startTime', -Infinity);
        const end = timeParam(p, 'endTime', Infinity);
        const all = specs
          .flatMap((spec) => this.engine.fills(spec.symbol, orderId).filter((f) => this.fillVisible(f) && f.timestampMs >= start && f.timestampMs <= end))
          .sort((a, b) => b.timestampMs - a.timestampMs);
        return {
          list: all.slice(0, limit).map((f) => fmt.futuresFillRecord(f, this.engine.fillDetail(f.symbol, f.fillId))),
          nextFlag: all.length > limit,
          totals: all.length,
        };
      }
      case 'F6': {
        const symbol = str(p, 'symbol', 'futures');
        this.specOf(symbol, 'futures');
        const list = batch(p, 'orderDataList', ENDPOINTS.F6.maxBatch!, 'futures');
        return {
          order_info: list.map((item) => {
            const x = futuresItem(item);
            const r = 'req' in x ? this.engine.place('futures', symbol, [x.req])[0]! : { ok: false as const, refusal: x.refusal };
            return r.ok
              ? { order_id: r.orderId, client_oid: r.clientOid, result: true, error_code: '', error_message: '' }
              : { order_id: '', client_oid: 'req' in x ? x.req.clientOid : x.clientOid, result: false, error_code: r.refusal.code, error_message: r.refusal.message };
          }),
          result: true,
        };
      }
      case 'F7': {
        const symbol = str(p, 'symbol', 'futures');
        this.specOf(symbol, 'futures');
        const ids = optList(p, 'ids');
        const cids = optList(p, 'cids');
        if (!ids && !cids) throw new WireError(400, '40019', 'Parameter cannot be empty: ids or cids');
        if ((ids ?? cids)!.length > ENDPOINTS.F7.maxBatch!) throw new WireError(400, '40017', 'Parameter validation failed: too many ids');
        const results = this.engine.cancel('futures', symbol, ids ? { orderIds: ids } : { clientOids: cids! });
        const rows = results.map((r) => ({
          err_code: r.ok ? '' : r.refusal.code, err_msg: r.ok ? '' : r.refusal.message,
          order_id: r.orderId ?? '', client_oid: r.clientOid ?? '', result: r.ok,
        }));
        return {
          result: results.every((r) => r.ok), symbol,
          orderIds: results.flatMap((r) => (r.ok ? [r.orderId] : [])), clientOids: results.flatMap((r) => (r.ok ? [r.clientOid] : [])),
          cancelOrderResultList: rows, failInfos: rows.filter((r) => !r.result),
        };
      }
      case 'F8': {
        const symbol = str(p, 'symbol', 'futures');
        this.specOf(symbol, 'futures');
        const clientOid = str(p, 'client_oid', 'futures');
        if (!CLIENT_OID_RE.test(clientOid)) throw new WireError(400, '40020', 'Parameter client_oid is invalid');
        const t = typeCode(str(p, 'type', 'futures'));
        const matchType = str(p, 'match_type', 'futures');
        if (matchType !== '0' && matchType !== '1') throw new WireError(400, '40020', 'Parameter match_type is invalid');
        const r = this.engine.placeTrigger({
          symbol, clientOid, positionSide: t.positionSide, reduceOnly: t.reduceOnly,
          size: dec(p, 'size', 'futures'), triggerPrice: dec(p, 'trigger_price', 'futures'),
          ...(matchType === '0' ? { executePrice: dec(p, 'execute_price', 'futures') } : {}),
        });
        if (!r.ok) throw new WireError(400, r.refusal.code, r.refusal.message);
        return { client_oid: null, order_id: r.orderId };
      }
      case 'F9': {
        const symbol = str(p, 'symbol', 'futures');
        const orderId = str(p, 'orderId', 'futures');
        const r = this.engine.cancelTrigger(symbol, orderId);
        return r.ok
          ? { order_id: orderId, client_oid: r.clientOid, symbol, result: true, err_code: null, err_msg: null }
          : { order_id: orderId, client_oid: null, symbol, result: false, err_code: r.refusal.code, err_msg: r.refusal.message };
      }
    }
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function send(res: http.ServerResponse, status: number, body: string, type = 'application/json'): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function parseQuery(query: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(query)) out[k] = v;
  return out;
}

function parseBody(body: string): Record<string, unknown> {
  if (body === '') return {};
  let v: unknown;
  try {
    v = parseJson(body);
  } catch {
    throw new WireError(400, '40017', 'Parameter validation failed: body is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new WireError(400, '40017', 'Parameter validation failed: body must be an object');
  return v as Record<string, unknown>;
}

function str(p: Record<string, unknown>, key: string, surface: Surface): string {
  const v = p[key];
  if (v === undefined || v === null || v === '') throw new WireError(400, '40019', `Parameter ${key} cannot be empty`);
  if (typeof v !== 'string' && typeof v !== 'number' && !(typeof v === 'object' && 'digits' in (v as object))) {
    throw new WireError(400, surface === 'spot' ? '40409' : '40020', `Parameter ${key} is invalid`);
  }
  return String(v);
}

function dec(p: Record<string, unknown>, key: string, surface: Surface): Decimal {
  const d = Decimal.parse(str(p, key, surface));
  if (!d) throw new WireError(400, surface === 'spot' ? '40409' : '40020', `Parameter ${key} is invalid`);
  return d;
}

function optList(p: Record<string, unknown>, key: string): string[] | undefined {
  const v = p[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length === 0) throw new WireError(400, '40020', `Parameter ${key} is invalid`);
  return v.map((x) => String(x));
}

function batch(p: Record<string, unknown>, key: string, max: number, surface: Surface): Array<Record<string, unknown>> {
  const v = p[key];
  if (!Array.isArray(v) || v.length === 0) throw new WireError(400, '40019', `Parameter ${key} cannot be empty`);
  if (v.length > max) throw new WireError(400, '40017', `Parameter validation failed: at most ${max} orders per batch`);
  if (v.some((x) => typeof x !== 'object' || x === null)) throw new WireError(400, surface === 'spot' ? '40409' : '40020', `Parameter ${key} is invalid`);
  return v as Array<Record<string, unknown>>;
}

function paging(p: Record<string, unknown>, indexKey: string, sizeKey: string, def: number, max: number): { pageIndex: number; pageSize: number } {
  const pageIndex = p[indexKey] === undefined ? 0 : Number(p[indexKey]);
  const pageSize = p[sizeKey] === undefined ? def : Number(p[sizeKey]);
  if (!Number.isInteger(pageIndex) || pageIndex < 0) throw new WireError(400, '40020', `Parameter ${indexKey} is invalid`);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > max) throw new WireError(400, '40020', `Parameter ${sizeKey} is invalid`);
  return { pageIndex, pageSize };
}

/** An optional millisecond time parameter (a bound of a window). */
function timeParam(p: Record<string, unknown>, key: string, absent: number): number {
  if (p[key] === undefined) return absent;
  const v = Number(p[key]);
  if (!Number.isSafeInteger(v) || v < 0) throw new WireError(400, '40020', `Parameter ${key} is invalid`);
  return v;
}

function spotItem(item: Record<string, unknown>): OrderRequest {
  const side = str(item, 'side', 'spot');
  const orderType = str(item, 'orderType', 'spot');
  const force = TIF_FROM_NAME[str(item, 'force', 'spot')];
  if (side !== 'buy' && side !== 'sell') throw new WireError(400, '40409', 'Incorrect format: side');
  if (orderType !== 'limit' && orderType !== 'market') throw new WireError(400, '40409', 'Incorrect format: orderType');
  if (!force) throw new WireError(400, '40409', 'Incorrect format: force');
  const clientOid = str(item, 'clientOrderId', 'spot');
  if (!CLIENT_OID_RE.test(clientOid)) throw new WireError(400, '40305', 'client_oid exceeds 40 characters or is in an invalid format');
  return {
    clientOid, side, kind: orderType, timeInForce: orderType === 'market' ? 'ioc' : force, size: dec(item, 'quantity', 'spot'),
    ...(orderType === 'limit' ? { price: dec(item, 'price', 'spot') } : {}),
  };
}

function typeCode(t: string): FuturesAction {
  const a = FUTURES_TYPE_FROM_CODE[t];
  if (!a) throw new WireError(400, '40020', 'Parameter type is invalid');
  return a;
}

/** A futures item, or its refusal (the item fails alone, the batch goes on). */
function futuresItem(item: Record<string, unknown>): { req: OrderRequest } | { clientOid: string; refusal: { code: string; message: string } } {
  const clientOid = String(item.client_oid ?? '');
  try {
    if (!CLIENT_OID_RE.test(clientOid)) throw new WireError(400, '40020', 'Parameter client_oid is invalid');
    const t = typeCode(str(item, 'type', 'futures'));
    const tif = TIF_FROM_CODE[str(item, 'order_type', 'futures')];
    if (!tif) throw new WireError(400, '40020', 'Parameter order_type is invalid');
    const match = str(item, 'match_price', 'futures');
    if (match !== '0' && match !== '1') throw new WireError(400, '40020', 'Parameter match_price is invalid');
    const side = futuresSide(t.positionSide, t.reduceOnly);
    const price = dec(item, 'price', 'futures');
    return {
      req: {
        clientOid, side, kind: match === '1' ? 'market' : 'limit', timeInForce: match === '1' ? 'ioc' : tif,
        size: dec(item, 'size', 'futures'), positionSide: t.positionSide, reduceOnly: t.reduceOnly, ...(match === '0' ? { price } : {}),
      },
    };
  } catch (err) {
    if (err instanceof WireError) return { clientOid, refusal: { code: err.code, message: err.message } };
    throw err;
  }
}

function spotCancelData(results: CancelOutcome[]): Record<string, unknown> {
  return {
    successList: results.flatMap((r) => (r.ok ? [r.orderId] : [])),
    failureList: results.flatMap((r) => (r.ok ? [] : [{ orderId: r.orderId ?? '', clientOid: r.clientOid ?? '', errMsg: r.refusal.code }])),
  };
}
