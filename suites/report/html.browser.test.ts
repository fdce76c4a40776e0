// The HTML report in a real browser (Debian's Chromium, headless), from a real run of the harness against a
// deliberately broken server (answers JSON to YAML requests and 200 instead of 406): the first screen
// names the failing rows and why, the filters narrow to failures, a failing row opens with the keyboard to
// its curl line and replay command, copy works, the page fits a phone, prints without its controls, and
// hostile text from a target stays inert. Screenshots land beside the report for a human to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from '@playwright/test';
import { main } from '../cli/main.ts';
import { startMiniServer } from '../harness/testdata/mini-server.ts';
import type { ConformanceResults } from './results-schema.ts';
import { renderHtmlReport } from './html.ts';
import { HOSTILE, sampleResults } from './html-fixtures.ts';

const CHROMIUM = '/usr/bin/chromium';
const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
// Kept after the test (reports/ is git-ignored) so the report and its screenshots can be opened.
const DIR = process.env.HTML_REPORT_TEST_DIR ?? join(REPO, 'reports', 'html-browser-test');
// Screenshots are kept for people to look at, not asserted on: a busy CI machine may take longer than
// Playwright's default 30 s to render a full page, which must not fail the test.
const SCREENSHOT_TIMEOUT_MS = 120_000;

let browser: Browser | undefined;
let results: ConformanceResults;
let runOutput = '';

before(async () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const server = await startMiniServer({ yamlAsJson: true, no406: true });
  try {
    const code = await main(['--target', server.url, '--suite', 'negotiation', '--runs', '5', '--seed', '3', '--report-dir', DIR], {
      stdout: { write: (s: string) => (runOutput += s), isTTY: false },
      stderr: { write: (s: string) => (runOutput += s) },
    });
    assert.equal(code, 1, `the run against the broken server should fail:\n${runOutput}`);
  } finally {
    await server.close();
  }
  results = JSON.parse(readFileSync(join(DIR, 'results.json'), 'utf8')) as ConformanceResults;
  // Not a skip: without the browser this test must fail, telling how to get it.
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's Chromium (apt-get install -y chromium); never download a browser with playwright install`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
});

interface Watch {
  page: Page;
  problems: string[];
}

/** A page that records script errors, console errors, CSP violations and any request that leaves the disk. */
async function open(file: string, width = 1280, height = 900): Promise<Watch> {
  assert.ok(browser, 'browser not started');
  const context = await browser.newContext({ viewport: { width, height } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => undefined);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) problems.push(`network request: ${r.url()}`);
  });
  await page.goto(pathToFileURL(file).href);
  return { page, problems };
}

const visibleRows = (page: Page) => page.locator('tr.spec-row:visible');

test('a run writes index.html; its first screen names the failing rows and why', async () => {
  assert.match(runOutput, /reports: .*junit\.xml, .*results\.json, .*index\.html/);
  const failedRows = results.rows.filter((r) => r.status === 'failed');
  assert.ok(failedRows.length > 0, 'the broken server must fail some rows');
  const { page, problems } = await open(join(DIR, 'index.html'));
  assert.match(await page.title(), /^Conformance FAIL: http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(await page.locator('.verdict').innerText(), /FAIL/);
  assert.match(await page.locator('.coverage').innerText(), /^\d+\.\d% coverage: \d+ of \d+ spec rows of this run \(testable, of its profile, selected\) checked/);
  assert.match(await page.locator('.run dl').innerText(), new RegExp(`Seed\\s+3 \\(5 runs per property\\)`));
  // The failure list sits on the first screen, with every failing row and its check's message.
  const heading = page.locator('#failures-h');
  await heading.waitFor();
  assert.equal(await heading.isVisible(), true);
  assert.match(await heading.innerText(), new RegExp(`${failedRows.length} failing spec rows?`));
  const box = await page.locator('.failures li').first().boundingBox();
  assert.ok(box && box.y + box.height <= 900, `the first failure is below the first screen (y=${box?.y})`);
  const list = await page.locator('.failures').innerText();
  for (const row of failedRows) assert.ok(list.includes(row.id), `failing row ${row.id} is not listed at the top`);
  assert.match(list, /media\.yaml[\s\S]*Content-Type: expected "application\/yaml", got "application\/json"/);
  await page.screenshot({ path: join(DIR, 'first-screen.png'), timeout: SCREENSHOT_TIMEOUT_MS });
  assert.deepEqual(problems, []);
});

test('filter to failures, open one with the keyboard, read and copy its curl line and replay command', async () => {
  const { page, problems } = await open(join(DIR, 'index.html'));
  const total = results.rows.length;
  assert.equal(await page.locator('#shown').innerText(), `Showing ${total} of ${total} rows`);
  await page.getByRole('button', { name: 'Failures only' }).click();
  const failed = results.rows.filter((r) => r.status === 'failed').length;
  assert.equal(await page.locator('#shown').innerText(), `Showing ${failed} of ${total} rows`);
  assert.equal(await visibleRows(page).count(), failed);
  for (const status of await visibleRows(page).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')))) assert.equal(status, 'failed');
  assert.equal(await page.locator('input[name=status][value=passed]').isChecked(), false);

  // Keyboard: focus the first failure's summary and press Enter.
  const details = page.locator('tr.evidence:visible details.failure').first();
  const summary = details.locator('> summary');
  await summary.focus();
  await page.keyboard.press('Enter');
  assert.equal(await details.evaluate((d) => (d as unknown as { open: boolean }).open), true);
  const checkId = (await summary.locator('code').first().innerText()).trim();
  const check = results.checks.find((c) => c.id === checkId);
  assert.ok(check?.evidence, `no evidence for ${checkId} in results.json`);
  const body = await details.locator('.evidence-body').innerText();
  assert.ok(body.includes(check.evidence.replayCommand), 'the replay command is shown');
  assert.match(check.evidence.replayCommand, /--replay '/);
  assert.ok(body.includes(`Seed\n${check.evidence.seed}`) || body.includes(`Seed\t${check.evidence.seed}`), `seed not shown in:\n${body}`);
  const lastExchange = check.evidence.exchanges.at(-1);
  assert.ok(lastExchange, 'the failure recorded its exchanges');
  const curl = details.locator('details.exchange[open] pre code').filter({ hasText: /^curl / }).last();
  assert.equal(await curl.isVisible(), true, 'the failing exchange is open with its curl line');
  assert.equal(await curl.innerText(), lastExchange.curl);

  // Copy the replay command: the button says so and the clipboard holds the exact text.
  const copy = details.getByRole('button', { name: `Copy replay command of ${checkId}` });
  await copy.click();
  await page.locator('#copy-status').filter({ hasText: /Copied|Copy failed/ }).waitFor();
  assert.equal(await copy.getAttribute('data-copied'), check.evidence.replayCommand);
  assert.equal(await page.locator('#copy-status').innerText(), 'Copied');
  const clipboard = await page.evaluate('navigator.clipboard.readText()').catch(() => null);
  if (clipboard !== null) assert.equal(clipboard, check.evidence.replayCommand);

  await details.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(DIR, 'failure-evidence.png'), timeout: SCREENSHOT_TIMEOUT_MS });
  await page.screenshot({ path: join(DIR, 'failures-only-full.png'), fullPage: true, timeout: SCREENSHOT_TIMEOUT_MS });
  assert.deepEqual(problems, []);
});

test('search, section filter, "/" shortcut and links from the failure list', async () => {
  const { page, problems } = await open(join(DIR, 'index.html'));
  await page.keyboard.press('/');
  assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'search');
  await page.keyboard.type('media.yaml');
  const ids = await visibleRows(page).locator('th code').allInnerTexts();
  assert.ok(ids.includes('media.yaml'), ids.join(', '));
  assert.ok(ids.length < results.rows.length, 'ids.length < results.rows.length');
  await page.keyboard.press('Escape');
  assert.equal(await visibleRows(page).count(), results.rows.length);

  await page.locator('#section-filter').selectOption('4.2');
  const sections = await visibleRows(page).evaluateAll((rows) => [...new Set(rows.map((r) => r.getAttribute('data-section')))]);
  assert.deepEqual(sections, ['4.2']);
  assert.equal(await page.locator('.spec-section:visible').count(), 1);

  // A link in the failure list shows the row even when filtered out, and opens its evidence.
  await page.getByRole('button', { name: 'Failures only' }).click();
  await page.locator('#section-filter').selectOption('4.2');
  const link = page.locator('.failures a').first();
  const target = (await link.getAttribute('href'))!.slice(1);
  await link.click();
  assert.equal(await page.locator(`#${target}`).isVisible(), true);
  assert.equal(await page.locator(`tr.evidence[data-for="${target}"] details.failure`).first().evaluate((d) => (d as unknown as { open: boolean }).open), true);
  assert.deepEqual(problems, []);
});

test('fits a narrow window and prints without its controls', async () => {
  const { page, problems } = await open(join(DIR, 'index.html'), 360, 740);
  await page.getByRole('button', { name: 'Failures only' }).click();
  await page.locator('tr.evidence:visible details.failure > summary').first().click();
  const [scrollWidth, innerWidth] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
  assert.ok(scrollWidth <= innerWidth, `the page scrolls sideways at 360 px: ${scrollWidth} > ${innerWidth}`);
  await page.screenshot({ path: join(DIR, 'narrow.png'), timeout: SCREENSHOT_TIMEOUT_MS });
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.locator('#filters').isVisible(), false);
  assert.equal(await page.locator('button.copy').first().isVisible(), false);
  assert.equal(await page.locator('tr.spec-row').first().isVisible(), true);
  assert.deepEqual(problems, []);
});

test('hostile text from a target is shown as text and never runs; the page allows no other script', async () => {
  const file = join(DIR, 'hostile', 'index.html');
  mkdirSync(join(DIR, 'hostile'), { recursive: true });
  writeFileSync(file, renderHtmlReport([sampleResults({ failing: true, hostile: true })]));
  const { page, problems } = await open(file);
  await page.locator('details.failure > summary').first().click();
  assert.equal(await page.evaluate('typeof window.pwned'), 'undefined');
  assert.equal(await page.locator('img').count(), 0);
  assert.equal(await page.locator('script').count(), 1);
  const bodies = await page.locator('.evidence-body pre').allInnerTexts();
  assert.ok(bodies.some((t) => t.includes('<script>window.pwned=1</script>')), 'the hostile body is displayed verbatim');
  assert.ok(HOSTILE.includes('onerror'), "HOSTILE.includes('onerror')");
  // The Content-Security-Policy is in force: a script added later does not run.
  const injected = await page.evaluate(`(() => { const s = document.createElement('script'); s.textContent = 'window.injected = 1'; document.body.appendChild(s); return typeof window.injected; })()`);
  assert.equal(injected, 'undefined');
  assert.ok(problems.some((p) => /Content Security Policy/.test(p)), `the blocked script is reported: ${problems.join('\n')}`);
  assert.deepEqual(problems.filter((p) => !/Content Security Policy/.test(p)), []);
});

test('two runs open as a matrix with one column per target', async () => {
  const file = join(DIR, 'matrix', 'index.html');
  mkdirSync(join(DIR, 'matrix'), { recursive: true });
  const fine = sampleResults({ target: 'http://fine.example:2' });
  writeFileSync(file, renderHtmlReport([results, fine]));
  const { page, problems } = await open(file);
  const headers = await page.locator('table.rows').first().locator('thead th').allInnerTexts();
  assert.deepEqual(headers.slice(2), [results.run.target, 'http://fine.example:2', 'Checks']);
  await page.getByRole('button', { name: 'Failures only' }).click();
  assert.ok((await visibleRows(page).count()) > 0, '(await visibleRows(page).count()) > 0');
  await page.screenshot({ path: join(DIR, 'matrix.png'), fullPage: false, timeout: SCREENSHOT_TIMEOUT_MS });
  assert.deepEqual(problems, []);
});
