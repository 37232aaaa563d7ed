// The account lease in PostgreSQL, against the real server: one grant among holders racing, renewals, a lapsed lease
// taken with a larger token (by the database's clock), the old holder's renewal and release refused, release.
import { afterAll, describe, expect, it } from '@jest/globals';
import { PostgresJournal } from '../../../src/journal/postgres-journal.js';
import { PostgresLeaseStore } from '../../../src/journal/postgres-lease.js';
import { dropPostgresSchemas, freshPostgresUrl } from '../../fixtures/postgres.js';

afterAll(() => dropPostgresSchemas());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PostgreSQL lease store', () => {
  it('grants a free lease to one of several holders racing for it, and renews it for that one only', async () => {
    const url = freshPostgresUrl('lease');
    const stores = Array.from({ length: 4 }, () => new PostgresLeaseStore(url));
    try {
      const grants = await Promise.all(stores.map((s, i) => s.acquire('acc', `daemon-${i}`, 5000)));
      const won = grants.flatMap((g, i) => (g ? [[i, g] as const] : []));
      expect(won).toHaveLength(1);
      const [winner, grant] = won[0]!;
      expect(grant).toEqual({ token: 1, ttlMs: 5000 });
      const now = await stores[0]!.current('acc');
      expect(now).toMatchObject({ holder: `daemon-${winner}`, token: 1 });
      expect(now!.ttlLeftMs).toBeGreaterThan(3000);
      expect(now!.ttlLeftMs).toBeLessThanOrEqual(5000);
      // The holder again: the same token; renewals by it succeed, by anyone else (or with another token) fail.
      expect(await stores[winner]!.acquire('acc', `daemon-${winner}`, 5000)).toEqual({ token: 1, ttlMs: 5000 });
      expect(await stores[winner]!.renew('acc', `daemon-${winner}`, 1, 5000)).toBe(true);
      expect(await stores[winner]!.renew('acc', `daemon-${winner}`, 2, 5000)).toBe(false);
      const other = (winner + 1) % 4;
      expect(await stores[other]!.renew('acc', `daemon-${other}`, 1, 5000)).toBe(false);
      expect(await stores[other]!.acquire('acc', `daemon-${other}`, 5000)).toBeNull();
      // Another account is another lease, its first token above every one granted in the database.
      expect(await stores[other]!.acquire('acc2', `daemon-${other}`, 5000)).toEqual({ token: 2, ttlMs: 5000 });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('lets a lapsed lease be taken with a larger token; the old holder can neither renew nor release it; release frees it', async () => {
    const url = freshPostgresUrl('lease');
    const a = new PostgresLeaseStore(url);
    const b = new PostgresLeaseStore(url);
    try {
      // b connected first: its first query is not what spends a's lease (a loaded runner took over 300 ms for it).
      expect(await b.current('acc')).toBeNull();
      const first = await a.acquire('acc', 'a', 1500);
      expect(first).toEqual({ token: 1, ttlMs: 1500 });
      expect(await b.acquire('acc', 'b', 5000)).toBeNull();
      await sleep(1700);
      expect(await a.current('acc')).toBeNull();
      const taken = await b.acquire('acc', 'b', 5000);
      expect(taken!.token).toBeGreaterThan(first!.token);
      expect(await a.renew('acc', 'a', first!.token, 5000)).toBe(false);
      await a.release('acc', 'a', first!.token);
      expect(await a.current('acc')).toMatchObject({ holder: 'b', token: taken!.token });
      // The old holder asking again while b holds it: refused.
      expect(await a.acquire('acc', 'a', 5000)).toBeNull();
      await b.release('acc', 'b', taken!.token);
      expect(await a.current('acc')).toBeNull();
      expect(await b.renew('acc', 'b', taken!.token, 5000)).toBe(false);
      // Tokens only grow, after a release too.
      const again = await a.acquire('acc', 'a', 5000);
      expect(again!.token).toBeGreaterThan(taken!.token);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a journal rebound to other keys (another account's lease) lets their first holder through its fence, and back", async () => {
    const url = freshPostgresUrl('lease');
    const store = new PostgresLeaseStore(url);
    const journal = new PostgresJournal(url, { clientOidPrefix: 'sx' });
    try {
      // The keys before: three holders in turn, the journal fenced by the last.
      let last = 0;
      for (const holder of ['a', 'b', 'c']) {
        last = (await store.acquire('old-keys', holder, 5000))!.token;
        await store.release('old-keys', holder, last);
      }
      journal.fence(last);
      const first = (await store.acquire('new-keys', 'd', 5000))!.token;
      expect(first).toBeGreaterThan(last);
      expect(() => journal.fence(first)).not.toThrow();
      await store.release('new-keys', 'd', first);
      // The keys before again (rotated back): above the new keys' tokens too.
      const back = (await store.acquire('old-keys', 'e', 5000))!.token;
      expect(back).toBeGreaterThan(first);
      expect(() => journal.fence(back)).not.toThrow();
    } finally {
      journal.close();
      await store.close();
    }
  });

  it('says where it failed without the password', async () => {
    const store = new PostgresLeaseStore('postgres://sextant:s3cr3t-pw@127.0.0.1:1/nowhere');
    try {
      const err = (await store.acquire('acc', 'a', 1000).catch((e: unknown) => e)) as Error;
      expect(err.message).toMatch(/^lease store PostgreSQL at postgres:\/\/\[redacted\]@127\.0\.0\.1:1\/nowhere: /);
      expect(err.message).not.toContain('s3cr3t-pw');
    } finally {
      await store.close();
    }
  });
});
