// `sextant health`: asks a running daemon's /health, found as `sextant status` finds it (the config's daemon.http
// address and port, the token of its tokenEnv, the _FILE variant or the token file the daemon wrote); exits 0 when
// it answers 200, else 1, with one line saying what it answered. The container health checks run it, so the port
// they probe is the config's.
import type { Command } from 'commander';
import { systemClock } from '../../util/clock.js';
import { DaemonClient, daemonOptions, type DaemonOptions } from './daemon-client.js';
import type { Io, SetCode } from './io.js';

interface HealthOptions extends DaemonOptions {
  timeout: string;
}

/** The answer's body on one line (JSON compacted; any other text with its line breaks folded). */
function oneLine(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text.replace(/\s+/g, ' ').trim();
  }
}

async function health(io: Io, opts: HealthOptions): Promise<number> {
  const timeoutMs = Number(opts.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    io.err(`health: --timeout must be a whole number of milliseconds above 0, not "${opts.timeout}"`);
    return 1;
  }
  let client: DaemonClient;
  try {
    client = DaemonClient.from(opts);
  } catch (err) {
    io.err(`health: ${(err as Error).message}`);
    return 1;
  }
  const url = `${client.baseUrl}/health`;
  const token = client.credential;
  const controller = new AbortController();
  const timer = systemClock.setTimer(() => controller.abort(), timeoutMs);
  let status: number;
  let body: string;
  try {
    const res = await fetch(url, { headers: { 'x-sextant-client': 'cli', ...(token ? { authorization: `Bearer ${token}` } : {}) }, signal: controller.signal });
    status = res.status;
    body = oneLine(await res.text());
  } catch (err) {
    // fetch's own error says only `fetch failed`: the reason is its cause (ECONNREFUSED …).
    const reason = (err as { cause?: { code?: string; message?: string } }).cause;
    const cause = controller.signal.aborted ? `no answer in ${timeoutMs} ms` : (reason?.code ?? reason?.message ?? (err as Error).message);
    io.err(`unhealthy: no daemon answers at ${url} (${cause})`);
    return 1;
  } finally {
    timer.cancel();
  }
  if (status === 200) {
    io.out(opts.json ? body : `healthy: ${url} answered 200 ${body}`);
    return 0;
  }
  const hint = status === 401 ? " (the daemon's token: --token, SEXTANT_HTTP_TOKEN or SEXTANT_HTTP_TOKEN_FILE, read with the config it runs)" : '';
  io.err(`unhealthy: ${url} answered ${status} ${body}${hint}`);
  return 1;
}

export function registerHealth(program: Command, io: Io, setCode: SetCode): void {
  daemonOptions(
    program
      .command('health')
      .description(
        "a running daemon's liveness (GET /health, on the address and port of the config's daemon.http, with its token): exits 0 when it answers 200, else 1, printing one line",
      ),
  )
    .option('--timeout <ms>', 'how long to wait for the answer', '5000')
    .action(async (opts: HealthOptions) => setCode(await health(io, opts)));
}
