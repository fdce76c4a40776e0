// CronJob schedules as the real server parses them (robfig/cron ParseStandard): exactly five fields
// (minute hour day-of-month month day-of-week), or a descriptor (@yearly, @annually, @monthly, @weekly,
// @daily, @midnight, @hourly, @every <Go duration>). cron-parser does the field parsing; the checks
// here narrow it to what ParseStandard accepts (cron-parser also takes seconds fields, fewer fields,
// and the L/W/# extensions, which the real server rejects).

import { createRequire } from 'node:module';
import { parseDurationMs } from '../../util/go-duration.ts';

type CronParser = typeof import('cron-parser');
let cronParser: CronParser | undefined;
/** cron-parser (and luxon under it), loaded by the first schedule that gets this far, not at start-up. */
const parser = () => (cronParser ??= createRequire(import.meta.url)('cron-parser') as CronParser).CronExpressionParser;

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const FIELD_CHARS = /^[0-9A-Za-z*?,/-]+$/;
const EXTENSIONS = /(^|[^A-Za-z])[LW]($|[^A-Za-z])|\d[LW]\b|#/;

/** Why a schedule does not parse, or undefined when it does. */
export function scheduleError(schedule: string): string | undefined {
  const s = schedule.trim();
  if (s === '') return 'Empty spec string';
  if (s.startsWith('@')) {
    if (DESCRIPTORS.has(s)) return undefined;
    if (s.startsWith('@every ')) {
      const d = s.slice('@every '.length).trim();
      try {
        parseDurationMs(d);
        return undefined;
      } catch {
        return `Failed to parse duration ${s}: time: invalid duration ${d}`;
      }
    }
    return `Unrecognized descriptor: ${s}`;
  }
  const fields = s.split(/\s+/);
  if (fields.length !== 5) return `Expected 5 fields, found ${fields.length}: ${s}`;
  for (const f of fields) {
    if (!FIELD_CHARS.test(f) || EXTENSIONS.test(f)) return `Failed to parse int from ${f}`;
  }
  try {
    parser().parse(s);
    return undefined;
  } catch (e) {
    const msg = (e as Error).message;
    // A day that never occurs (30 February) parses in robfig/cron; the schedule just never fires.
    if (/day of month/i.test(msg)) return undefined;
    return msg;
  }
}
