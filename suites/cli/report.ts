// `npx tsx suites report [--from results.json ...] [--report-dir DIR]`: (re)draws index.html from saved
// results, one run or several targets side by side (a matrix: spec rows by targets). Exit 0 when written,
// 2 with one line when a file is missing, is not JSON or is not a results.json of this format.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { resultsJsonSchema, RESULTS_FORMAT_VERSION, type ConformanceResults } from '../report/results-schema.ts';
import { writeHtmlReport } from '../report/html-write.ts';
import { COMMAND } from './command-name.ts';

export const REPORT_HELP = `Draws the HTML coverage report from saved results.

Usage: ${COMMAND} report [--from results.json ...] [--report-dir DIR]

  --from FILE        a results.json (repeatable: several targets become the columns of one matrix);
                     default DIR/results.json
  --report-dir DIR   where index.html goes (default reports/)
  -h, --help         this text

Exit status: 0 written; 2 bad usage or a file that is not a results.json.`;

interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

class ReportUsageError extends Error {}

let validator: ValidateFunction | undefined;
function validate(data: unknown): string | undefined {
  if (!validator) {
    const ajv = new Ajv2020.default({ strict: false });
    addFormats.default(ajv);
    validator = ajv.compile(resultsJsonSchema as object);
  }
  if (validator(data)) return undefined;
  const first = validator.errors?.[0];
  return first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'is invalid';
}

function readResults(file: string): ConformanceResults {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ReportUsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ReportUsageError(`${file} is not JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const version = (data as { formatVersion?: unknown } | null)?.formatVersion;
  if (version !== RESULTS_FORMAT_VERSION) {
    throw new ReportUsageError(`${file} is not a results.json of format ${RESULTS_FORMAT_VERSION} (formatVersion ${JSON.stringify(version)})`);
  }
  const problem = validate(data);
  if (problem) throw new ReportUsageError(`${file} does not match the results.json schema: ${problem}`);
  return data as ConformanceResults;
}

export function reportCommand(argv: string[], io: Io): number {
  try {
    let values: { from?: string[]; 'report-dir'?: string; help?: boolean };
    try {
      ({ values } = parseArgs({
        args: argv,
        options: { from: { type: 'string', multiple: true }, 'report-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
        allowPositionals: false,
        strict: true,
      }));
    } catch (err) {
      throw new ReportUsageError((err as Error).message.split('\n')[0]);
    }
    if (values.help) {
      io.stdout.write(`${REPORT_HELP}\n`);
      return 0;
    }
    const dir = values['report-dir'] ?? 'reports';
    const files = values.from?.length ? values.from : [join(dir, 'results.json')];
    const runs = files.map(readResults);
    const path = writeHtmlReport(dir, runs);
    io.stdout.write(`report: ${path} (${runs.length === 1 ? '1 run' : `${runs.length} runs side by side`})\n`);
    return 0;
  } catch (err) {
    if (err instanceof ReportUsageError) {
      io.stderr.write(`error: ${err.message} (see suites report --help)\n`);
      return 2;
    }
    io.stderr.write(`internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    return 2;
  }
}
