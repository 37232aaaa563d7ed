// A new lease holder fences the journal without holding up its process: while a previous holder that stopped
// mid-write holds the journal's lock, it asks again on its timers (which keep renewing the lease), and gives up when
// the lease is lost or a stop is asked for.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { fenceJournal, StartAbandonedError } from '../../../src/app/standby.js';
import Database from '../../../src/journal/sqlite-driver.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { systemClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';

function fixture() {
  const file = join(mkdtempSync(join(tmpdir(), 'sextant-standby-')), 'journal.sqlite');
  const journal = new SqliteJournal(file, { clientOidPrefix: 'sx' });
  const holder = new Database(file);
  const lines: Array<{ msg: string; level: string }> = [];
  const logger = createLogger({
    level: 'info',
    base: {},
    destination: { write: (s: string) => void lines.push(JSON.parse(s) as { msg: string; level: string }) } as never,
  });
  const token = () => (holder.prepare('SELECT token FROM journal_fence WHERE id = 1').get() as { token: number }).token;
  return { journal, holder, lines, logger, token, close: () => (holder.close(), journal.close()) };
}

describe('fenceJournal', () => {
  it('waits while another process holds the journal locked, the event loop free meanwhile, then fences', async () => {
    const f = fixture();
    f.holder.exec('BEGIN IMMEDIATE');
    let done = false;
    const fenced = fenceJournal(f.journal, 7, { clock: systemClock, logger: f.logger, until: new Promise(() => undefined) }).then(() => (done = true));
    // Timers run meanwhile (a lease renewal would): ten 50 ms ticks pass while the lock is held.
    let ticks = 0;
    await new Promise<void>((resolve) => {
      const t = setInterval(() => ++ticks === 10 && (clearInterval(t), resolve()), 50);
    });
    expect({ done, token: f.token() }).toEqual({ done: false, token: 0 });
    f.holder.exec('ROLLBACK');
    await fenced;
    expect(f.token()).toBe(7);
    expect(f.lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'the journal is locked by another process (a previous holder that stopped mid-write): waiting for it, the lease kept'],
      ['info', 'journal fenced: another process no longer holds its lock'],
    ]);
    f.close();
  });

  it('fences at once, saying nothing, when nobody holds the lock', async () => {
    const f = fixture();
    await fenceJournal(f.journal, 3, { clock: systemClock, logger: f.logger, until: new Promise(() => undefined) });
    expect({ token: f.token(), lines: f.lines }).toEqual({ token: 3, lines: [] });
    f.close();
  });

  it('gives up with the reason when the lease is lost (or a stop asked for) while it waits, nothing recorded', async () => {
    const f = fixture();
    f.holder.exec('BEGIN IMMEDIATE');
    const why = new StartAbandonedError('the account lease was lost (renewal refused)', false);
    const until = new Promise<StartAbandonedError>((resolve) => setTimeout(() => resolve(why), 300));
    await expect(fenceJournal(f.journal, 9, { clock: systemClock, logger: f.logger, until })).rejects.toBe(why);
    f.holder.exec('ROLLBACK');
    expect(f.token()).toBe(0);
    f.close();
  });
});
