// The sweep spec file of `sextant backtest --sweep`: which strategy instance varies and the values of each param.
import { z } from 'zod';
import { ConfigError, inFileOrder, locatedIssues, parseYaml, readConfigFile } from './load.js';

const SHAPE = 'expected {strategy: <id>, params: {<name>: [values...]}}';
const VALUES = 'must be a non-empty list';

const sweepSpecSchema = z.strictObject(
  {
    /** The strategy instance (id) whose params vary. */
    strategy: z.string({ error: 'expected the id of a strategy instance' }),
    /** Param name -> the values to try, as YAML reads them. */
    params: z.record(z.string(), z.array(z.unknown(), { error: VALUES }).min(1, VALUES), { error: 'expected {<name>: [values...]}' }),
  },
  { error: SHAPE },
);

export type SweepSpec = z.infer<typeof sweepSpecSchema>;

/** Reads and checks a sweep spec; throws ConfigError with every problem, each with its line and path. */
export function readSweepSpec(file: string): SweepSpec {
  const yaml = parseYaml(readConfigFile(file), file);
  if (yaml.issues.length) throw new ConfigError(yaml.issues);
  const parsed = sweepSpecSchema.safeParse(yaml.value);
  if (!parsed.success) throw new ConfigError(inFileOrder(locatedIssues(parsed.error.issues, { file, source: yaml.source })));
  return parsed.data;
}
