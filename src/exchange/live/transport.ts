// HTTP transport on got: keep-alive agents, timeouts, raw text bodies. It never retries and never throws on
// HTTP status; it tells apart "never reached the venue" from "the venue may have received it".
import http from 'node:http';
import https from 'node:https';
import got, { RequestError, TimeoutError } from 'got';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request that got no HTTP answer. `sent` is false only when the request surely never left (connect phase). */
export class TransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network',
    readonly sent: boolean,
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface TransportOptions {
  timeoutMs: number;
  connectTimeoutMs?: number;
}

const CONNECT_PHASE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const CONNECT_PHASE_EVENTS = new Set(['lookup', 'connect', 'secureConnect']);

export class Transport {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(private readonly opts: TransportOptions) {}

  async send(req: HttpRequest): Promise<HttpResponse> {
    try {
      const res = await got(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        responseType: 'text',
        throwHttpErrors: false,
        followRedirect: false,
        retry: { limit: 0 },
        decompress: true,
        timeout: { request: this.opts.timeoutMs, connect: this.opts.connectTimeoutMs ?? Math.min(5000, this.opts.timeoutMs) },
        agent: { http: this.httpAgent, https: this.httpsAgent },
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      if (err instanceof TimeoutError) {
        const sent = !CONNECT_PHASE_EVENTS.has(err.event);
        throw new TransportError('timeout', sent, `no answer within ${this.opts.timeoutMs} ms (${err.event})`, err.code);
      }
      if (err instanceof RequestError) {
        const sent = !(err.code && CONNECT_PHASE_CODES.has(err.code));
        throw new TransportError('network', sent, err.code ? `${err.code}: ${err.message}` : err.message, err.code);
      }
      throw err;
    }
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
