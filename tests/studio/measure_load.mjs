// measure_load.mjs URL [RUNS] — the page's load time (docs/studio.md "Sizes and load time"): opens URL
// (e.g. the studio serving the demo replay, with #tick=89) RUNS times (default 3) in Debian's headless
// chromium and prints, per run, the milliseconds from navigation to the view drawn (the page sets
// document.body.dataset.ready) and when each file arrived. The first run has a cold cache.
// NODE_PATH-free: playwright-core is looked up in STUDIO_NODE_MODULES (default build/web/npm/node_modules).
import { createRequire } from 'module';

const modules = process.env.STUDIO_NODE_MODULES || new URL('../../build/web/npm/node_modules/', import.meta.url).pathname;
const { chromium } = createRequire(modules.replace(/\/?$/, '/'))('playwright-core');
const [url, runs = '3'] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
for (let i = 0; i < Number(runs); i++) {
  const page = await browser.newPage();
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 20000 });
  const ms = Date.now() - t0;
  const files = await page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => `${e.name.replace(location.origin, '')} ${Math.round(e.responseEnd)} ms`));
  console.log(`run ${i + 1}: ${ms} ms to the view drawn (${i ? 'warm' : 'cold'} cache); files: ${files.join(', ')}`);
  await page.close();
}
await browser.close();
