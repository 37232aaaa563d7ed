// `sextant risk reduce|status|reset` in process: the reduce order kept in the journal, shown, and cleared.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { main } from '../../../../src/app/cli.js';
import { SqliteJournal } from '../../../../src/journal/sqlite-journal.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-risk-'));

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['node', 'sextant', ...args], { out: (text) => void out.push(text), err: (text) => void err.push(text) });
  return { code, out, err };
}

/** A config whose journal exists (nothing traded yet). */
function configWithJournal(name: string): { file: string; journalPath: string } {
  const file = join(dir, `${name}.yaml`);
  const journalPath = join(dir, name, 'journal.sqlite');
  writeFileSync(file, `journal:\n  path: ${journalPath}\n`);
  mkdirSync(join(dir, name));
  new SqliteJournal(journalPath, { clientOidPrefix: 'sx' }).close();
  return { file, journalPath };
}

describe('sextant risk', () => {
  it('reduce keeps the reason in the journal; status shows reducing; reset clears it', async () => {
    const { file, journalPath } = configWithJournal('reduce');
    expect(await run(['risk', 'reduce', '--reason', '  funding spike  ', '-c', file])).toEqual({ code: 0, out: ['reducing: funding spike'], err: [] });
    const journal = new SqliteJournal(journalPath, { clientOidPrefix: 'sx' });
    expect(journal.latch('reduce:operator')?.reason).toBe('funding spike');
    journal.close();
    const status = await run(['risk', 'status', '-c', file]);
    expect(status.out[0]).toBe(
      'reducing: reduce:operator: funding spike\nfence: no order with an unknown outcome (a starting daemon also waits for its first reconciliation and, live, a signed request)',
    );
    expect(await run(['risk', 'reset', '-c', file])).toEqual({ code: 0, out: ['cleared: reduce:operator: funding spike'], err: [] });
    expect((await run(['risk', 'status', '-c', file])).out[0]).toMatch(/^active: no kill switch latched\n/);
    expect(await run(['risk', 'reset', '-c', file])).toEqual({ code: 0, out: ['nothing was latched'], err: [] });
  });

  it('a blank reason is refused (exit 1) and nothing is kept', async () => {
    const { file, journalPath } = configWithJournal('blank');
    const r = await run(['risk', 'reduce', '--reason', ' ', '-c', file]);
    expect({ code: r.code, out: r.out, errs: r.err.length }).toEqual({ code: 1, out: [], errs: 1 });
    const journal = new SqliteJournal(journalPath, { clientOidPrefix: 'sx' });
    expect(journal.latch('reduce:operator')).toBeUndefined();
    journal.close();
  });

  it('a kill switch wins over a reduce order in status; reset clears both, the kill switch named first', async () => {
    const { file, journalPath } = configWithJournal('both');
    expect((await run(['risk', 'reduce', '--reason', 'thin book', '-c', file])).code).toBe(0);
    const journal = new SqliteJournal(journalPath, { clientOidPrefix: 'sx' });
    journal.setLatch('kill-switch:drawdown', 'drawdown 12 % from peak 100', 1);
    journal.close();
    expect((await run(['risk', 'status', '-c', file])).out[0]).toMatch(/^halted: kill-switch:drawdown: drawdown 12 % from peak 100\n/);
    expect((await run(['risk', 'reset', '-c', file])).out).toEqual([
      'cleared: kill-switch:drawdown: drawdown 12 % from peak 100\ncleared: reduce:operator: thin book',
    ]);
    expect((await run(['risk', 'status', '-c', file])).out[0]).toMatch(/^active: /);
  });

  it('with no journal: said so, exit 1', async () => {
    const file = join(dir, 'none.yaml');
    writeFileSync(file, `journal:\n  path: ${join(dir, 'none', 'journal.sqlite')}\n`);
    const r = await run(['risk', 'reduce', '--reason', 'x', '-c', file]);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([`no journal at ${join(dir, 'none', 'journal.sqlite')} (journal.path in ${file}): nothing has traded with this configuration yet`]);
  });
});
