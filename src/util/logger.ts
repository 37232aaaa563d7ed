// Structured JSON logging (pino) with secrets redacted everywhere: fields, headers, credentials inside URLs and
// known secret values.
import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';
import { scrubSecrets } from './secrets.js';

export { redactUrlCredentials, registerSecret, registerUrlCredentials, scrubSecrets } from './secrets.js';

export type Logger = PinoLogger;
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Field names whose values never reach the output, at any depth we know of. */
const SECRET_KEYS = [
  'apiKey',
  'apiSecret',
  'passphrase',
  'secret',
  'key',
  'password',
  'token',
  'authorization',
  'ACCESS-SIGN',
  'ACCESS-KEY',
  'ACCESS-PASSPHRASE',
  'access-sign',
  'access-key',
  'access-passphrase',
];

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const k of SECRET_KEYS) {
    const seg = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`;
    const join = (prefix: string) => (seg.startsWith('[') ? `${prefix}${seg}` : `${prefix}.${seg}`);
    paths.push(seg.startsWith('[') ? seg : k, join('*'), join('*.*'), join('headers'), join('*.headers'), join('request.headers'), join('err.request.headers'));
  }
  return [...new Set(paths)];
}

const REDACTED = '[redacted]';

export interface LoggerOptions {
  level?: LogLevel;
  destination?: DestinationStream;
  /** Write to this file descriptor when no destination is given (2 keeps stdout clean for command output). */
  fd?: 1 | 2;
  base?: Record<string, unknown>;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      base: opts.base ?? { app: 'sextant' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: redactPaths(), censor: REDACTED },
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        // Last line of defence: a registered secret value never leaves the process in a log line.
        streamWrite: (line: string) => scrubSecrets(line),
      },
    },
    opts.destination ?? pino.destination({ dest: opts.fd ?? 1, sync: true }),
  );
}

/** A logger that writes nothing (tests, library use). */
export const silentLogger: Logger = pino({ level: 'silent' });

/**
 * A child of `logger` whose lines (and its children's) carry `nowMs()` as their time: a backtest's virtual clock.
 * pino writes what a logger's time function (under `pino.symbols.timeSym`, which children inherit) returns.
 */
export function withClock(logger: Logger, nowMs: () => number): Logger {
  const child = logger.child({});
  (child as unknown as Record<symbol, () => string>)[pino.symbols.timeSym] = () => `,"time":"${new Date(nowMs()).toISOString()}"`;
  return child;
}
