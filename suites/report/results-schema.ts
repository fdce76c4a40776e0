// The format of results.json: every spec-table row with its measured status, every check with its outcome
// and evidence, and the run's identity. The HTML report reads this file; bump RESULTS_FORMAT_VERSION on any
// incompatible change.

export const RESULTS_FORMAT_VERSION = 2;

/**
 * The run's verdict: PASS every row of its profiles was verified (expected failures and excluded rows apart); FAIL a
 * check failed; INCOMPLETE nothing failed but some selected rows were not verified (skipped, each with its reason).
 */
export type Verdict = 'PASS' | 'INCOMPLETE' | 'FAIL';

/**
 * not-applicable: only checks of a profile this run does not certify declare it; not-selected: left out by --suite or
 * --grep; excluded: left out by --skip, or skipped and listed in the expected-failures file.
 */
export type RowStatus = 'passed' | 'failed' | 'skipped' | 'excluded' | 'not-selected' | 'not-applicable' | 'uncovered' | 'untestable';
export const ROW_STATUSES: readonly RowStatus[] = ['passed', 'failed', 'skipped', 'excluded', 'not-selected', 'not-applicable', 'uncovered', 'untestable'];
/** excluded: skipped, and listed in the expected-failures file (so it does not make the run INCOMPLETE). */
export type CheckResultStatus = 'passed' | 'failed' | 'expected-failure' | 'skipped' | 'excluded';

export interface ExchangeEvidence {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  requestBodyEncoding?: 'utf8' | 'base64';
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  responseBodyEncoding?: 'utf8' | 'base64';
  truncated?: boolean;
  error?: string;
  durationMs: number;
  curl: string;
}

export interface FailureEvidence {
  message: string;
  /** Rows the failure names; when absent the failure counts against all rows of the check. */
  failedRows?: string[];
  exchanges: ExchangeEvidence[];
  seed: number;
  /** fast-check: index of the failing property in the check, its counterexample path and value. */
  property?: number;
  path?: string;
  counterexample?: string;
  /** Token for --replay, and the whole command line. */
  replay: string;
  replayCommand: string;
}

export interface CheckResult {
  id: string;
  suite: string;
  /** The profile the check belongs to (harness/profile.ts). */
  profile: string;
  title?: string;
  rows: string[];
  status: CheckResultStatus;
  durationMs: number;
  /** Why skipped. */
  reason?: string;
  /** Why failed (also for expected failures). */
  message?: string;
  /** Listed in the expected-failures file (whatever the outcome). */
  expectedToFail?: boolean;
  evidence?: FailureEvidence;
}

export interface RowResult {
  id: string;
  section: string;
  table: string;
  spec: string;
  testable: boolean;
  status: RowStatus;
  /** Why skipped, untestable or uncovered. */
  reason?: string;
  /** Checks that declare this row. */
  checks: string[];
  /** Checks whose failure counts against this row. */
  failedBy?: string[];
  expectedToFail?: boolean;
}

export interface Totals {
  passed: number;
  failed: number;
  skipped: number;
  total: number;
}

export interface ConformanceResults {
  formatVersion: typeof RESULTS_FORMAT_VERSION;
  run: {
    id: string;
    target: string;
    /** True when the harness started its own simulator. */
    embedded: boolean;
    vendor: string;
    startedAt: string;
    finishedAt: string;
    durationMs: number;
    seed: number;
    runs: number;
    suites: string[];
    /** The profiles the run certifies (`api`, `cluster`, `daemon`), and how they are printed (`api+cluster+daemon`). */
    profiles: string[];
    profile: string;
    /** --quick: the checks that wait for the target's history window were left out. */
    quick?: boolean;
    grep?: string;
    skip?: string;
    interrupted: boolean;
    node: string;
    /** The target's served group versions, from discovery. */
    served: string[];
  };
  verdict: Verdict;
  /** The gate: true when the verdict is PASS. */
  passed: boolean;
  totals: {
    checks: Totals & { expectedFailures: number; unexpectedPasses: number; excluded: number };
    rows: Totals & { excluded: number; notSelected: number; notApplicable: number; uncovered: number; untestable: number };
  };
  expectedFailures: {
    file?: string;
    ids: string[];
    /** Listed ids whose checks all passed. */
    unexpectedPasses: string[];
    /** Listed ids that name no check and no row. */
    unknown: string[];
  };
  checks: CheckResult[];
  rows: RowResult[];
  /** Differential mode (--reference): where the target and the reference answered differently. */
  differential?: DifferentialResult;
}

export interface DifferentialResult {
  reference: string;
  /** Whether the reference passed its own run. */
  referencePassed: boolean;
  divergences: Array<{
    checkId: string;
    suite: string;
    rows: string[];
    kind: 'verdict' | 'status' | 'reason' | 'shape';
    request?: string;
    target: string;
    reference: string;
    expected: boolean;
  }>;
}

// Schema building blocks: every object lists its properties once; all are required but those named optional.
const STRING = { type: 'string' };
const STRINGS = { type: 'array', items: STRING };
const BOOLEAN = { type: 'boolean' };
const INTEGER = { type: 'integer' };
const NUMBER = { type: 'number' };
const HEADERS = { type: 'object', additionalProperties: STRING };
const ENCODING = { enum: ['utf8', 'base64'] };
const object = (properties: Record<string, unknown>, optional: readonly string[] = []) => ({
  type: 'object',
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
});

const totalsSchema = (extra: Record<string, unknown> = {}) => object({ passed: INTEGER, failed: INTEGER, skipped: INTEGER, total: INTEGER, ...extra });

const exchangeSchema = object(
  {
    method: STRING,
    url: STRING,
    requestHeaders: HEADERS,
    requestBody: STRING,
    requestBodyEncoding: ENCODING,
    status: INTEGER,
    responseHeaders: HEADERS,
    responseBody: STRING,
    responseBodyEncoding: ENCODING,
    truncated: BOOLEAN,
    error: STRING,
    durationMs: NUMBER,
    curl: STRING,
  },
  ['requestBody', 'requestBodyEncoding', 'status', 'responseHeaders', 'responseBody', 'responseBodyEncoding', 'truncated', 'error'],
);

const differentialSchema = object({
  reference: STRING,
  referencePassed: BOOLEAN,
  divergences: {
    type: 'array',
    items: object(
      { checkId: STRING, suite: STRING, rows: STRINGS, kind: { enum: ['verdict', 'status', 'reason', 'shape'] }, request: STRING, target: STRING, reference: STRING, expected: BOOLEAN },
      ['request'],
    ),
  },
});

const evidenceSchema = object(
  {
    message: STRING,
    failedRows: STRINGS,
    exchanges: { type: 'array', items: exchangeSchema },
    seed: INTEGER,
    property: INTEGER,
    path: STRING,
    counterexample: STRING,
    replay: STRING,
    replayCommand: STRING,
  },
  ['failedRows', 'property', 'path', 'counterexample'],
);

const checkSchema = object(
  {
    id: STRING,
    suite: STRING,
    profile: STRING,
    title: STRING,
    differential: differentialSchema,
    rows: STRINGS,
    status: { enum: ['passed', 'failed', 'expected-failure', 'skipped', 'excluded'] },
    durationMs: NUMBER,
    reason: STRING,
    message: STRING,
    expectedToFail: BOOLEAN,
    evidence: evidenceSchema,
  },
  ['title', 'differential', 'reason', 'message', 'expectedToFail', 'evidence'],
);

const rowSchema = object(
  {
    id: STRING,
    section: STRING,
    table: STRING,
    spec: STRING,
    testable: BOOLEAN,
    status: { enum: [...ROW_STATUSES] },
    reason: STRING,
    checks: STRINGS,
    failedBy: STRINGS,
    expectedToFail: BOOLEAN,
  },
  ['reason', 'failedBy', 'expectedToFail'],
);

/** JSON Schema (draft 2020-12 subset ajv 8 reads) of results.json. */
export const resultsJsonSchema = {
  $id: 'https://cluster-api-conformance/results.schema.json',
  ...object(
    {
      formatVersion: { const: RESULTS_FORMAT_VERSION },
      run: object(
        {
          id: STRING,
          target: STRING,
          embedded: BOOLEAN,
          vendor: STRING,
          startedAt: { type: 'string', format: 'date-time' },
          finishedAt: { type: 'string', format: 'date-time' },
          durationMs: NUMBER,
          seed: INTEGER,
          runs: INTEGER,
          suites: STRINGS,
          profiles: STRINGS,
          profile: STRING,
          quick: BOOLEAN,
          grep: STRING,
          skip: STRING,
          interrupted: BOOLEAN,
          node: STRING,
          served: STRINGS,
        },
        ['grep', 'skip', 'quick'],
      ),
      verdict: { enum: ['PASS', 'INCOMPLETE', 'FAIL'] },
      passed: BOOLEAN,
      totals: object({
        checks: totalsSchema({ expectedFailures: INTEGER, unexpectedPasses: INTEGER, excluded: INTEGER }),
        rows: totalsSchema({ excluded: INTEGER, notSelected: INTEGER, notApplicable: INTEGER, uncovered: INTEGER, untestable: INTEGER }),
      }),
      expectedFailures: object({ file: STRING, ids: STRINGS, unexpectedPasses: STRINGS, unknown: STRINGS }, ['file']),
      checks: { type: 'array', items: checkSchema },
      rows: { type: 'array', items: rowSchema },
    },
  ),
};
