// The format of results.json: every spec-table row with its measured status, every check with its outcome
// and evidence, and the run's identity. The HTML report reads this file; bump RESULTS_FORMAT_VERSION on any
// incompatible change.

export const RESULTS_FORMAT_VERSION = 1;

export type RowStatus = 'passed' | 'failed' | 'skipped' | 'uncovered' | 'untestable';
export type CheckResultStatus = 'passed' | 'failed' | 'expected-failure' | 'skipped';

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
    grep?: string;
    skip?: string;
    interrupted: boolean;
    node: string;
    /** The target's served group versions, from discovery. */
    served: string[];
  };
  /** The gate: true when every applicable check passed or was expected to fail. */
  passed: boolean;
  totals: {
    checks: Totals & { expectedFailures: number; unexpectedPasses: number };
    rows: Totals & { uncovered: number; untestable: number };
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

const totalsSchema = (extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['passed', 'failed', 'skipped', 'total', ...Object.keys(extra)],
  properties: { passed: { type: 'integer' }, failed: { type: 'integer' }, skipped: { type: 'integer' }, total: { type: 'integer' }, ...extra },
});

const exchangeSchema = {
  type: 'object',
  required: ['method', 'url', 'requestHeaders', 'durationMs', 'curl'],
  properties: {
    method: { type: 'string' },
    url: { type: 'string' },
    requestHeaders: { type: 'object', additionalProperties: { type: 'string' } },
    requestBody: { type: 'string' },
    requestBodyEncoding: { enum: ['utf8', 'base64'] },
    status: { type: 'integer' },
    responseHeaders: { type: 'object', additionalProperties: { type: 'string' } },
    responseBody: { type: 'string' },
    responseBodyEncoding: { enum: ['utf8', 'base64'] },
    truncated: { type: 'boolean' },
    error: { type: 'string' },
    durationMs: { type: 'number' },
    curl: { type: 'string' },
  },
};

/** JSON Schema (draft 2020-12 subset ajv 8 reads) of results.json. */
export const resultsJsonSchema = {
  $id: 'https://cluster-api-conformance/results.schema.json',
  type: 'object',
  required: ['formatVersion', 'run', 'passed', 'totals', 'expectedFailures', 'checks', 'rows'],
  properties: {
    formatVersion: { const: RESULTS_FORMAT_VERSION },
    run: {
      type: 'object',
      required: ['id', 'target', 'embedded', 'vendor', 'startedAt', 'finishedAt', 'durationMs', 'seed', 'runs', 'suites', 'interrupted', 'node', 'served'],
      properties: {
        id: { type: 'string' },
        target: { type: 'string' },
        embedded: { type: 'boolean' },
        vendor: { type: 'string' },
        startedAt: { type: 'string', format: 'date-time' },
        finishedAt: { type: 'string', format: 'date-time' },
        durationMs: { type: 'number' },
        seed: { type: 'integer' },
        runs: { type: 'integer' },
        suites: { type: 'array', items: { type: 'string' } },
        grep: { type: 'string' },
        skip: { type: 'string' },
        interrupted: { type: 'boolean' },
        node: { type: 'string' },
        served: { type: 'array', items: { type: 'string' } },
      },
    },
    passed: { type: 'boolean' },
    totals: {
      type: 'object',
      required: ['checks', 'rows'],
      properties: {
        checks: totalsSchema({ expectedFailures: { type: 'integer' }, unexpectedPasses: { type: 'integer' } }),
        rows: totalsSchema({ uncovered: { type: 'integer' }, untestable: { type: 'integer' } }),
      },
    },
    expectedFailures: {
      type: 'object',
      required: ['ids', 'unexpectedPasses', 'unknown'],
      properties: {
        file: { type: 'string' },
        ids: { type: 'array', items: { type: 'string' } },
        unexpectedPasses: { type: 'array', items: { type: 'string' } },
        unknown: { type: 'array', items: { type: 'string' } },
      },
    },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'suite', 'rows', 'status', 'durationMs'],
        properties: {
          id: { type: 'string' },
          suite: { type: 'string' },
          title: { type: 'string' },
          differential: {
            type: 'object',
            required: ['reference', 'referencePassed', 'divergences'],
            properties: {
              reference: { type: 'string' },
              referencePassed: { type: 'boolean' },
              divergences: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['checkId', 'suite', 'rows', 'kind', 'target', 'reference', 'expected'],
                  properties: {
                    checkId: { type: 'string' },
                    suite: { type: 'string' },
                    rows: { type: 'array', items: { type: 'string' } },
                    kind: { enum: ['verdict', 'status', 'reason', 'shape'] },
                    request: { type: 'string' },
                    target: { type: 'string' },
                    reference: { type: 'string' },
                    expected: { type: 'boolean' },
                  },
                },
              },
            },
          },
          rows: { type: 'array', items: { type: 'string' } },
          status: { enum: ['passed', 'failed', 'expected-failure', 'skipped'] },
          durationMs: { type: 'number' },
          reason: { type: 'string' },
          message: { type: 'string' },
          expectedToFail: { type: 'boolean' },
          evidence: {
            type: 'object',
            required: ['message', 'exchanges', 'seed', 'replay', 'replayCommand'],
            properties: {
              message: { type: 'string' },
              failedRows: { type: 'array', items: { type: 'string' } },
              exchanges: { type: 'array', items: exchangeSchema },
              seed: { type: 'integer' },
              property: { type: 'integer' },
              path: { type: 'string' },
              counterexample: { type: 'string' },
              replay: { type: 'string' },
              replayCommand: { type: 'string' },
            },
          },
        },
      },
    },
    rows: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'section', 'table', 'spec', 'testable', 'status', 'checks'],
        properties: {
          id: { type: 'string' },
          section: { type: 'string' },
          table: { type: 'string' },
          spec: { type: 'string' },
          testable: { type: 'boolean' },
          status: { enum: ['passed', 'failed', 'skipped', 'uncovered', 'untestable'] },
          reason: { type: 'string' },
          checks: { type: 'array', items: { type: 'string' } },
          failedBy: { type: 'array', items: { type: 'string' } },
          expectedToFail: { type: 'boolean' },
        },
      },
    },
  },
} as const;
