// The notify section of the config: absent by default, defaults filled in, secrets only by variable name, chat ids
// as strings, and the daily summary's channels checked against the channels configured.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseConfig } from '../../../../src/config/load.js';

function issues(yaml: string): string[] {
  try {
    parseConfig(yaml, 'c.yaml', {});
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
  return [];
}

describe('notify config', () => {
  it('is absent unless written; fills its defaults', () => {
    expect(parseConfig('mode: live\n', 'c.yaml', {}).config.notify).toBeUndefined();
    const notify = parseConfig(
      'notify:\n  webhooks: [{ url: "https://example.test/h", secretEnv: HOOK }]\n  telegram: { chatIds: [-1001234567890, "42"] }\n',
      'c.yaml',
      {},
    ).config.notify!;
    expect(notify.webhooks[0]).toEqual({
      url: 'https://example.test/h',
      secretEnv: 'HOOK',
      maxPerMinute: 20,
      queueSize: 500,
      burst: { windowMs: 10_000, max: 3 },
      events: ['fill', 'rejection', 'kill-switch', 'strategy-fault', 'reconciliation', 'unknown-order'],
    });
    expect(notify.telegram).toMatchObject({
      tokenEnv: 'SEXTANT_TELEGRAM_TOKEN',
      apiRoot: 'https://api.telegram.org',
      chatIds: ['-1001234567890', '42'],
      commands: true,
    });
    expect(notify.discord).toEqual([]);
    expect(notify.retry).toEqual({ attempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000, timeoutMs: 10_000 });
  });

  it('refuses a secret written in the file, unknown events, a bad time, and daily channels that do not exist', () => {
    expect(
      issues(
        [
          'notify:',
          '  webhooks: [{ url: "https://example.test/h", secretEnv: HOOK, secret: "in-the-file" }]',
          '  discord: [{ urlEnv: discord_url, events: [fills] }]',
          '  telegram: { chatIds: [], apiRoot: "http://127.0.0.1:1/" }',
          '  daily: { at: "7:30", channels: [ops, telegram] }',
        ].join('\n'),
      ),
    ).toEqual([
      'notify.webhooks[0].secret: unknown key',
      'notify.discord[0].urlEnv: expected an environment variable name, e.g. SEXTANT_WEBHOOK_SECRET',
      expect.stringMatching(/^notify\.discord\[0\]\.events\[0\]: /),
      expect.stringMatching(/^notify\.telegram\.chatIds: /),
      'notify.telegram.apiRoot: no trailing slash',
      'notify.daily.at: expected HH:MM, e.g. "07:30"',
    ]);
    expect(
      issues(
        'notify:\n  webhooks: [{ url: "https://x.test/1", secretEnv: A }]\n  telegram: { chatIds: [1] }\n  daily: { at: "07:30", channels: [telegram, ops] }\n',
      ),
    ).toEqual(['notify.daily.channels[1]: no channel is named "ops" (channels: webhook-0, telegram)']);
    expect(issues('notify:\n  webhooks: [{ name: a, url: "https://x.test/1", secretEnv: A }]\n  discord: [{ name: a, urlEnv: B }]\n')).toEqual([
      'notify: two channels are named "a" (channel 2)',
    ]);
  });
});
