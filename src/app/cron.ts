// Scheduled jobs (node-cron): reconciliation, strategy schedules. Each job skips a run while the last is busy.
import { schedule, validate, type ScheduledTask } from 'node-cron';
import type { Logger } from '../util/logger.js';

export class Cron {
  private readonly tasks: ScheduledTask[] = [];
  constructor(private readonly logger: Logger) {}

  add(name: string, expression: string, job: () => Promise<void> | void): void {
    if (!validate(expression)) throw new Error(`${name}: invalid cron expression ${JSON.stringify(expression)}`);
    let busy = false;
    const task = schedule(expression, async () => {
      if (busy) return;
      busy = true;
      try {
        await job();
      } catch (err) {
        this.logger.warn({ job: name, err: (err as Error).message }, 'scheduled job failed');
      } finally {
        busy = false;
      }
    });
    this.tasks.push(task);
  }

  async stop(): Promise<void> {
    for (const t of this.tasks) {
      await t.stop();
      await t.destroy();
    }
    this.tasks.length = 0;
  }
}
