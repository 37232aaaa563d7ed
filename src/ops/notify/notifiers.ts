// The notifier hub: the channels the `notify` config names (webhooks, Discord, Telegram), one listener on the
// Control's events that only turns each event into a notice and offers it to every channel (a queue each, drained
// apart), the daily summary on its UTC schedule, the Telegram chat commands, and a clean stop.
import type { NotifyConfig } from '../../config/schema.js';
import { notifyChannelNames } from '../../config/schema.js';
import type { Clock, ClockTimer } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { registerSecret, registerUrlCredentials } from '../../util/secrets.js';
import type { Control } from '../control.js';
import { Channel, errorText, type ChannelOptions, type Sender } from './channel.js';
import { DailySchedule, dailySummary } from './daily.js';
import { noticeOf } from './notice.js';
import { readEnvSecret } from './secret-env.js';
import { TelegramBot } from './telegram.js';
import { discordSender, webhookSender } from './webhook.js';

/** Secrets the config names that the environment does not hold: every problem at once, no value in any. */
export class NotifyConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`notifications cannot start:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'NotifyConfigError';
  }
}

export interface Notifiers {
  readonly channels: ReadonlyArray<Channel>;
  readonly telegram: TelegramBot | undefined;
  /** Events the listener took in, counted (each returned at once: it only enqueues). */
  readonly listened: { events: number };
  /** Sends the daily summary now to its channels. */
  sendDaily(): void;
  /** Stops listening; lets queued messages go for up to `graceMs` (through the clock), then stops every channel. */
  stop(graceMs?: number): Promise<void>;
}

export interface NotifierDeps {
  clock: Clock;
  logger: Logger;
  env?: Record<string, string | undefined>;
}

/**
 * Builds and starts the notifiers of `cfg` over `control`; undefined when the config has no notify section.
 * Throws NotifyConfigError when a secret it names is missing (nothing is started then).
 */
export function startNotifiers(cfg: NotifyConfig | undefined, control: Control, deps: NotifierDeps): Notifiers | undefined {
  if (!cfg) return undefined;
  const { clock, logger, env = process.env } = deps;
  const log = logger.child({ component: 'notify' });
  const problems: string[] = [];
  const secret = (name: string, what: string): string => {
    const read = readEnvSecret(env, name);
    if ('problem' in read) {
      problems.push(`${what}: ${read.problem}`);
      return '';
    }
    return read.value;
  };
  const names = notifyChannelNames(cfg);
  const { timeoutMs, ...retry } = cfg.retry;
  const channelOpts = (name: string, c: Omit<ChannelOptions, 'name' | 'retry'>): ChannelOptions => ({
    name,
    events: c.events,
    maxPerMinute: c.maxPerMinute,
    queueSize: c.queueSize,
    burst: c.burst,
    retry,
  });
  const built: Array<{ opts: ChannelOptions; sender: () => Sender }> = [];

  cfg.webhooks.forEach((w, i) => {
    const name = names[i]!;
    const key = secret(w.secretEnv, `notify.webhooks[${i}] (${name}) secretEnv`);
    registerUrlCredentials(w.url);
    built.push({ opts: channelOpts(name, w), sender: () => webhookSender({ channel: name, url: w.url, secret: key, clock, timeoutMs }) });
  });
  cfg.discord.forEach((d, i) => {
    const name = names[cfg.webhooks.length + i]!;
    const url = secret(d.urlEnv, `notify.discord[${i}] (${name}) urlEnv`);
    if (url) {
      if (!/^https?:\/\//.test(url)) problems.push(`notify.discord[${i}] (${name}) urlEnv: ${d.urlEnv} is not an http(s) URL`);
      // The webhook's token is the URL's last path segment: an error text showing the path alone must not carry it.
      registerSecret(
        url
          .replace(/[?#].*$/, '')
          .split('/')
          .filter(Boolean)
          .pop(),
      );
    }
    built.push({ opts: channelOpts(name, d), sender: () => discordSender({ url, clock, timeoutMs }) });
  });
  let telegram: TelegramBot | undefined;
  const t = cfg.telegram;
  const token = t ? secret(t.tokenEnv, 'notify.telegram tokenEnv') : '';
  if (problems.length) throw new NotifyConfigError(problems);
  if (t) {
    telegram = new TelegramBot({ token, apiRoot: t.apiRoot, chatIds: t.chatIds, commands: t.commands, timeoutMs }, control, clock, logger);
    const bot = telegram;
    built.push({ opts: channelOpts('telegram', t), sender: () => bot.sender });
  }

  const channels = built.map((b) => new Channel(b.opts, b.sender(), clock, logger));
  const listened = { events: 0 };
  // The listener only classifies and enqueues: it is called inside the trading loop's turn.
  const unsubscribe = control.onEvent((e) => {
    listened.events++;
    const notice = noticeOf(e);
    if (!notice) return;
    for (const ch of channels) {
      try {
        ch.offer(notice);
      } catch (err) {
        log.error({ channel: ch.name, err: errorText(err) }, 'notification not offered');
      }
    }
  });

  const dailyTo = new Set(cfg.daily?.channels ?? names);
  const sendDaily = () => {
    const text = dailySummary(control, clock.now());
    for (const ch of channels) if (dailyTo.has(ch.name)) ch.deliver({ topic: 'daily', text, atMs: clock.now(), strategyId: null });
  };
  const daily = cfg.daily ? new DailySchedule(cfg.daily.at, clock, sendDaily) : undefined;
  daily?.start();
  telegram?.start();
  log.info({ channels: channels.map((c) => c.name), daily: cfg.daily?.at ?? null, chatCommands: Boolean(t?.commands) }, 'notifications started');

  let stopping: Promise<void> | undefined;
  return {
    channels,
    telegram,
    listened,
    sendDaily,
    stop: (graceMs = 0) =>
      (stopping ??= (async () => {
        unsubscribe();
        daily?.stop();
        if (graceMs > 0) {
          let timer: ClockTimer | undefined;
          await Promise.race([Promise.all(channels.map((c) => c.idle())), new Promise<void>((resolve) => (timer = clock.setTimer(resolve, graceMs)))]);
          timer?.cancel();
        }
        for (const c of channels) c.stop();
        await telegram?.stop();
      })()),
  };
}
