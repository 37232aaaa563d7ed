// The spec file of `sextant optimize`: which strategy instance varies, the space of its params (lists, or ranges
// counted in exact decimals), how candidates are drawn and trimmed (grid or seeded random; successive halving),
// the objective, the walk-forward windows, the Monte Carlo resampling and the lookahead check.
import { z } from 'zod';
import { Decimal } from '../domain/decimal.js';
import { ConfigError, dotted, inFileOrder, locatedIssues, parseYaml, readConfigFile, type ConfigIssue, type ConfigSource } from './load.js';

/** Ranges longer than this are refused: a typo in a step should not ask for a million backtests. */
export const MAX_RANGE_VALUES = 10_000;

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const DURATION_RE = /^(\d+)(ms|s|m|h|d|w)$/;
const DURATION_HELP = "a duration: a whole number and a unit (ms, s, m, h, d, w), e.g. '10d', '12h'";

/** '10d' -> 864000000; undefined when it is not a duration. */
export function durationMs(text: string): number | undefined {
  const m = DURATION_RE.exec(text);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

const duration = z.string({ error: DURATION_HELP }).refine((text) => durationMs(text) !== undefined, { message: DURATION_HELP });

const bound = z.union([z.number(), z.string()], { error: 'expected a number, or a decimal as text ("0.5")' });
const range = z.strictObject({ from: bound, to: bound, step: bound }, { error: 'expected a list of values, or a range {from, to, step}' });
const VALUES = 'expected a non-empty list of values, or a range {from, to, step}';
const paramSpace = z.union([z.array(z.unknown()).min(1, VALUES), range], { error: VALUES });

export const OBJECTIVES = ['strategyPnl', 'sharpe', 'sortino', 'calmar', 'profitFactor'] as const;
export type ObjectiveName = (typeof OBJECTIVES)[number];

const specSchema = z.strictObject(
  {
    /** The strategy instance (id) whose params vary. */
    strategy: z.string({ error: 'expected the id of a strategy instance' }),
    /** Param name -> the values to try: a list as YAML reads it, or a range. */
    params: z.record(z.string(), paramSpace, { error: 'expected {<name>: [values...] | {from, to, step}}' }),
    search: z
      .strictObject({
        method: z.enum(['grid', 'random']).default('grid'),
        /** Random: how many distinct candidates to draw from the grid. */
        samples: z.number().int().min(1).optional(),
        seed: z.number().int().min(0).max(0xffffffff).default(1),
      })
      .refine((s) => s.method !== 'random' || s.samples !== undefined, { message: 'random search needs samples: <how many candidates>', path: ['samples'] })
      .default({ method: 'grid', seed: 1 }),
    halving: z
      .strictObject({
        enabled: z.boolean().default(true),
        /** Each rung keeps the best 1/eta of the candidates. */
        eta: z.number().int().min(2).default(3),
        /** The first rung's share of the in-sample window (0 < x <= 1), or its length as a duration. */
        minBudget: z
          .union([z.number().gt(0).lte(1), duration], { error: `expected a share of the in-sample window (0 < x <= 1), or ${DURATION_HELP}` })
          .default(0.25),
      })
      .default({ enabled: false, eta: 3, minBudget: 0.25 }),
    objective: z
      .strictObject({
        metric: z.enum(OBJECTIVES).default('strategyPnl'),
        /** Candidates with fewer closing fills than this (scaled to the rung's share of the window) rank last. */
        minTrades: z.number().int().min(0).default(0),
      })
      .default({ metric: 'strategyPnl', minTrades: 0 }),
    walkForward: z
      .strictObject({
        mode: z.enum(['rolling', 'anchored']).default('rolling'),
        inSample: duration.optional(),
        outOfSample: duration.optional(),
        folds: z.number().int().min(1).max(100).optional(),
        /** With folds alone: the in-sample window is this many times the out-of-sample one. */
        ratio: z.number().int().min(1).max(100).optional(),
      })
      .superRefine((w, ctx) => {
        const given = [w.inSample !== undefined, w.outOfSample !== undefined, w.folds !== undefined].filter(Boolean).length;
        if (w.folds === undefined && given < 2)
          ctx.addIssue({ code: 'custom', message: 'give inSample and outOfSample, or folds (with one of them, or alone)', path: [] });
        if (given === 3)
          ctx.addIssue({ code: 'custom', message: 'inSample, outOfSample and folds together say too much: give two of them, or folds alone', path: ['folds'] });
        if (w.ratio !== undefined && given !== 1) ctx.addIssue({ code: 'custom', message: 'ratio applies only with folds alone', path: ['ratio'] });
      }),
    monteCarlo: z
      .strictObject({
        /** Resampled sequences; 0: none. */
        runs: z.number().int().min(0).max(1_000_000).default(1000),
        seed: z.number().int().min(0).max(0xffffffff).default(1),
        percentiles: z.array(z.number().min(0).max(100)).min(1).default([5, 25, 50, 75, 95]),
      })
      .default({ runs: 1000, seed: 1, percentiles: [5, 25, 50, 75, 95] }),
    lookahead: z
      .strictObject({
        enabled: z.boolean().default(true),
        /** Cut points, spread evenly over the data. */
        cuts: z.number().int().min(1).max(20).default(3),
        /** Decisions this close to a cut are not compared (default: the config's tickers poll period and latency). */
        margin: duration.optional(),
      })
      .default({ enabled: true, cuts: 3 }),
    report: z
      .strictObject({
        /** The two params of the heatmap (default: the first two). */
        heatmap: z.tuple([z.string(), z.string()], { error: 'expected two param names' }).optional(),
      })
      .default({}),
  },
  { error: 'expected {strategy: <id>, params: {...}, walkForward: {...}, ...}' },
);

type RawSpec = z.infer<typeof specSchema>;

/** The spec as the optimiser uses it: every range expanded to its values, durations in ms. */
export interface OptimizeSpec {
  strategy: string;
  /** Param name -> its values, in the order written (ranges ascending). */
  params: Record<string, unknown[]>;
  search: { method: 'grid' | 'random'; samples?: number; seed: number };
  halving: { enabled: boolean; eta: number; minBudget: { share: number } | { ms: number } };
  objective: { metric: ObjectiveName; minTrades: number };
  walkForward: { mode: 'rolling' | 'anchored'; inSampleMs?: number; outOfSampleMs?: number; folds?: number; ratio?: number };
  monteCarlo: { runs: number; seed: number; percentiles: number[] };
  lookahead: { enabled: boolean; cuts: number; marginMs?: number };
  /** The two params of the heatmap; fewer when the space has fewer. */
  heatmap: string[];
}

/** A range's values, counted in exact decimals; text in, text out when written as text, numbers when written as numbers. */
function expandRange(
  r: { from: unknown; to: unknown; step: unknown },
  at: string[],
  source: ConfigSource,
  problem: (path: PropertyKey[], message: string) => void,
): unknown[] | undefined {
  const keys = ['from', 'to', 'step'] as const;
  const quoted = keys.map((k) => typeof r[k] === 'string');
  if (quoted.some((q) => q !== quoted[0])) {
    problem([...at], 'from, to and step must all be numbers, or all decimals as text ("0.5"): text gives text values, numbers give numbers');
    return undefined;
  }
  const texts = keys.map((k) => (typeof r[k] === 'string' ? (r[k] as string) : (source.numberText([...at, k]) ?? String(r[k]))));
  const parsed = texts.map((t) => Decimal.parse(t));
  let ok = true;
  parsed.forEach((d, i) => {
    if (d === null) {
      problem([...at, keys[i]!], `not a plain decimal: ${texts[i]} (write digits with an optional sign and fraction, e.g. 0.5)`);
      ok = false;
    }
  });
  if (!ok) return undefined;
  const [from, to, step] = parsed as [Decimal, Decimal, Decimal];
  if (!step.gt(Decimal.ZERO)) {
    problem([...at, 'step'], 'must be above 0');
    return undefined;
  }
  if (to.lt(from)) {
    problem([...at, 'to'], `must not be below from (${from.toString()})`);
    return undefined;
  }
  const count = to.sub(from).div(step, 0, 'down').toNumber() + 1;
  if (count > MAX_RANGE_VALUES) {
    problem([...at, 'step'], `the range has ${count} values, more than ${MAX_RANGE_VALUES}: take a larger step`);
    return undefined;
  }
  const values: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const v = from.add(step.mul(Decimal.fromInt(i)));
    values.push(quoted[0] ? v.toString() : Number(v.toString()));
  }
  return values;
}

function normalise(raw: RawSpec, source: ConfigSource, file: string): { spec: OptimizeSpec; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const problem = (path: PropertyKey[], message: string) => issues.push({ file, ...source.locate(path), path: dotted(path), message });
  const params: Record<string, unknown[]> = {};
  for (const [name, space] of Object.entries(raw.params)) {
    if (Array.isArray(space)) params[name] = space;
    else {
      const values = expandRange(space, ['params', name], source, problem);
      if (values) params[name] = values;
    }
  }
  const names = Object.keys(raw.params);
  if (names.length === 0) problem(['params'], 'name at least one param to vary');
  const heatmap = raw.report.heatmap ?? names.slice(0, 2);
  raw.report.heatmap?.forEach((name, i) => {
    if (!names.includes(name)) problem(['report', 'heatmap', i], `not a param of the space (${names.join(', ')})`);
  });
  if (raw.report.heatmap && raw.report.heatmap[0] === raw.report.heatmap[1]) problem(['report', 'heatmap', 1], 'name two different params');
  const w = raw.walkForward;
  const spec: OptimizeSpec = {
    strategy: raw.strategy,
    params,
    search: { method: raw.search.method, seed: raw.search.seed, ...(raw.search.samples !== undefined ? { samples: raw.search.samples } : {}) },
    halving: {
      enabled: raw.halving.enabled,
      eta: raw.halving.eta,
      minBudget: typeof raw.halving.minBudget === 'number' ? { share: raw.halving.minBudget } : { ms: durationMs(raw.halving.minBudget)! },
    },
    objective: raw.objective,
    walkForward: {
      mode: w.mode,
      ...(w.inSample !== undefined ? { inSampleMs: durationMs(w.inSample)! } : {}),
      ...(w.outOfSample !== undefined ? { outOfSampleMs: durationMs(w.outOfSample)! } : {}),
      ...(w.folds !== undefined ? { folds: w.folds } : {}),
      ...(w.ratio !== undefined ? { ratio: w.ratio } : {}),
    },
    monteCarlo: raw.monteCarlo,
    lookahead: {
      enabled: raw.lookahead.enabled,
      cuts: raw.lookahead.cuts,
      ...(raw.lookahead.margin !== undefined ? { marginMs: durationMs(raw.lookahead.margin)! } : {}),
    },
    heatmap,
  };
  return { spec, issues };
}

/** Reads and checks an optimize spec; throws ConfigError with every problem, each with its line and path. */
export function readOptimizeSpec(file: string): OptimizeSpec {
  const yaml = parseYaml(readConfigFile(file), file);
  if (yaml.issues.length) throw new ConfigError(yaml.issues);
  const parsed = specSchema.safeParse(yaml.value);
  if (!parsed.success) throw new ConfigError(inFileOrder(locatedIssues(parsed.error.issues, { file, source: yaml.source })));
  const { spec, issues } = normalise(parsed.data, yaml.source, file);
  if (issues.length) throw new ConfigError(inFileOrder(issues));
  return spec;
}
