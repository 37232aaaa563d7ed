// How the commands that talk to a running daemon reach it: its control API's URL (--url, else the config's
// daemon.http), the bearer token (--token, else the config's tokenEnv or its _FILE variant, else the token file the
// daemon wrote at start), one JSON request with a clear error when no daemon answers, and aligned tables for what
// they print.
import type { Command } from 'commander';
import { loadConfig } from '../../config/load.js';
import { systemClock } from '../../util/clock.js';
import { clientToken, httpToken, reachableUrl } from '../http.js';
import { DEFAULT_CONFIG, type Io } from './io.js';

export interface DaemonOptions {
  config: string;
  url?: string;
  token?: string;
  json?: boolean;
}

/** The options every daemon command takes. */
export function daemonOptions(cmd: Command): Command {
  return cmd
    .option('-c, --config <file>', 'config file: where the daemon listens (daemon.http) and its token variable', DEFAULT_CONFIG)
    .option('--url <url>', "the daemon's ops server (default: from the config's daemon.http)")
    .option(
      '--token <token>',
      "the bearer token (default: the config's daemon.http.tokenEnv, SEXTANT_HTTP_TOKEN, or its _FILE variant; else the token file the daemon wrote)",
    )
    .option('--json', "print the API's JSON answer");
}

const REQUEST_TIMEOUT_MS = 30_000;

export class DaemonClient {
  private constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  /** From the options: the URL and token given, else those the config file names. */
  static from(opts: DaemonOptions, env: Readonly<Record<string, string | undefined>> = process.env): DaemonClient {
    const given = opts.url;
    if (given && opts.token) return new DaemonClient(given.replace(/\/+$/, ''), opts.token);
    const cfg = loadConfig(opts.config, env).config;
    const http = cfg.daemon.http;
    const own = reachableUrl(http.host, http.port);
    const url = (given ?? own).replace(/\/+$/, '');
    // The token file the config's daemon wrote goes to that daemon only, never to another --url.
    return new DaemonClient(url, opts.token ?? (url === own ? clientToken(env, cfg) : httpToken(env, http.tokenEnv)));
  }

  /** The token the requests carry; undefined: none found. */
  get credential(): string | undefined {
    return this.token;
  }

  /** One request to /api/v1; resolves to the status and the JSON answer. Throws a readable error when nothing answers. */
  async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const controller = new AbortController();
    const timer = systemClock.setTimer(() => controller.abort(), REQUEST_TIMEOUT_MS);
    const url = `${this.baseUrl}/api/v1${path}`;
    try {
      const res = await fetch(url, {
        method,
        headers: {
          'x-sextant-client': 'cli',
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: controller.signal,
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      return { status: res.status, body: parsed };
    } catch (err) {
      // fetch's own error says only `fetch failed`: the reason is its cause (ECONNREFUSED, a bad port …).
      const reason = (err as { cause?: { code?: string; message?: string } }).cause;
      const cause = controller.signal.aborted ? `no answer in ${REQUEST_TIMEOUT_MS / 1000} s` : (reason?.code ?? reason?.message ?? (err as Error).message);
      throw new Error(`no daemon answers at ${this.baseUrl} (${cause}): is \`sextant run\` running with this config? (--url to name another)`);
    } finally {
      timer.cancel();
    }
  }
}

/** Aligned text columns, a header line first. */
export function table(columns: string[], rows: string[][]): string {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (xs: string[]) =>
    xs
      .map((x, i) => x.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map(line)].join('\n');
}

/**
 * Runs one request and prints its answer: `--json` prints the JSON as given, else `format` makes the text. An
 * error answer goes to stderr (exit 1); a daemon that does not answer too.
 */
export async function callDaemon(
  io: Io,
  opts: DaemonOptions,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  format: (answer: unknown) => string,
): Promise<number> {
  let res: { status: number; body: unknown };
  try {
    res = await DaemonClient.from(opts).request(method, path, body);
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
  if (res.status >= 400) {
    const error = (res.body as { error?: unknown } | null)?.error;
    const hint =
      res.status === 401
        ? " (the daemon's token: --token, SEXTANT_HTTP_TOKEN / SEXTANT_HTTP_TOKEN_FILE, or the token file the daemon wrote beside its journal, read with the same config)"
        : '';
    io.err(`${method} ${path}: HTTP ${res.status}: ${typeof error === 'string' ? error : JSON.stringify(res.body)}${hint}`);
    return 1;
  }
  io.out(opts.json ? JSON.stringify(res.body, null, 2) : format(res.body));
  return 0;
}
