// screenshots.mjs OUT.png URL [OUT.png URL ...] — screenshots of studio pages in Debian's headless
// chromium (playwright-core from build/web/npm: STUDIO_NODE_MODULES), each once the page is ready and
// has drawn. Run by screenshots.sh, which starts the studio on the demo's files (docs/studio.md).
import { createRequire } from 'module';

const require = createRequire(process.env.STUDIO_NODE_MODULES + '/');
const { chromium } = require('playwright-core');
const args = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--use-gl=swiftshader', '--enable-unsafe-swiftshader'],
});
for (let i = 0; i + 1 < args.length; i += 2) {
  const [out, url] = [args[i], args[i + 1]];
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 10000 });
  await page.waitForTimeout(500); // a few animation frames: the skeletons drawn
  if (url.includes('view=tune')) { // a point between the samples, the live animation paused for a steady picture
    for (const [k, v] of [['move_x', '0.43'], ['move_y', '0.61'], ['speed', '2.1']]) { await page.fill(`#param-${k}`, v); await page.press(`#param-${k}`, 'Enter'); }
    await page.waitForTimeout(1000);
    await page.click('#play');
  }
  await page.screenshot({ path: out });
  console.log(`${out}: ${url}`);
  await page.close();
}
await browser.close();
