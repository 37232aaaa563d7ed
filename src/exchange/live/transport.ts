// HTTP transport on undici: one keep-alive pool per origin, timeouts, raw text bodies. It never retries, never follows
// a redirect and never throws on HTTP status; it tells apart "never reached the venue" from "the venue may have
// received it". undici rather than got: on loopback its p99 per request is ~8× lower (toolchain facts §c), and the
// request is on the path from a tick to the order on the wire.
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { Agent, request } from 'undici';

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
  /** The whole request, connecting included, to the last byte of the answer. */
  timeoutMs: number;
  /** Connecting alone (TCP and TLS); default min(5000, timeoutMs). */
  connectTimeoutMs?: number;
  /** The most a compressed answer may grow to once decompressed; default 64 MiB. */
  maxBodyBytes?: number;
}

/** Failures before the request could leave: nothing reached the venue. */
const CONNECT_PHASE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** undici's own timeouts after the request was written. */
const ANSWER_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

const DECODERS: Record<string, (b: Buffer, o: { maxOutputLength: number }) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

export class Transport {
  private readonly agent: Agent;
  private readonly maxBodyBytes: number;

  constructor(private readonly opts: TransportOptions) {
    this.maxBodyBytes = opts.maxBodyBytes ?? 64 * 1024 * 1024;
    this.agent = new Agent({
      connections: 16,
      pipelining: 1,
      connect: { timeout: opts.connectTimeoutMs ?? Math.min(5000, opts.timeoutMs) },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const abort = new AbortController();
    let timedOut: TransportError | undefined;
    const timer = setTimeout(
      () => abort.abort((timedOut = new TransportError('timeout', true, `no answer within ${this.opts.timeoutMs} ms`, undefined))),
      this.opts.timeoutMs,
    );
    try {
      const { url, headers } = withUserinfo(
        req.url,
        hasHeader(req.headers, 'accept-encoding') ? req.headers : { ...req.headers, 'accept-encoding': 'gzip, deflate, br' },
      );
      const res = await request(url, {
        dispatcher: this.agent,
        method: req.method,
        headers,
        ...(req.body !== undefined ? { body: req.body } : {}),
        signal: abort.signal,
      });
      const raw = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers: res.headers, body: this.decode(raw, res.headers['content-encoding']) };
    } catch (err) {
      throw timedOut ?? (err instanceof TransportError ? err : classify(err, this.opts.timeoutMs));
    } finally {
      clearTimeout(timer);
    }
  }

  /** The answer's text: decompressed as its content-encoding says (gzip, deflate, br), within maxBodyBytes. */
  private decode(raw: Buffer, encoding: string | string[] | undefined): string {
    const enc = (Array.isArray(encoding) ? encoding.join(',') : (encoding ?? '')).trim().toLowerCase();
    // An empty answer (a 204, an empty error) is empty whatever its header says.
    if (enc === '' || enc === 'identity' || raw.length === 0) return raw.toString('utf8');
    const decoder = DECODERS[enc];
    if (!decoder) throw new TransportError('network', true, `answer in an encoding this client cannot read: ${enc}`, 'EENCODING');
    try {
      return decoder(raw, { maxOutputLength: this.maxBodyBytes }).toString('utf8');
    } catch (err) {
      throw new TransportError('network', true, `answer not readable as ${enc}: ${(err as Error).message}`, (err as { code?: string }).code ?? 'EENCODING');
    }
  }

  /** Closes every connection; a request in flight fails. */
  async close(): Promise<void> {
    await this.agent.destroy().catch(() => undefined);
  }
}

/**
 * A base URL's user and password (a proxy in front of the venue, say) sent as HTTP Basic authorization, and the URL
 * without them; undici leaves them out otherwise.
 */
function withUserinfo(url: string, headers: Record<string, string>): { url: string; headers: Record<string, string> } {
  // Cut out of the text itself: the path and query stay byte for byte as signed.
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i.exec(url);
  if (!m) return { url, headers };
  const [user = '', password = ''] = m[2]!.split(/:(.*)/s);
  const basic = Buffer.from(`${decodeLoosely(user)}:${decodeLoosely(password)}`).toString('base64');
  return { url: m[1]! + url.slice(m[0].length), headers: hasHeader(headers, 'authorization') ? headers : { ...headers, authorization: `Basic ${basic}` } };
}

/** Percent-decoded, or as written when it is not valid percent-encoding. */
function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

/** An undici or socket failure as a TransportError: kind, whether the request may have left, its code. */
function classify(err: unknown, timeoutMs: number): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return err instanceof Error ? new TransportError('network', true, err.message, undefined) : err;
  const message = (err as Error).message;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new TransportError('timeout', false, `no connection within the connect timeout: ${message}`, code);
  if (ANSWER_TIMEOUT_CODES.has(code)) return new TransportError('timeout', true, `no answer within ${timeoutMs} ms (${code})`, code);
  return new TransportError('network', !CONNECT_PHASE_CODES.has(code), `${code}: ${message}`, code);
}
