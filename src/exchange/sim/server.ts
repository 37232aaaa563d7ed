// Face 2 of the simulator: the venue's HTTP wire protocol on one port (spot /api/v2 and futures /capi/v2). A
// request passes, in order: a browser's check (a Host the simulator does not serve, or an Origin or cross-site
// fetch metadata, is refused: no web page steers its market or its faults), control paths (/sim/), the route table, scripted latency, the 429 storm and the
// weight budgets (per client address and per account), authentication like the venue, the endpoint's handler,
// then any scripted fault on the answer (5xx or dropped connection after acceptance, timeouts, HTML 502 pages,
// truncated JSON). A proxy's 403 page answers before authentication, as a proxy in front of the venue would.
import http from 'node:http';
import type { Credentials } from '../../domain/credentials.js';
import type { Fill } from '../../domain/market.js';
import type { VenueBudget } from '../../domain/venue-budget.js';
import type { Clock, TimeSource } from '../../util/clock.js';
import { close, listen, parseHost, servedNames } from '../../util/http-server.js';
import type { Logger } from '../../util/logger.js';
import { accountDigest } from '../../domain/credentials.js';
import { ENDPOINTS } from '../endpoints.js';
import type { FundingFeeSign } from '../wire/enums.js';
import { stringifyJson } from '../wire/json.js';
import type { Envelope } from '../wire/responses.js';
import { BudgetMeter, type MeterSubject } from './budget-meter.js';
import { MatchingEngine, type SimAccounts, type SimOrder } from './engine.js';
import type { SimFuturesOptions } from './futures-views.js';
import { authenticate, isAuthFailure } from './http/auth.js';
import { control, type ControlTarget, type SimStats } from './http/control.js';
import { HTML_502_PAGE, PROXY_403_PAGE, leaveOut, noFaults, takeFault, type FaultSettings } from './http/faults.js';
import { WireError, parseBody, parseQuery, splitUrl } from './http/request.js';
import { errorBody, send } from './http/respond.js';
import type { F11Reading, RouteContext } from './http/route-context.js';
import { answer, answersInEnvelope, endpointAt } from './http/routes.js';
import type { MarketSource } from './market.js';

export type { FaultKind, FaultSettings, ScriptedFault } from './http/faults.js';
export type { SimStats } from './http/control.js';
export type { F11Reading } from './http/route-context.js';

export interface SimServerOptions {
  market: MarketSource;
  accounts: SimAccounts;
  credentials: Credentials;
  /** Further keys the simulator accepts: each is another account for the UID budgets (all trade the one set of balances). */
  moreCredentials?: readonly Credentials[];
  budget: VenueBudget;
  clock: Clock;
  logger: Logger;
  /** Final orders and fills kept per symbol for history reads (S1, S2, S3, F18, F19, F20); unlimited when absent. */
  retain?: number;
  /** Told of each request as it arrives, before it is read (benchmarks measure arrival times). */
  onRequest?: (method: string, path: string) => void;
  /** How F11 reads its time window (default `both-bounds`, as the venue was measured to). */
  f11Reading?: F11Reading;
  /** The futures margin model (`exchange.margin`, `sim.futures`); their defaults when absent. */
  futures?: SimFuturesOptions;
  /** How funding amounts are signed on the wire (`exchange.fundingFeeSign`; default `collateral-change`). */
  fundingFeeSign?: FundingFeeSign;
}

export class SimServer {
  readonly engine: MatchingEngine;
  readonly faults: FaultSettings = noFaults();
  private readonly server: http.Server;
  private readonly controls: ControlTarget;
  private readonly meter: BudgetMeter;
  private readonly stats = { requests: {} as Record<string, number>, rejected429: 0, authFailures: 0 };
  private readonly contractIds = new Map<string, number>();
  /** Each accepted key's credentials and the account its UID budgets are counted under (a digest, as the limiter names it). */
  private readonly keys = new Map<string, { credentials: Credentials; account: string }>();
  /** The venue's clock (ours plus the scripted skew): what the engine stamps orders and fills with. */
  private readonly engineClock: TimeSource;
  url = '';
  /** The Host names it answers to (set when it listens). */
  private served: ReadonlySet<string> = servedNames('127.0.0.1');

  constructor(private readonly opts: SimServerOptions) {
    this.meter = new BudgetMeter(opts.budget, { measure: true });
    for (const c of [opts.credentials, ...(opts.moreCredentials ?? [])]) this.keys.set(c.apiKey, { credentials: c, account: accountDigest(c.apiKey) });
    this.engineClock = { now: () => this.venueNowMs() };
    this.engine = new MatchingEngine(opts.market.symbols, opts.accounts, this.engineClock, opts.retain, opts.market.seed, opts.futures);
    opts.market.symbols.forEach((m, i) => this.contractIds.set(m.spec.symbol, 10000001 + i));
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 5000;
    this.controls = {
      engine: this.engine,
      market: opts.market,
      faults: this.faults,
      snapshot: () => this.snapshot(),
      catchUp: () => this.catchUp(),
      venueNowMs: () => this.venueNowMs(),
    };
  }

  private venueNowMs(): number {
    return this.opts.clock.now() + this.faults.clockSkewMs;
  }

  async listen(port: number, host: string): Promise<string> {
    this.served = servedNames(host);
    this.url = await listen(this.server, port, host);
    return this.url;
  }

  async close(): Promise<void> {
    await close(this.server);
  }

  /** Applies every market tick up to the venue's now. */
  private catchUp(): void {
    this.opts.market.advanceTo(this.venueNowMs(), (m) => this.engine.onTick(m));
  }

  snapshot(): SimStats {
    const windows: SimStats['windows'] = {};
    for (const pool of this.meter.pools())
      windows[`${pool.name}@${pool.by}`] = { window: pool.windowIndex, used: pool.used, budget: pool.limit, most: pool.most, spent: pool.spentTotal };
    return { ...this.stats, requests: { ...this.stats.requests }, windows, engine: { ...this.engine.stats } };
  }

  /** Why a request comes from a web page the simulator must not obey; undefined for its clients (no browser sends none of these). */
  private fromBrowser(req: http.IncomingMessage): { status: number; error: string } | undefined {
    const host = parseHost(req.headers.host ?? '');
    if (!host || !this.served.has(host.name)) return { status: 421, error: `host ${JSON.stringify(req.headers.host ?? '')} is not served here` };
    const site = req.headers['sec-fetch-site'];
    if (req.headers.origin !== undefined || (site !== undefined && site !== 'none')) return { status: 403, error: 'a request from a web page: refused' };
    return undefined;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.opts.onRequest?.(req.method ?? '', req.url ?? '/');
    const refused = this.fromBrowser(req);
    if (refused) {
      req.resume();
      return send(res, refused.status, JSON.stringify({ error: refused.error }));
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const { path, query } = splitUrl(req.url ?? '/');
    const method = req.method ?? 'GET';
    if (path.startsWith('/sim/')) return control(this.controls, method, path, body, res);
    const id = endpointAt(method, path);
    if (!id) return send(res, 404, JSON.stringify({ timestamp: this.venueNowMs(), status: 404, error: 'Not Found', path }));
    this.stats.requests[id] = (this.stats.requests[id] ?? 0) + 1;
    const endpoint = ENDPOINTS[id];
    const nowMs = this.venueNowMs();
    const key = this.keys.get(String(req.headers['access-key'] ?? ''));
    const subject: MeterSubject = { ip: req.socket.remoteAddress ?? 'unknown', uid: key?.account ?? 'unknown' };

    if (this.faults.latencyMs > 0) await this.opts.clock.sleep(this.faults.latencyMs);
    const fault = takeFault(this.faults, id);
    if (fault?.kind === 'latency') await this.opts.clock.sleep(fault.ms ?? 100);
    if (nowMs < this.faults.storm429UntilMs || fault?.kind === '429' || !this.meter.charge(endpoint, nowMs, subject)) {
      this.stats.rejected429++;
      return send(res, 429, errorBody('429', 'Too many requests', this.venueNowMs()));
    }
    if (fault?.kind === 'html-502') return send(res, 502, HTML_502_PAGE, 'text/html');
    if (fault?.kind === 'proxy-403') return send(res, 403, PROXY_403_PAGE, 'text/html');

    let status = 200;
    let out: string;
    try {
      if (endpoint.auth) authenticate(req.headers, { method, path, query, body }, key?.credentials ?? this.opts.credentials, nowMs);
      if (endpoint.auth && this.faults.refuseKeys) throw new WireError(400, '40018', 'Invalid IP request');
      this.catchUp();
      const answered = answer(id, this.routeContext(), endpoint.method === 'GET' ? parseQuery(query) : parseBody(body));
      const payload = fault?.kind === 'leave-out' ? leaveOut(id, answered) : answered;
      if (answersInEnvelope(id)) {
        const envelope: Envelope = { code: '00000', msg: 'success', requestTime: nowMs, data: payload };
        out = stringifyJson(envelope);
      } else {
        out = stringifyJson(payload);
      }
    } catch (err) {
      if (!(err instanceof WireError)) throw err;
      if (isAuthFailure(err.code)) this.stats.authFailures++;
      status = err.status;
      out = errorBody(err.code, err.message, this.venueNowMs());
    }
    switch (fault?.kind) {
      case 'accept-then-500':
        return send(res, 500, errorBody('40015', 'System error', this.venueNowMs()), 'application/json');
      case 'accept-then-drop':
        req.socket.destroy();
        return;
      case 'timeout':
        await this.opts.clock.sleep(fault.ms ?? 30_000);
        if (!res.destroyed) send(res, status, out);
        return;
      case 'truncated-json':
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(out)) });
        res.write(out.slice(0, Math.max(1, Math.floor(out.length / 2))));
        this.opts.clock.setTimer(() => res.socket?.destroy(), 5);
        return;
      default:
        return send(res, status, out);
    }
  }

  /** What the endpoint handlers see: the engine at the venue's now, with the scripted read lag. */
  private routeContext(): RouteContext {
    return {
      engine: this.engine,
      f11Reading: this.opts.f11Reading ?? 'both-bounds',
      fundingFeeSign: this.opts.fundingFeeSign ?? 'collateral-change',
      nowMs: this.venueNowMs(),
      visible: (order: SimOrder) => this.faults.visibilityLagMs <= 0 || order.createdAtMs <= this.venueNowMs() - this.faults.visibilityLagMs,
      fillVisible: (fill: Fill) => this.faults.visibilityLagMs <= 0 || fill.timestampMs <= this.venueNowMs() - this.faults.visibilityLagMs,
      contractId: (symbol: string) => this.contractIds.get(symbol)!,
    };
  }
}
