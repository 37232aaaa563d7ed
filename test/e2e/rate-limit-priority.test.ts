// Priorities (cancel > place > read), the account's order-creation limit, and clock-skew recovery.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { FakeVenue } from '../fixtures/fake-venue.js';
import { GENEROUS_LIMITS, clientFor } from '../fixtures/live-client.js';

let venue: FakeVenue | undefined;
let client: LiveClient | undefined;
afterEach(async () => {
  await client?.close();
  await venue?.close();
  client = venue = undefined;
});

const PLACE = {
  symbol: 'cmt_btcusdt',
  orderDataList: [{ client_oid: 'sx_1', size: '0.01', type: '1' as const, order_type: '0' as const, match_price: '0' as const, price: '1' }],
};

describe('limiter priorities', () => {
  it('a cancel queued behind reads goes first, then a placement, then the reads', async () => {
    venue = await FakeVenue.start();
    client = clientFor(venue, { rateLimit: { ...GENEROUS_LIMITS, cooloffMs: 300 } });
    const c = client;
    // Shut the futures pools (as a 429 would) so that everything below queues up.
    await c.limiter.onRateLimited('futures');
    const reads = Array.from({ length: 10 }, () => c.futures.currentOrders({}));
    await new Promise((r) => setTimeout(r, 50));
    const place = c.futures.placeBatch(PLACE);
    const cancel = c.futures.cancelBatch({ symbol: 'cmt_btcusdt', ids: ['1'] });
    await Promise.all([...reads, place, cancel]);
    // The read acquiring when they came gives way: the cancel, the placement, then the reads.
    expect(venue.requests.map((r) => r.id)).toEqual(['F7', 'F6', ...Array(10).fill('F5')]);
  });
});

describe('order-creation limit per minute (F3 create_order_rate_limit_per_minute)', () => {
  it('is applied once the account reports it', async () => {
    venue = await FakeVenue.start();
    client = clientFor(venue);
    venue.script('F3', { status: 200, body: '{"account":{"create_order_rate_limit_per_minute":3},"collateral":[],"position":[]}' });
    await client.balances('futures');
    const c = client;
    const results = Array.from({ length: 3 }, () =>
      c.futures.placeBatch(PLACE).then(
        () => 'sent',
        () => 'dropped',
      ),
    );
    await new Promise((r) => setTimeout(r, 400));
    expect(venue.calls('F6')).toHaveLength(1);
    await c.close();
    client = undefined;
    expect(await Promise.all(results)).toEqual(['sent', 'dropped', 'dropped']);
  });

  it('a batch larger than the account allows at once is refused before sending', async () => {
    venue = await FakeVenue.start();
    client = clientFor(venue);
    client.limiter.setOrderCreationLimitPerMinute('futures', 3);
    const many = Array.from({ length: 5 }, (_, i) => ({ ...PLACE.orderDataList[0]!, client_oid: `sx_${i}` }));
    await expect(client.futures.placeBatch({ symbol: 'cmt_btcusdt', orderDataList: many })).rejects.toThrow(/order-creation/);
    expect(venue.calls('F6')).toHaveLength(0);
  });
});

describe('clock skew', () => {
  it('a venue clock 45 s ahead: the first signed call is refused with 40008, the clock is resynced, the call succeeds', async () => {
    venue = await FakeVenue.start({ clockSkewMs: 45_000 });
    client = clientFor(venue);
    const acct = await client.futures.accounts();
    expect(acct.collateral).toHaveLength(1);
    expect(venue.calls('F3').map((r) => r.auth)).toEqual(['40008', 'ok']);
    expect(Math.abs(client.rest.clockOffsetMs - 45_000)).toBeLessThan(2000);
    // From then on every signed call passes at once.
    await client.spot.assets();
    expect(venue.calls('S8').map((r) => r.auth)).toEqual(['ok']);
  });

  it('a write refused with 40008 is not re-sent by the client (its outcome is known: rejected)', async () => {
    venue = await FakeVenue.start({ clockSkewMs: -45_000 });
    client = clientFor(venue);
    await expect(client.futures.placeBatch(PLACE)).rejects.toMatchObject({ category: 'timestamp', outcomeUnknown: false, retryable: true });
    expect(venue.calls('F6')).toHaveLength(1);
    await client.futures.placeBatch(PLACE);
    expect(venue.calls('F6').map((r) => r.auth)).toEqual(['40008', 'ok']);
  });
});
