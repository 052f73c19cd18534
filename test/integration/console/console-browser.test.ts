/**
 * The console in headless Chromium (Debian's `chromium`, driven by puppeteer-core) against a real
 * broker process: each page shows what the cluster has, records with script and event-handler
 * payloads in keys, values and headers render as inert text, and a broker that goes away shows as
 * such and recovers when it returns. With SLUICE_SCREENSHOTS=1 the pages' screenshots are written
 * to docs/images/console-<page>.png (the ones the docs show), else to a temporary folder.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { KafkaAdminClient, KafkaCluster, KafkaProducerClient, parseBootstrapServers } from '@sluice/client/index.js';
import { findChromium, headlessArgs } from '@sluice/tune/report-png.js';
import { freePort } from '../../../src/common/free-port.js';
import { repoRoot } from '../../../tools/kafka/kafka-release.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { chromiumSkip } from '../../helpers/chromium.js';
import { startConsoleProcess, type ConsoleProcess } from '../../helpers/console-process.js';

const TOPIC = 'console-orders';
const PAYLOADS = {
  script: "<script>window.__xss = 'script'</script>",
  img: '<img src=x onerror="window.__xss = \'img\'">',
  svg: '<svg onload="window.__xss = \'svg\'"></svg>',
};
const WAIT_MS = 30_000;

describe('the console in a browser', { skip: chromiumSkip() }, () => {
  const logDir = mkdtempSync(join(tmpdir(), 'sluice-console-broker-'));
  const screenshots =
    process.env['SLUICE_SCREENSHOTS'] === '1' ? join(repoRoot(), 'docs', 'images') : mkdtempSync(join(tmpdir(), 'sluice-console-shots-'));
  const profile = mkdtempSync(join(tmpdir(), 'sluice-console-chromium-'));
  let port: number;
  let broker: BrokerProcess | undefined;
  let console: ConsoleProcess;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  const startBroker = (): Promise<BrokerProcess> =>
    startBrokerProcess({ 'log.dirs': logDir, listeners: `PLAINTEXT://127.0.0.1:${port}`, 'num.partitions': '1' });

  before(async () => {
    port = await freePort();
    broker = await startBroker();
    const cluster = new KafkaCluster({ bootstrap: parseBootstrapServers(broker.bootstrap), clientId: 'console-test' });
    try {
      await new KafkaAdminClient(cluster).createTopic({ name: TOPIC, partitions: 2, replicationFactor: 1 });
      const producer = new KafkaProducerClient(cluster);
      await producer.send(TOPIC, [
        ...Array.from({ length: 5 }, (_, i) => ({ key: Buffer.from(`order-${i}`), value: Buffer.from(`{"amount":${i}}`), partition: 0 })),
        ...Object.values(PAYLOADS).map((payload) => ({
          key: Buffer.from(payload),
          value: Buffer.from(payload),
          headers: [{ key: payload, value: Buffer.from(payload) }],
          partition: 0,
        })),
      ]);
    } finally {
      cluster.close();
    }
    console = await startConsoleProcess(broker.bootstrap);
    browser = await puppeteer.launch({
      executablePath: findChromium()!,
      headless: true,
      args: headlessArgs(profile, 900, 1280),
      userDataDir: profile,
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    page.on('dialog', (dialog) => {
      pageErrors.push(`a dialog opened: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(console.url);
  });

  after(async () => {
    await browser?.close();
    await console?.stop();
    await broker?.stop();
    for (const dir of [logDir, profile]) rmSync(dir, { recursive: true, force: true });
  });

  // The page is driven with expressions as strings, not functions: the tests compile without the DOM's types.
  async function inPage<T>(expression: string): Promise<T> {
    return (await page.evaluate(expression)) as T;
  }

  async function show(hash: string): Promise<void> {
    await inPage(`location.hash = ${JSON.stringify(hash)}`);
  }

  function textOf(selector: string): Promise<string | null> {
    return inPage(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`);
  }

  function texts(selector: string): Promise<string[]> {
    return inPage(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent ?? '')`);
  }

  /** The cells' texts of each row that `rows` selects. */
  function cells(rows: string): Promise<string[][]> {
    return inPage(
      `[...document.querySelectorAll(${JSON.stringify(rows)})].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''))`,
    );
  }

  async function waitForText(selector: string, text: string): Promise<void> {
    await page.waitForFunction(
      `document.querySelector(${JSON.stringify(selector)})?.textContent?.includes(${JSON.stringify(text)}) === true`,
      {
        timeout: WAIT_MS,
      },
    );
  }

  test('the overview shows the broker, the controller and the counts', async () => {
    await waitForText('main', 'Brokers');
    await waitForText('main table', String(port));
    const stats = await texts('.stat');
    assert.ok(stats.includes('1Brokers'), stats.join(' | '));
    assert.ok(stats.includes('0Offline'), stats.join(' | '));
    assert.equal(await textOf('#cluster-health'), 'connected');
    await page.screenshot({ path: join(screenshots, 'console-overview.png') });
  });

  test('the topic list shows the created topic and the search filters it', async () => {
    await show('#/topics');
    await waitForText('table.topics', TOPIC);
    await page.locator('input[type=search]').fill('no-such-topic');
    await waitForText('table.topics', 'No topic matches');
    await page.locator('input[type=search]').fill('orders');
    await waitForText('table.topics', TOPIC);
    await page.screenshot({ path: join(screenshots, 'console-topics.png') });
  });

  test("a topic's page shows its partitions with offsets and its configs", async () => {
    await show(`#/topics/${TOPIC}`);
    await waitForText('table.configs', 'retention.ms');
    const rows = (await cells('table.partitions tbody tr')).map((row) => row.slice(0, 6));
    const end = String(5 + Object.keys(PAYLOADS).length);
    assert.deepEqual(rows, [
      ['0', '0', '0', '0', '0', end],
      ['1', '0', '0', '0', '0', '0'],
    ]);
    await page.screenshot({ path: join(screenshots, 'console-topic.png') });
  });

  test('messages show keys, values and headers as text, and the payloads stay inert', async () => {
    await show(`#/topics/${TOPIC}/messages?partition=0&from=end`);
    await waitForText('table.messages', PAYLOADS.svg);
    const rows = await cells('table.messages tbody tr');
    assert.equal(rows.length, 5 + Object.keys(PAYLOADS).length);
    assert.deepEqual(
      rows[0]!.filter((_, i) => i !== 1),
      ['0', 'order-0', '', '{"amount":0}'],
    );
    for (const [i, payload] of Object.values(PAYLOADS).entries()) {
      const [offset, , key, headers, value] = rows[5 + i]!;
      assert.deepEqual([offset, key, headers, value], [String(5 + i), payload, `${payload}: ${payload}`, payload]);
    }
    const injected = await inPage<number>(
      `document.querySelectorAll('main script, main img, main svg, main [onerror], main [onload]').length`,
    );
    assert.equal(injected, 0, 'record bytes became elements');
    assert.equal(await page.evaluate('typeof window.__xss'), 'undefined');
    assert.deepEqual(pageErrors, []);
    await page.screenshot({ path: join(screenshots, 'console-messages.png') });
  });

  test('a broker that goes away shows as unreachable, and the page recovers when it returns', async () => {
    await show(`#/topics/${TOPIC}`);
    await waitForText('table.configs', 'retention.ms');
    await broker!.stop();
    broker = undefined;
    await page.waitForSelector('#cluster-unreachable', { timeout: WAIT_MS });
    assert.equal(await textOf('#cluster-health'), 'unreachable');
    await page.screenshot({ path: join(screenshots, 'console-unreachable.png') });
    broker = await startBroker();
    await page.waitForSelector('#cluster-unreachable', { hidden: true, timeout: WAIT_MS });
    await waitForText('#cluster-health', 'connected');
    await waitForText('table.configs', 'retention.ms');
    assert.deepEqual(pageErrors, []);
  });
});
