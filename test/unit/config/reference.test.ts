// docs/config.md is the schema's own reference: regenerated, it is the same file (`npm run docs:config` writes it).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { configReference } from '../../../src/config/reference.js';

describe('the configuration reference', () => {
  const generated = configReference();

  it('docs/config.md is what the schema generates (run `npm run docs:config` after changing the schema)', () => {
    expect(readFileSync('docs/config.md', 'utf8')).toBe(generated);
  });

  it('lists every key with its type, default and description, decimals with their defaults', () => {
    expect(generated).toContain('| `daemon.reconcileCron` | string | `"*/5 * * * * *"` | Reconciliation of the journal with the venue');
    expect(generated).toContain('| `risk.maxNotionalPerOrder` | decimal | `"10000"` |');
    expect(generated).toContain('| `sim.instruments[].symbol` | string `^([A-Z0-9]+_SPBL\\|cmt_[a-z0-9]+)$` | required |');
    expect(generated).toContain('| `strategies[].schedule` | map of string to string | `{}` |');
    for (const key of ['exchange.rateLimit.redis.keyPrefix', 'sim.budget.orderRequestsPerSecond', 'execution.vanishAfterChecks', 'log.level']) {
      expect(generated).toMatch(new RegExp(`\\| \`${key.replace(/\./g, '\\.')}\` \\| [^|]+ \\| [^|]+ \\| [^|]{10,} \\|`));
    }
  });
});
