// The configuration schema (zod, strict: unknown keys fail) and every default, in one place.
import { z } from 'zod';

const positiveInt = z.number().int().positive();

const windowBudget = (budget: number, windowMs: number) =>
  z.strictObject({
    budget: positiveInt.default(budget).describe('weight (or requests) allowed in any interval of windowMs'),
    windowMs: positiveInt.default(windowMs),
  }).prefault({});

const surfaceBudget = (ip: number, uid: number) =>
  z.strictObject({ ip: windowBudget(ip, 10_000), uid: windowBudget(uid, 10_000) }).prefault({});

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

export const rateLimitSchema = z
  .strictObject({
    // Venue budgets: futures 1000 weight / 10 s per IP and per UID; spot 500 / 10 s.
    spot: surfaceBudget(500, 500),
    futures: surfaceBudget(1000, 1000),
    // Place / cancel / trigger endpoints: at most 10 requests per second.
    orderRequests: windowBudget(10, 1000),
    usableFraction: z.number().gt(0).max(1).default(0.9),
    cooloffMs: positiveInt.default(10_000),
    redis: z
      .strictObject({
        url: z.url({ protocol: /^rediss?$/, error: 'expected a redis:// URL' }),
        keyPrefix: z.string().regex(/^[A-Za-z0-9:_-]+$/).default('sextant'),
      })
      .optional(),
  })
  .prefault({});

export const exchangeSchema = z
  .strictObject({
    spotBaseUrl: httpUrl.default('https://api-spot.weex.com'),
    futuresBaseUrl: httpUrl.default('https://api-contract.weex.com'),
    locale: z.string().regex(/^[a-z]{2}-[A-Z]{2}$/, 'expected a locale like en-US').default('en-US'),
    timeoutMs: positiveInt.max(120_000).default(10_000),
    retry: z
      .strictObject({
        attempts: positiveInt.max(10).default(3),
        baseDelayMs: positiveInt.default(250),
        maxDelayMs: positiveInt.default(5_000),
      })
      .prefault({}),
    maxPages: positiveInt.max(1000).default(20),
    rateLimit: rateLimitSchema,
  })
  .prefault({});

export const configSchema = z.strictObject({
  mode: z.enum(['live', 'dry-run', 'backtest']).default('live'),
  exchange: exchangeSchema,
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    })
    .prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type ExchangeConfig = Config['exchange'];
export type RateLimitConfig = ExchangeConfig['rateLimit'];
