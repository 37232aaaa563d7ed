// equity.csv written as the samples are taken: a line per sample, money at 8 places, and in a run that trades futures
// the margin rate against the maintenance rate (empty while flat).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { EquityCsv } from '../../../src/report/equity-csv.js';
import type { EquityPoint } from '../../../src/report/metrics.js';

const d = (s: string) => Decimal.from(s);
const dir = mkdtempSync(join(tmpdir(), 'sextant-equity-'));

describe('EquityCsv', () => {
  it('a line per sample as it comes, each once; the futures columns in a run that trades futures', () => {
    const points: EquityPoint[] = [];
    const spot = new EquityCsv(join(dir, 'spot.part'), false);
    const futures = new EquityCsv(join(dir, 'futures.part'), true);
    const add = (p: EquityPoint) => {
      points.push(p);
      spot.take(points);
      futures.take(points);
    };
    add({ ts: 1000, equity: d('100.123456789'), hold: d('100'), marginRate: null, maintenanceRate: null });
    add({ ts: 2000, equity: d('-0.000000004'), hold: d('99.5'), marginRate: d('0.25'), maintenanceRate: d('0.005') });
    spot.take(points);
    spot.moveTo(join(dir, 'spot.csv'));
    futures.moveTo(join(dir, 'futures.csv'));
    expect(readFileSync(join(dir, 'spot.csv'), 'utf8')).toBe('ts,equity,buy_and_hold\n1000,100.12345679,100.00000000\n2000,0.00000000,99.50000000\n');
    expect(readFileSync(join(dir, 'futures.csv'), 'utf8')).toBe(
      'ts,equity,buy_and_hold,margin_rate,maintenance_rate\n1000,100.12345679,100.00000000,,\n2000,0.00000000,99.50000000,0.25,0.005\n',
    );
  });
});
