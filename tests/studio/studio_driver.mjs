// studio_driver.mjs SCENARIO URL OUT_DIR — drives the studio page in Debian's chromium (headless,
// through playwright-core: no browser download) and checks what the page shows against what the
// native CLI printed (passed by studio_test.sh in the environment: EXPECT_* variables, JSON).
// Prints "ok: ..." lines; exits 1 on the first failed check (message on stderr). Screenshots go to
// OUT_DIR/SCENARIO.png and are checked not blank (many distinct colours).
import { createRequire } from 'module';
import fs from 'fs';

const require = createRequire(process.env.STUDIO_NODE_MODULES + '/');
const { chromium } = require('playwright-core');

const [scenario, url, outDir] = process.argv.slice(2);
const env = (k) => JSON.parse(process.env[k]);
let browser;
function fail(msg) { console.error(`FAIL ${scenario}: ${msg}`); if (browser) browser.close(); process.exit(1); }
function check(cond, msg) { if (!cond) fail(msg); console.log('ok: ' + msg); }

browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--use-gl=swiftshader', '--enable-unsafe-swiftshader'],
  // playwright gives every launch a fresh --user-data-dir
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));
const t0 = Date.now();
await page.goto(url + (process.env.STUDIO_HASH || ''));
await page.waitForFunction(() => document.body.dataset.ready === '1' || document.body.dataset.error === '1', null, { timeout: 8000 });
const loadMs = Date.now() - t0;
console.log(`load: ${loadMs} ms`);

const weightsShown = (node) => page.$$eval(`td.weight[data-node="${node}"]`, (tds) => tds.map((td) => [td.dataset.child, td.textContent]));
const leavesShown = () => page.$$eval('td.leaf', (tds) => Object.fromEntries(tds.map((td) => [td.dataset.motion, td.textContent])));
async function setParam(name, value) {
  await page.fill(`#param-${name}`, value);
  await page.press(`#param-${name}`, 'Enter');
}
function sameWeights(shown, cli) { // cli: `blendsync weights --json`
  return shown.length === cli.weights.length && shown.every(([m, w], i) => m === cli.weights[i].motion && Number(w) === cli.weights[i].weight &&
    w === String(cli.weights[i].weight));
}
async function screenshot() {
  const file = `${outDir}/${scenario}.png`;
  await page.screenshot({ path: file, fullPage: false });
  // not blank: count distinct colours in the page's own decoding of the PNG
  const colours = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = new OffscreenCanvas(img.width, img.height);
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, img.width, img.height).data;
    const set = new Set();
    for (let i = 0; i < d.length; i += 4 * 7) set.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return set.size;
  }, fs.readFileSync(file).toString('base64'));
  check(colours >= 50, `screenshot ${file} is not blank (${colours} distinct colours)`);
}

switch (scenario) {
  case 'tune_weights': {
    // the weights the page shows at a point equal `blendsync weights --json` there
    await setParam('move_x', process.env.POINT_X);
    await setParam('move_y', process.env.POINT_Y);
    await setParam('speed', process.env.POINT_SPEED);
    const move = await weightsShown('move');
    check(sameWeights(move, env('EXPECT_MOVE')), `node move at (${process.env.POINT_X}, ${process.env.POINT_Y}): ${JSON.stringify(move)}`);
    const loco = await weightsShown('locomotion');
    check(sameWeights(loco, env('EXPECT_LOCO')), `node locomotion at speed ${process.env.POINT_SPEED}: ${JSON.stringify(loco)}`);
    const leaves = await leavesShown();
    const want = env('EXPECT_MOVE').leaves;
    check(Object.entries(want).every(([m, w]) => leaves[m] === String(w)), `leaves under move: ${JSON.stringify(leaves)}`);
    // the native tick: same state and pose checksums after N ticks toward the point
    await page.click('#play'); // pause the live animation, then start over from the defaults
    check(await page.textContent('#play') === 'play', 'the animation is paused');
    await page.click('#reset');
    check(await page.textContent('#tick') === '0', 'reset: tick 0');
    await page.fill('#run-ticks', process.env.TICKS);
    await page.click('#run');
    const st = await page.textContent('#state-checksum'), pc = await page.textContent('#pose-checksum');
    const frame = env('EXPECT_FRAME');
    check(st === frame.state_checksum && pc === frame.pose_checksum,
      `after ${process.env.TICKS} ticks: state ${st} pose ${pc} = eval's tick ${frame.tick}`);
    check(await page.textContent('#tick') === process.env.TICKS, 'the tick counter shows the ticks run');
    // validate's findings: as many as `blendsync validate` reports, and a motion with one is marked where it is
    await page.waitForFunction(() => document.body.dataset.validated !== undefined);
    const findings = await page.$$eval('#findings li', (lis) => lis.map((li) => li.className));
    const counts = env('EXPECT_VALIDATE');
    check(findings.filter((c) => c === 'error').length === counts.error && findings.filter((c) => c === 'warning').length === counts.warning &&
      findings.filter((c) => c === 'info').length === counts.info, `the page lists validate's ${counts.error} errors, ${counts.warning} warnings, ${counts.info} infos`);
    const marked = await page.getAttribute('td.leaf[data-motion="walk"] ~ td, td.leaf[data-motion="walk"]', 'data-motion').catch(() => null);
    const title = await page.$eval('td.leaf[data-motion="walk"]', (td) => td.previousElementSibling.querySelector('.finding')?.title || '');
    check(marked === 'walk' && title.includes('root_motion'), `walk's row carries its finding: ${title.split('\n')[0]}`);
    // the markers are plain letters in CSS badges: no character the default fonts lack (ⓘ was drawn as a box)
    const marks = await page.$$eval('.finding', (els) => els.map((e) => e.textContent));
    check(marks.length > 0 && marks.every((m) => m === 'i' || m === '!'), `the ${marks.length} finding markers are badges around "i" / "!"`);
    await screenshot();
    break;
  }
  case 'tune_keep_tick': {
    // an edit keeps the instance's tick: the edited graph is re-simulated to it with the point's history
    await page.click('#play'); // paused: only the runs below tick
    const [a, b] = [env('POINT_A'), env('POINT_B')];
    for (const [k, v] of Object.entries(a)) await setParam(k, v);
    await page.click('#reset');
    await page.fill('#run-ticks', process.env.TICKS_A);
    await page.click('#run');
    for (const [k, v] of Object.entries(b)) await setParam(k, v);
    await page.fill('#run-ticks', process.env.TICKS_B);
    await page.click('#run');
    const total = String(Number(process.env.TICKS_A) + Number(process.env.TICKS_B));
    const before = await page.textContent('#state-checksum');
    const ptr = process.env.EDIT_PTR;
    await page.fill(`input[data-ptr="${ptr}"]`, process.env.NEW_VALUE);
    await page.press(`input[data-ptr="${ptr}"]`, 'Enter');
    check(await page.textContent('#tick') === total, `after editing ${ptr} the instance is still at tick ${total}`);
    const st = await page.textContent('#state-checksum'), pc = await page.textContent('#pose-checksum');
    const frame = env('EXPECT_FRAME');
    check(st !== before, `the edit changed the state (${before} -> ${st})`);
    check(st === frame.state_checksum && pc === frame.pose_checksum,
      `state ${st} pose ${pc} = eval's tick ${frame.tick} of the edited config with the point's two rows`);
    await screenshot();
    break;
  }
  case 'tune_response': {
    // the speed's response curve is drawn, and the shaped value at a target is the native filter's
    check(await page.isVisible('#responses canvas'), 'a response curve is drawn for speed');
    for (const v of process.env.TARGETS.split(' ')) {
      await setParam('speed', v);
      const target = await page.textContent('#response-target-speed'), shaped = await page.textContent('#response-speed');
      const want = process.env['EXPECT_SHAPED_' + v.replace('.', '_')];
      check(target === v && shaped === want, `speed target ${target} is shaped to ${shaped} (eval settles at ${want})`);
    }
    const drawn = await page.$eval('#responses canvas', (cv) => {
      const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 200 && d[i + 2] > 150) n++; // the shape line's blue
      return n;
    });
    check(drawn > 100, `the shape is drawn (${drawn} blue pixels)`);
    await screenshot();
    break;
  }
  case 'tune_script': {
    await page.click('#play'); // paused: the run below is the only ticking
    await page.selectOption('#script-select', { label: 'script path.csv' });
    check((await page.textContent('#status')).includes('driven by path.csv'), 'the script drives the instance');
    await page.click('#reset');
    await page.fill('#run-ticks', process.env.TICKS);
    await page.click('#run');
    const st = await page.textContent('#state-checksum'), pc = await page.textContent('#pose-checksum');
    const frame = env('EXPECT_FRAME');
    check(st === frame.state_checksum && pc === frame.pose_checksum,
      `after ${process.env.TICKS} scripted ticks (a wave trigger at 150): state ${st} pose ${pc} = eval --script's tick ${frame.tick}`);
    check(await page.inputValue('#param-move_y') !== '0', `the point follows the script (move_y target ${await page.inputValue('#param-move_y')})`);
    await screenshot();
    break;
  }
  case 'tune_drag': {
    // dragging the point on the move canvas changes the weights, and they are `weights --json`'s at the new point
    const before = await weightsShown('move');
    const box = await page.locator('#space-move').boundingBox();
    // from a point between the samples (the middle is the idle sample, which would be dragged instead)
    await page.mouse.move(box.x + box.width * 0.56, box.y + box.height * 0.44);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.62, box.y + box.height * 0.35, { steps: 5 });
    await page.mouse.move(box.x + box.width * 0.72, box.y + box.height * 0.30, { steps: 5 });
    await page.mouse.up();
    const after = await weightsShown('move');
    check(JSON.stringify(after) !== JSON.stringify(before), `dragging changed the weights: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
    const x = await page.inputValue('#param-move_x'), y = await page.inputValue('#param-move_y');
    check(Number(x) > 0 && Number(y) > 0, `the point moved up and right: (${x}, ${y})`);
    fs.writeFileSync(`${outDir}/point.txt`, `${x} ${y}\n${JSON.stringify(after)}\n`);
    // dragging a sample (strafe_right at (1, 0): pixel (265.4, 150) of the 300-pixel view of [-1.3, 1.3]^2)
    // moves it to the 0.01 grid: pixel (250, 120) is (0.86667, 0.26) -> "0.87, 0.26" in the config text
    await page.mouse.move(box.x + 265, box.y + 150);
    await page.mouse.down();
    await page.mouse.move(box.x + 250, box.y + 120, { steps: 4 });
    await page.mouse.up();
    const pos = await page.inputValue('input[data-ptr="/nodes/move/children/2/position"]');
    check(pos === '0.87, 0.26', `dragging the strafe_right sample wrote its position as "${pos}"`);
    check(!(await page.isDisabled('#save')), 'the edit can be saved');
    await screenshot();
    break;
  }
  case 'tune_save': {
    // edit one number in its control (a threshold, a curve key), save: the file changes only there
    const ptr = process.env.EDIT_PTR;
    check(await page.inputValue(`input[data-ptr="${ptr}"]`) === process.env.OLD_VALUE, `the control of ${ptr} shows the file's ${process.env.OLD_VALUE}`);
    await page.fill(`input[data-ptr="${ptr}"]`, process.env.NEW_VALUE);
    await page.press(`input[data-ptr="${ptr}"]`, 'Enter');
    await page.click('#save');
    await page.waitForFunction(() => document.body.dataset.saved === '1', null, { timeout: 3000 });
    check(true, 'the page saved');
    await screenshot();
    break;
  }
  case 'tune_broken': {
    const msg = (await page.textContent('#message')).trim();
    check(await page.isVisible('#message'), `the page shows a message: ${msg}`);
    check(msg === process.env.EXPECT_MESSAGE, `it is the loader's /json/path message (${process.env.EXPECT_MESSAGE})`);
    await screenshot();
    break;
  }
  case 'replay_tick': {
    // #tick=89&character=2 lands there; the page's checksum is the recorded (natively verified) one
    check(await page.isVisible('#view-replay'), 'the replay view is shown');
    check(await page.textContent('#replay-tick') === process.env.EXPECT_TICK, `#tick= landed on tick ${process.env.EXPECT_TICK}`);
    check(await page.inputValue('#replay-character') === '2', 'character=2 is chosen');
    const got = await page.textContent('#replay-checksum');
    check(got === process.env.EXPECT_BLEND, `the page's blend checksum at tick 89 is ${got} (replay file / replay verify: ${process.env.EXPECT_BLEND})`);
    // scrubbing elsewhere and back with the hash gives the same bits
    await page.evaluate(() => { location.hash = '#tick=300'; });
    await page.waitForFunction(() => document.getElementById('replay-tick').textContent === '300');
    const at300 = await page.textContent('#replay-checksum');
    await page.evaluate(() => { location.hash = '#tick=89&character=2'; });
    await page.waitForFunction(() => document.getElementById('replay-tick').textContent === '89');
    check(await page.textContent('#replay-checksum') === got && at300 !== got, `scrubbing to 300 (${at300}) and back to 89 gives the same checksum`);
    check(await page.evaluate(() => window.studioPresentCheck()) === 0, 'the presentation pose at alpha 0 is the tick pose, joint for joint');
    // playing shows presentation poses between ticks: alpha moves off 0 while the tick advances
    await page.click('#replay-play');
    await page.waitForFunction(() => Number(document.getElementById('replay-tick').textContent) >= 95 &&
      document.getElementById('replay-alpha').textContent !== '0', null, { timeout: 3000 });
    await page.click('#replay-play');
    check(true, `playing advanced to tick ${await page.textContent('#replay-tick')} + ${await page.textContent('#replay-alpha')}`);
    await screenshot();
    break;
  }
  case 'replay_events': {
    // the timeline of every character against the native re-simulation (studio_replay_timeline): the
    // switch band's state at each tick, and the ticks each event fired in and each range was entered,
    // left and open after
    check(await page.isVisible('#view-replay'), 'the replay view is shown');
    const native = env('EXPECT_TIMELINE');
    const n = await page.evaluate(() => document.getElementById('replay-character').options.length);
    check(n === native.length, `${n} characters on the page, ${native.length} natively`);
    let fired = 0, opened = 0;
    for (let k = 0; k < n; k++) {
      const shown = await page.evaluate((c) => window.studioTimeline(c), k);
      check(JSON.stringify(shown.switches) === JSON.stringify(native[k].switches),
        `character ${k}: the switch band's state at each of ${shown.switches[0].length} ticks is the native instance's`);
      check(JSON.stringify(shown.actions) === JSON.stringify(native[k].actions),
        `character ${k}: ${shown.actions.map((a) => a.kind === 'event' ? `${a.name} fired at ${a.fired.length} ticks` :
          `${a.name} entered at ${a.entered.length}, left at ${a.exited.length}, open after ${a.open.length} ticks`).join('; ')}, as natively`);
      fired += shown.actions.reduce((s, a) => s + a.fired.length, 0);
      opened += shown.actions.reduce((s, a) => s + a.entered.length, 0);
    }
    check(fired > 0 && opened > 0, `the replay has events (${fired} fired) and hit windows (${opened} opened) to show`);
    // a tick with the hit window open: the line under the timeline names it
    const at = native[Number(process.env.EVENT_CHARACTER)].actions[0].open[0];
    await page.evaluate(([tick, c]) => { location.hash = `#tick=${tick}&character=${c}`; }, [at, process.env.EVENT_CHARACTER]);
    await page.waitForFunction((tick) => document.getElementById('replay-tick').textContent === String(tick), at);
    const txt = await page.textContent('#replay-fired');
    check(/^hit (entered, )?open/.test(txt), `at tick ${at} character ${process.env.EVENT_CHARACTER} shows "${txt}"`);
    // the states named for the shown tick are the native instance's at that tick, here and at the first
    // tick playing another state
    const band = native[Number(process.env.EVENT_CHARACTER)].switches[0];
    for (const tick of [at, band.findIndex((s) => s !== band[at])]) {
      await page.evaluate(([tk, c]) => { location.hash = `#tick=${tk}&character=${c}`; }, [tick, process.env.EVENT_CHARACTER]);
      await page.waitForFunction((tk) => document.getElementById('replay-tick').textContent === String(tk), tick);
      const want = `upper: ${['move', 'wave', 'punch'][native[Number(process.env.EVENT_CHARACTER)].switches[0][tick]]}`;
      const states = await page.textContent('#replay-states');
      check(states === want, `at tick ${tick} the band names "${states}", the native switch state`);
    }
    await screenshot();
    break;
  }
  case 'replay_bad': {
    const msg = (await page.textContent('#message')).trim();
    check(await page.isVisible('#message') && msg.startsWith(process.env.EXPECT_IN) && msg.includes(process.env.EXPECT_REASON),
      `a cut replay shows "${msg}"`);
    await screenshot();
    break;
  }
  case 'desync': {
    check(await page.isVisible('#view-desync'), 'the desync view is shown');
    check(await page.textContent('#desync-tick') === process.env.EXPECT_TICK, `the reported tick is the report's (${process.env.EXPECT_TICK})`);
    check(await page.textContent('#desync-first') === process.env.EXPECT_FIRST &&
      await page.getAttribute('#desync-timeline', 'data-first') === process.env.EXPECT_FIRST,
      `the first divergent tick shown and marked on the timeline is the report's (${process.env.EXPECT_FIRST})`);
    check(await page.textContent('#desync-character') === process.env.EXPECT_CHARACTER, `the character is the report's (${process.env.EXPECT_CHARACTER})`);
    const lines = await page.$$eval('#desync-list li', (lis) => lis.map((li) => li.textContent));
    check(JSON.stringify(lines) === process.env.EXPECT_LINES, `the list of differences is the report's ${lines.length} lines`);
    await page.click('#desync-next');
    check(await page.textContent('#desync-position') === `2 of ${lines.length}`, 'next goes to the second difference');
    await page.click('#desync-prev');
    await page.click('#desync-prev');
    check(await page.textContent('#desync-position') === `${lines.length} of ${lines.length}`, 'previous from the first wraps to the last');
    // highlighted: the joints whose pose checksums differ. Every joint drawn at a different position must
    // have a highlighted joint at or above it (a position moves only when its own or a parent's transform
    // does), and only the report's character has any
    const info = await page.evaluate(() => window.studioDesync);
    const want = process.env.EXPECT_CHARACTER.replace(/^\d+ \((.*)\)$/, '$1');
    for (const c of info.characters) {
      const moved = c.joints.map((_, j) => [0, 1, 2].some((a) => c.server[j * 3 + a] !== c.client[j * 3 + a])).flatMap((m, j) => (m ? [j] : []));
      const lit = new Set(c.differing_joints);
      const explained = moved.every((j) => { for (let k = j; k >= 0; k = c.joints[k].parent) if (lit.has(k)) return true; return false; });
      check(explained && (c.name === want || lit.size === 0) && (lit.size === 0) === (moved.length === 0),
        `character ${c.name}: highlighted [${c.differing_joints.map((j) => c.joints[j].name)}] explain the ${moved.length} joints drawn apart`);
      if (c.name === want) {
        const shown = await page.getAttribute('#desync-joints', 'data-joints');
        check(process.env.EXPECT_POSE_DIFF === '1' ? c.differing_joints.length > 0 && shown.startsWith(`${want}:`) : c.differing_joints.length === 0,
          process.env.EXPECT_POSE_DIFF === '1' ? `the report's character has highlighted joints, listed: ${shown}` : 'no joint differs (the blend state does)');
      }
    }
    // the states between: re-simulated to the reported tick the server's state is server.bsms byte for
    // byte; after the frame before the first divergent tick the two states agree, after it only the
    // report's character differs (its blend state: the flipped clock)
    const first = Number(process.env.EXPECT_FIRST), T = Number(process.env.EXPECT_TICK);
    const atT = await page.evaluate((tk) => window.studioDesyncAt(tk), T);
    check(!atT.error && atT.server_is_bundle && atT.client_from === 'client.bsms' &&
      JSON.stringify(atT.characters.map((c) => c.differing_joints)) === JSON.stringify(info.characters.map((c) => c.differing_joints)),
      `tick ${T} re-simulated from server-previous.bsms is server.bsms, with the same joints highlighted`);
    const before = await page.evaluate((tk) => window.studioDesyncAt(tk), first - 1);
    check(!before.error && before.client_from === 'trail' && before.characters.every((c) => !c.blend_differs && c.differing_joints.length === 0),
      `after frame ${first - 1} (client from its trail) the states agree: ${await page.textContent('#desync-shown')}`);
    const atFirst = await page.evaluate((tk) => window.studioDesyncAt(tk), first);
    check(!atFirst.error && atFirst.characters.every((c) => c.blend_differs === (c.name === want)),
      `after frame ${first} only ${want} differs: ${await page.textContent('#desync-shown')}`);
    // clicking the timeline at the first divergence's mark shows that tick
    const t0 = Number((await page.evaluate(() => window.studioDesync.first_divergence.previous_tick)));
    const box = await page.locator('#desync-timeline').boundingBox();
    const cw = await page.$eval('#desync-timeline', (cv) => cv.width);
    await page.mouse.click(box.x + (20 + (first - t0) / Math.max(1, T - t0) * (cw - 40)) * box.width / cw, box.y + 30);
    const shown = await page.textContent('#desync-shown');
    check(shown.startsWith(`${first} (`), `clicking the timeline at the first divergence shows it: ${shown}`);
    await page.evaluate((tk) => window.studioDesyncAt(tk), T);
    await screenshot();
    break;
  }
  case 'desync_pose': {
    // a pose-only desync (the states agree): the page marks the planted tick and highlights exactly the
    // planted joint, the one the bundle names, and says so
    check(await page.isVisible('#view-desync'), 'the desync view is shown');
    check(await page.textContent('#desync-tick') === process.env.EXPECT_TICK, `the reported tick is the planted fault's check (${process.env.EXPECT_TICK})`);
    check(await page.textContent('#desync-first') === process.env.EXPECT_FIRST &&
      await page.getAttribute('#desync-timeline', 'data-first') === process.env.EXPECT_FIRST,
      `the first tick whose pose checksums differ, shown and marked on the timeline: ${process.env.EXPECT_FIRST}`);
    check(await page.textContent('#desync-character') === process.env.EXPECT_CHARACTER, `the character is the planted one (${process.env.EXPECT_CHARACTER})`);
    const lines = await page.$$eval('#desync-list li', (lis) => lis.map((li) => li.textContent));
    check(JSON.stringify(lines) === process.env.EXPECT_LINES, `the list of differences is report.txt's ${lines.length} lines: ${JSON.stringify(lines)}`);
    const lit = await page.evaluate(() => window.studioDesyncHighlighted);
    check(JSON.stringify(lit) === process.env.EXPECT_HIGHLIGHT, `the joint drawn red is the planted one alone: ${JSON.stringify(lit)}`);
    const joints = page.locator('#desync-joints');
    const text = await joints.textContent();
    check(await joints.getAttribute('data-joints') === process.env.EXPECT_JOINTS && await joints.getAttribute('data-source') === 'bundle' &&
      text.startsWith(`${process.env.EXPECT_JOINTS}, named by the bundle`), `the view says so: "${text}"`);
    // the planted fault changes what the client reports, not its state: the two states agree everywhere
    const info = await page.evaluate(() => window.studioDesync);
    check(info.characters.every((c) => !c.blend_differs && c.differing_joints.length === 0 &&
      c.joints.every((_, j) => [0, 1, 2].every((a) => c.server[j * 3 + a] === c.client[j * 3 + a]))),
      'the states agree: no blend difference, no joint computed apart, both skeletons drawn at the same positions');
    // another tick shows the states there, without the bundle's joints; the reported tick shows them again
    const T = Number(process.env.EXPECT_TICK), t0 = Number(info.first_divergence.previous_tick);
    const other = await page.evaluate((tk) => window.studioDesyncAt(tk), t0 + 1);
    check(!other.error && JSON.stringify(await page.evaluate(() => window.studioDesyncHighlighted)) === '[]' &&
      (await joints.textContent()) === 'none (the states agree)', `tick ${t0 + 1}: nothing highlighted, "${await joints.textContent()}"`);
    await page.evaluate((tk) => window.studioDesyncAt(tk), T);
    check(JSON.stringify(await page.evaluate(() => window.studioDesyncHighlighted)) === process.env.EXPECT_HIGHLIGHT,
      `back at tick ${T} the planted joint is red again`);
    await screenshot();
    break;
  }
  default:
    fail('unknown scenario');
}
check(consoleErrors.length === 0, `no page errors ${consoleErrors.join('; ')}`);
await browser.close();
