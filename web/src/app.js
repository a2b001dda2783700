// app.js — the studio page (docs/studio.md). Every number shown is computed by the wasm core
// (studio_core.js: the project's C core and config library built with emscripten); this file only
// turns results into pixels (floats for display) and edits the config's text.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const $ = (id) => document.getElementById(id);
const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#ffe119', '#f58231', '#911eb4', '#42d4f4', '#f032e6',
  '#bfef45', '#469990', '#9a6324', '#800000', '#808000', '#000075', '#fabed4', '#aaffc3'];
const colour = (i) => i < PALETTE.length ? PALETTE[i] : `hsl(${(i * 222.5) % 360} 65% 55%)`;
const ONE = 65536;

let core = null;            // the emscripten module
let api = null;             // cwrapped functions
let files = [];             // /api/files
let current = null;         // the open file: {id, name, text, savable}
let layout = null;          // bs_load's answer for the current text
let fields = null;          // JSON.parse of the current text (which fields were written)
let params = [];            // raw targets, one per parameter
let playing = true;
let tickDebt = 0;
let lastFrame = 0;
let dirty = false;

function showMessage(text) {
  const m = $('message');
  m.textContent = text;
  m.hidden = !text;
  document.body.dataset.error = text ? '1' : '';
}
function setStatus(text) { $('status').textContent = text; }

// ---------------------------------------------------------------- the wasm core
async function loadCore() {
  let mod;
  try {
    mod = await import('./studio_core.js');
  } catch (e) {
    throw new Error('the wasm core (studio_core.js) is missing from this build: the web target needs emscripten ' +
      'and Debian\'s cJSON source (see build/web/wasm-build.log)');
  }
  core = await mod.default();
  api = {
    load: core.cwrap('bs_load', 'string', ['string', 'number', 'string']),
    setParam: core.cwrap('bs_set_param', 'number', ['number', 'number']),
    weights: core.cwrap('bs_weights', 'string', []),
    reset: core.cwrap('bs_reset', 'number', []),
    tick: core.cwrap('bs_tick', 'number', ['number']),
    state: core.cwrap('bs_state', 'string', []),
    regionMap: core.cwrap('bs_region_map', 'number', ['number', 'number', 'number', 'number', 'number', 'number', 'number']),
    curve: core.cwrap('bs_curve', 'number', ['number', 'number', 'number', 'number']),
    response: core.cwrap('bs_response', 'number', ['number', 'number', 'number', 'number']),
    fxFormat: core.cwrap('bs_fx_format', 'string', ['number']),
    validate: core.cwrap('bs_validate', 'string', ['string']),
    scriptLoad: core.cwrap('bs_script_load', 'string', ['string', 'number', 'string']),
    replayOpen: core.cwrap('bs_replay_open', 'string', ['string']),
    replayTracks: core.cwrap('bs_replay_tracks', 'number', []),
    replayStep: core.cwrap('bs_replay_step', 'string', ['number']),
    replayInfo: core.cwrap('bs_replay_info', 'string', []),
    replaySeek: core.cwrap('bs_replay_seek', 'string', ['number']),
    desyncOpen: core.cwrap('bs_desync_open', 'string', ['string', 'string']),
    desyncAt: core.cwrap('bs_desync_at', 'string', ['string', 'string', 'number']),
    replayPresent: core.cwrap('bs_replay_present', 'number', ['number']),
  };
}

// exact decimal text -> raw Q16.16 (null when it is not a number in range)
function fxParse(text) {
  const t = String(text).trim();
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return null;
  const sp = core.stackSave();
  const okp = core.stackAlloc(4);
  const raw = core.ccall('bs_fx_parse', 'number', ['string', 'number'], [t, okp]);
  const ok = core.HEAP32[okp >> 2];
  core.stackRestore(sp);
  return ok ? raw : null;
}
const fx = (raw) => api.fxFormat(raw | 0);

function writeFs(name, bytes) {
  const path = '/w/' + name.replace(/^\/+/, '');
  const dir = path.slice(0, path.lastIndexOf('/'));
  core.FS.mkdirTree(dir);
  core.FS.writeFile(path, bytes);
  return path;
}

// ---------------------------------------------------------------- JSON text editing (keeps the file's own text)
// Spans of every value by JSON pointer: {start, end, kind, members: [[key, keyStart]]}.
function spans(text) {
  const map = new Map();
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const str = () => {
    const s = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(s, i));
  };
  const value = (ptr) => {
    ws();
    const start = i;
    const c = text[i];
    const entry = { start, end: 0, kind: 'scalar', members: [] };
    if (c === '{') {
      entry.kind = 'object';
      i++; ws();
      if (text[i] === '}') i++;
      else for (;;) {
        ws();
        const keyStart = i;
        const key = str();
        entry.members.push([key, keyStart]);
        ws(); i++; // ':'
        value(ptr + '/' + key.replace(/~/g, '~0').replace(/\//g, '~1'));
        ws();
        if (text[i++] === '}') break;
      }
    } else if (c === '[') {
      entry.kind = 'array';
      i++; ws();
      let k = 0;
      if (text[i] === ']') i++;
      else for (;;) {
        value(ptr + '/' + k++);
        ws();
        if (text[i++] === ']') break;
      }
    } else if (c === '"') {
      str();
    } else {
      while (i < text.length && !',}] \t\r\n'.includes(text[i])) i++;
    }
    entry.end = i;
    map.set(ptr, entry);
  };
  value('');
  return map;
}

// Set the value at pointer (its parent object must exist) to raw JSON text; returns the new text.
function setValue(text, ptr, valueText) {
  const map = spans(text);
  const at = map.get(ptr);
  if (at) return text.slice(0, at.start) + valueText + text.slice(at.end);
  const cut = ptr.lastIndexOf('/');
  const parent = map.get(ptr.slice(0, cut));
  if (!parent || parent.kind !== 'object') throw new Error(`${ptr.slice(0, cut) || '/'}: not an object`);
  const key = ptr.slice(cut + 1).replace(/~1/g, '/').replace(/~0/g, '~');
  if (parent.members.length) {
    const pos = parent.members[0][1];
    return text.slice(0, pos) + JSON.stringify(key) + ': ' + valueText + ', ' + text.slice(pos);
  }
  return text.slice(0, parent.start + 1) + ' ' + JSON.stringify(key) + ': ' + valueText + ' ' + text.slice(parent.end - 1);
}

// ---------------------------------------------------------------- files
async function fetchFiles() {
  const r = await fetch('api/files');
  if (!r.ok) throw new Error(`the server's file list: HTTP ${r.status}`);
  files = (await r.json()).files;
  // every file into the wasm file system under its name, so relative clip sources resolve
  await Promise.all(files.filter((f) => f.kind !== 'replay').map(async (f) => {
    const b = await fetch('api/file?id=' + f.id);
    if (!b.ok) throw new Error(`${f.name}: HTTP ${b.status}`);
    f.bytes = new Uint8Array(await b.arrayBuffer());
    writeFs(f.name, f.bytes);
  }));
  const sel = $('file-select');
  sel.textContent = '';
  for (const f of files.filter((x) => x.kind === 'config' || x.kind === 'replay' || x.kind === 'bundle')) {
    const o = document.createElement('option');
    o.value = f.id; o.textContent = `${f.name} (${{ config: 'Tune', replay: 'Replay', bundle: 'Desync' }[f.kind]})`;
    sel.append(o);
  }
  sel.onchange = () => openFile(files.find((f) => String(f.id) === sel.value));
  const ss = $('script-select');
  for (const f of files.filter((x) => x.kind === 'csv')) {
    const o = document.createElement('option');
    o.value = f.id; o.textContent = `script ${f.name}`;
    ss.append(o);
  }
  ss.onchange = () => startScript(files.find((f) => String(f.id) === ss.value));
}

function openFile(f) {
  if (f && f.kind === 'bundle') openDesync(f);
  else if (f && f.kind === 'replay') openReplay(f);
  else openConfig(f);
}

function showView(name) {
  for (const v of ['tune', 'replay', 'desync']) $('view-' + v).hidden = v !== name;
  for (const b of document.querySelectorAll('.tab')) b.classList.toggle('active', b.dataset.view === name);
  activeView = name;
}
let activeView = 'tune';

function openConfig(f) {
  showView('tune');
  if (!f) { showMessage('no graph config was given: start it as `blendsync studio CONFIG.json ...`'); return; }
  current = { id: f.id, name: f.name, text: new TextDecoder().decode(f.bytes), savable: f.savable };
  params = [];
  applyText(current.text, true);
  dirty = false;
  $('save').disabled = true;
}

// Parse text with the core: draw everything, or show the error (file, JSON path, message).
function applyText(text, fresh) {
  const keep = fresh ? 0 : shownTick; // an edit keeps the instance's tick: re-simulated to it below
  const res = JSON.parse(api.load(text, new TextEncoder().encode(text).length, current.name));
  if (res.error) {
    layout = null;
    showMessage(res.error);
    $('spaces').textContent = '';
    $('weights').textContent = '';
    setStatus(`${current.name}: not loaded`);
    return false;
  }
  showMessage('');
  current.text = text;
  layout = res;
  try { fields = JSON.parse(text); } catch { fields = {}; }
  if (fresh || params.length !== layout.parameters.length) params = layout.parameters.map((p) => p.default_raw);
  params.forEach((v, i) => api.setParam(i, v));
  buildParams();
  drawResponses();
  const sig = layout.nodes.map((n) => `${n.name}:${n.type}:${n.children.length}`).join('|');
  if (!fresh && views.sig === sig) { // same nodes: keep the canvases (a drag goes on) and their scales
    for (const v of views) v.node = layout.nodes[v.n];
    drawSpaces();
  } else {
    buildSpaces();
    views.sig = sig;
  }
  buildSettings();
  buildSkeleton();
  refreshWeights();
  refreshState();
  scheduleValidate();
  setStatus(`${current.name}: ${layout.nodes.length} nodes, ${layout.parameters.length} parameters, ` +
    `${layout.joints.length} joints, ${layout.tick_rate} Hz`);
  if (script) startScript(script.file); // the graph was rebuilt: the script starts over on it
  if (keep > 0) { resimulate(keep); refreshState(); } // ... and the instance is re-simulated to the tick it was at
  document.body.dataset.ready = '1';
  return true;
}

function edit(ptr, valueText) {
  let text;
  try { text = setValue(current.text, ptr, valueText); } catch (e) { showMessage(`${current.name}: ${e.message}`); return; }
  applyText(text, false);
  current.text = text; // kept even when it does not load (the message says why), so it can be fixed
  dirty = true;
  $('save').disabled = !current.savable;
  $('save-status').textContent = current.savable ? 'edited (not saved)' : 'edited (this file cannot be saved)';
}

async function save() {
  const r = await fetch('api/save?id=' + current.id, { method: 'POST', headers: { 'X-Blendsync-Studio': 'save' }, body: current.text });
  const body = await r.text();
  if (!r.ok) { $('save-status').textContent = `save failed: ${body}`; return; }
  dirty = false;
  $('save').disabled = true;
  $('save-status').textContent = `saved ${current.name}`;
  document.body.dataset.saved = String(Number(document.body.dataset.saved || 0) + 1);
}

// ---------------------------------------------------------------- ticking, and re-simulating after an edit
let shownTick = 0; // the instance's tick count (bs_state's)
let pointLog = []; // [[tick, targets]]: the point's targets from each tick on since the last reset or script start
function tickInstance(n) {
  if (!script) {
    const last = pointLog[pointLog.length - 1];
    if (!last || last[1].length !== params.length || last[1].some((v, i) => v !== params[i])) pointLog.push([shownTick, params.slice()]);
  }
  api.tick(n);
  shownTick += n;
}
// Tick a freshly loaded instance to tick n with the inputs it had: the script from its start, or the
// point's logged targets from the ticks they were set on (as `eval --script` with those rows would)
function resimulate(n) {
  if (script) { api.tick(n); shownTick = n; return; }
  const log = pointLog.length && pointLog[0][0] === 0 && pointLog.every(([, ps]) => ps.length === params.length) ? pointLog : [[0, params.slice()]];
  let t = 0;
  log.forEach(([, ps], k) => {
    const to = Math.min(n, k + 1 < log.length ? log[k + 1][0] : n);
    ps.forEach((v, i) => api.setParam(i, v));
    if (to > t) { api.tick(to - t); t = to; }
  });
  if (t < n) api.tick(n - t);
  params.forEach((v, i) => api.setParam(i, v));
  pointLog = log;
  shownTick = n;
}

// ---------------------------------------------------------------- a CSV script through the graph (as `blendsync eval`)
let script = null; // {file, rows, ticks} while a script drives the instance
function startScript(f) {
  if (!layout) return;
  if (!f) { api.scriptLoad('', 0, ''); script = null; pointLog = []; shownTick = 0; setStatus(`${current.name}: driven by the point`); refreshState(); return; }
  const text = new TextDecoder().decode(f.bytes);
  const res = JSON.parse(api.scriptLoad(text, new TextEncoder().encode(text).length, f.name));
  if (res.error) { script = null; showMessage(res.error); $('script-select').value = ''; return; }
  showMessage('');
  script = { file: f, rows: res.rows, ticks: res.ticks };
  tickDebt = 0; pointLog = []; shownTick = 0;
  setStatus(`${current.name}: driven by ${f.name} (${res.rows} rows, ${res.ticks} ticks)`);
  refreshState();
}

// ---------------------------------------------------------------- validate
let validateTimer = 0;
function scheduleValidate() {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(() => {
    const ul = $('findings');
    ul.textContent = '';
    const path = writeFs(current.name + '.studio-check.json', new TextEncoder().encode(current.text));
    // the copy sits next to the config, so its clip sources resolve the same way
    const res = JSON.parse(api.validate(path));
    const list = res.findings || [];
    for (const node of layout ? layout.nodes : []) for (const w of node.warnings) list.push({ severity: 'warning', code: 'layout', message: `node ${node.name}: ${w}` });
    if (res.error) list.push({ severity: 'error', code: 'validate', message: res.error });
    findingsByMotion = new Map();
    for (const f of list) {
      const li = document.createElement('li');
      li.className = f.severity;
      li.dataset.code = f.code;
      li.textContent = `${f.severity}: ${f.code}${f.clip ? ' (' + f.clip + ')' : ''}: ${f.message}`;
      ul.append(li);
      if (f.clip) findingsByMotion.set(f.clip, [...(findingsByMotion.get(f.clip) || []), f]);
    }
    markFindings();
    if (!list.length) { const li = document.createElement('li'); li.textContent = 'no findings'; ul.append(li); }
    document.body.dataset.validated = String(list.filter((f) => f.severity === 'error').length);
  }, 150);
}

// a finding about a motion's clip is also shown where that motion is: its weight rows get a marker
let findingsByMotion = new Map();
function markFindings() {
  for (const td of document.querySelectorAll('td.weight, td.leaf')) {
    const m = td.dataset.child || td.dataset.motion;
    const fs = findingsByMotion.get(m) || [];
    const label = td.previousElementSibling;
    if (!label) continue;
    label.querySelector('.finding')?.remove();
    if (!fs.length) continue;
    const worst = fs.some((f) => f.severity === 'error') ? 'error' : fs.some((f) => f.severity === 'warning') ? 'warning' : 'info';
    const mark = document.createElement('span');
    mark.className = `finding ${worst}`;
    // a round badge drawn by CSS around a plain letter: the default fonts have no glyph for ⓘ (U+24D8)
    mark.textContent = worst === 'info' ? 'i' : '!';
    mark.title = fs.map((f) => `${f.severity}: ${f.code}: ${f.message}`).join('\n');
    label.append(mark);
  }
}

// ---------------------------------------------------------------- parameters
function buildParams() {
  const t = $('params');
  t.textContent = '';
  t.insertAdjacentHTML('beforeend', '<tr><th>parameter</th><th>target</th><th>filtered</th></tr>');
  layout.parameters.forEach((p, i) => {
    const tr = document.createElement('tr');
    const inp = document.createElement('input');
    inp.size = 10; inp.value = fx(params[i]); inp.dataset.param = p.name; inp.id = 'param-' + p.name;
    inp.addEventListener('change', () => {
      const raw = fxParse(inp.value);
      inp.classList.toggle('bad', raw === null);
      if (raw === null) return;
      params[i] = raw; api.setParam(i, raw);
      refreshAll();
    });
    tr.innerHTML = `<td>${p.name}</td><td></td><td class="num" id="filtered-${p.name}"></td>`;
    tr.children[1].append(inp);
    t.append(tr);
  });
}
function setParamRaw(i, raw) {
  params[i] = raw | 0;
  api.setParam(i, params[i]);
  const inp = $('param-' + layout.parameters[i].name);
  if (inp) { inp.value = fx(params[i]); inp.classList.remove('bad'); }
}

// ---------------------------------------------------------------- blend spaces (drawn as `blendsync plot` draws them)
const SIZE = 300, MAP = 100;
let views = [];

function nodeFields(name) { return (fields.nodes && fields.nodes[name]) || {}; }

function buildSpaces() {
  const box = $('spaces');
  box.textContent = '';
  views = [];
  layout.nodes.forEach((node, n) => {
    const type = nodeFields(node.name).type || node.type;
    if (type === 'Switch' || type === 'Direct' || node.params.length === 0) return;
    const div = document.createElement('div');
    div.className = 'space';
    div.dataset.node = node.name;
    const pnames = node.params.map((k) => layout.parameters[k].name).join(', ');
    div.innerHTML = `<h3>${node.name} <small>${type} (${pnames})</small></h3>`;
    const cv = document.createElement('canvas');
    cv.width = SIZE; cv.height = node.params.length === 2 ? SIZE : 160;
    cv.id = 'space-' + node.name;
    div.append(cv);
    for (const w of node.warnings) div.insertAdjacentHTML('beforeend', `<div class="warn">${w}</div>`);
    box.append(div);
    const v = { n, node, cv, dim: node.params.length };
    fitView(v);
    views.push(v);
    attachDrag(v);
  });
  drawSpaces();
}

function fitView(v) {
  const ch = v.node.children;
  if (v.dim === 2) {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const c of ch) { x0 = Math.min(x0, c.position_raw[0]); x1 = Math.max(x1, c.position_raw[0]); y0 = Math.min(y0, c.position_raw[1]); y1 = Math.max(y1, c.position_raw[1]); }
    const span = Math.max(x1 - x0, y1 - y0, ONE) * 1.3;
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    v.x0 = Math.round(cx - span / 2); v.x1 = Math.round(cx + span / 2);
    v.y0 = Math.round(cy - span / 2); v.y1 = Math.round(cy + span / 2);
  } else {
    let x0 = Infinity, x1 = -Infinity;
    for (const c of ch) { x0 = Math.min(x0, c.threshold_raw); x1 = Math.max(x1, c.threshold_raw); }
    const span = Math.max(x1 - x0, ONE), pad = span * 0.12;
    v.x0 = Math.round(x0 - pad); v.x1 = Math.round(x1 + pad);
  }
}
const toPx = (v, x) => (x - v.x0) / (v.x1 - v.x0) * v.cv.width;
const toPy = (v, y) => (v.y1 - y) / (v.y1 - v.y0) * v.cv.height;
const fromPx = (v, px) => v.x0 + px / v.cv.width * (v.x1 - v.x0);
const fromPy = (v, py) => v.y1 - py / v.cv.height * (v.y1 - v.y0);
const PLOT_TOP = 10, PLOT_H = 110; // 1D: the curves' band

function drawSpaces() { for (const v of views) drawSpace(v); }

function drawSpace(v) {
  const g = v.cv.getContext('2d');
  const ch = v.node.children;
  g.fillStyle = '#f6f6f4'; g.fillRect(0, 0, v.cv.width, v.cv.height);
  g.font = '11px system-ui, sans-serif';
  if (v.dim === 2) {
    const ptr = api.regionMap(v.n, MAP, MAP, v.x0, v.y0, v.x1, v.y1);
    if (ptr) {
      const img = new ImageData(new Uint8ClampedArray(core.HEAPU8.buffer, ptr, MAP * MAP * 4).slice(), MAP, MAP);
      const off = new OffscreenCanvas(MAP, MAP);
      off.getContext('2d').putImageData(img, 0, 0);
      g.imageSmoothingEnabled = true;
      g.drawImage(off, 0, 0, v.cv.width, v.cv.height);
    }
    // axes through 0
    g.strokeStyle = 'rgba(0,0,0,0.25)'; g.lineWidth = 1;
    g.beginPath(); g.moveTo(toPx(v, 0), 0); g.lineTo(toPx(v, 0), v.cv.height); g.moveTo(0, toPy(v, 0)); g.lineTo(v.cv.width, toPy(v, 0)); g.stroke();
    // Delaunay triangulation
    g.strokeStyle = 'rgba(20,20,20,0.7)';
    for (const t of v.node.triangles) {
      g.beginPath();
      t.forEach((c, k) => { const p = ch[c].position_raw; (k ? g.lineTo : g.moveTo).call(g, toPx(v, p[0]), toPy(v, p[1])); });
      g.closePath(); g.stroke();
    }
    ch.forEach((c, i) => {
      const x = toPx(v, c.position_raw[0]), y = toPy(v, c.position_raw[1]);
      g.beginPath(); g.arc(x, y, 6, 0, Math.PI * 2); g.fillStyle = '#fff'; g.fill();
      g.lineWidth = 3; g.strokeStyle = colour(i); g.stroke(); g.lineWidth = 1;
      const tw = g.measureText(c.name).width;
      g.fillStyle = '#202020'; g.fillText(c.name, x + 8 + tw > v.cv.width ? x - 8 - tw : x + 8, y - 6);
    });
    const px = toPx(v, params[v.node.params[0]]), py = toPy(v, params[v.node.params[1]]);
    g.strokeStyle = '#000'; g.lineWidth = 3;
    g.beginPath(); g.moveTo(px - 9, py); g.lineTo(px + 9, py); g.moveTo(px, py - 9); g.lineTo(px, py + 9); g.stroke();
    g.strokeStyle = '#fff'; g.lineWidth = 1; g.stroke();
  } else {
    const W = v.cv.width;
    const ptr = api.curve(v.n, W, v.x0, v.x1);
    if (ptr) {
      const nc = ch.length;
      const w = new Int32Array(core.HEAP32.buffer, ptr, W * nc).slice();
      for (let c = 0; c < nc; c++) {
        g.strokeStyle = colour(c); g.lineWidth = 2; g.beginPath();
        for (let i = 0; i < W; i++) { const y = PLOT_TOP + PLOT_H - w[i * nc + c] / ONE * PLOT_H; i ? g.lineTo(i, y) : g.moveTo(i, y); }
        g.stroke();
      }
    }
    g.lineWidth = 1;
    ch.forEach((c, i) => {
      const x = toPx(v, c.threshold_raw);
      g.fillStyle = colour(i);
      g.beginPath(); g.moveTo(x, PLOT_TOP + PLOT_H + 4); g.lineTo(x - 6, PLOT_TOP + PLOT_H + 14); g.lineTo(x + 6, PLOT_TOP + PLOT_H + 14); g.fill();
      g.fillStyle = '#202020'; g.fillText(`${c.name} ${fx(c.threshold_raw)}`, Math.min(x - 6, W - 70), PLOT_TOP + PLOT_H + 26 + (i % 2) * 12);
    });
    const px = toPx(v, params[v.node.params[0]]);
    g.strokeStyle = '#000'; g.lineWidth = 2; g.beginPath(); g.moveTo(px, PLOT_TOP); g.lineTo(px, PLOT_TOP + PLOT_H); g.stroke();
  }
}

function attachDrag(v) {
  let drag = null;
  const pos = (e) => { const r = v.cv.getBoundingClientRect(); return [(e.clientX - r.left) * v.cv.width / r.width, (e.clientY - r.top) * v.cv.height / r.height]; };
  const snap = (raw) => { const t = (Math.round(raw / ONE * 100) / 100).toFixed(2).replace(/\.?0+$/, ''); return [fxParse(t), t === '-0' ? '0' : t]; };
  v.cv.addEventListener('pointerdown', (e) => {
    const [x, y] = pos(e);
    drag = { kind: 'point' };
    v.node.children.forEach((c, i) => {
      const cx = v.dim === 2 ? toPx(v, c.position_raw[0]) : toPx(v, c.threshold_raw);
      const cy = v.dim === 2 ? toPy(v, c.position_raw[1]) : PLOT_TOP + PLOT_H + 9;
      if (Math.hypot(cx - x, cy - y) <= 8) drag = { kind: 'sample', child: i };
    });
    v.cv.setPointerCapture(e.pointerId);
    move(e);
  });
  const move = (e) => {
    if (!drag || !layout) return; // (a config that does not load has no point to move; the message says why)
    const [x, y] = pos(e);
    const base = `/nodes/${v.node.name}/children/${drag.child}`;
    if (drag.kind === 'point') {
      setParamRaw(v.node.params[0], Math.round(fromPx(v, x)));
      if (v.dim === 2) setParamRaw(v.node.params[1], Math.round(fromPy(v, y)));
      refreshAll();
    } else if (v.dim === 2) {
      const [, tx] = snap(fromPx(v, x)), [, ty] = snap(fromPy(v, y));
      edit(base + '/position', `[${tx}, ${ty}]`);
    } else {
      const [, t] = snap(fromPx(v, x));
      edit(base + '/threshold', t);
    }
  };
  v.cv.addEventListener('pointermove', move);
  v.cv.addEventListener('pointerup', () => { drag = null; });
}

// ---------------------------------------------------------------- weights
function refreshWeights() {
  const w = JSON.parse(api.weights());
  const box = $('weights');
  box.textContent = '';
  for (const node of layout.nodes) {
    const type = nodeFields(node.name).type || node.type;
    if (type === 'Switch') continue;
    const t = document.createElement('table');
    t.dataset.node = node.name;
    t.innerHTML = `<tr><th colspan="3">${node.name}</th></tr>`;
    (w.nodes[node.name] || []).forEach((val, c) => {
      const tr = document.createElement('tr');
      tr.innerHTML = `<td><span class="swatch" style="background:${colour(c)}"></span>${node.children[c].name}</td>` +
        `<td class="num weight" data-node="${node.name}" data-child="${node.children[c].name}">${val}</td>` +
        `<td><span class="bar" style="width:${Math.round(val * 120)}px"></span></td>`;
      t.append(tr);
    });
    box.append(t);
  }
  const t = document.createElement('table');
  t.innerHTML = '<tr><th colspan="2">leaves (flattened from the root)</th></tr>';
  for (const [m, val] of Object.entries(w.leaves)) t.insertAdjacentHTML('beforeend', `<tr><td>${m}</td><td class="num leaf" data-motion="${m}">${val}</td></tr>`);
  box.append(t);
  markFindings();
}

function refreshAll() { refreshWeights(); drawSpaces(); drawResponses(); }

// ---------------------------------------------------------------- response curves (AnimationCurve keys)
// n samples over [x0, x1] (raw) of a scalar parameter's curve alone and of its shape (dead zone + curve),
// computed by the core (bs_response); null without a curve
function response(i, n, x0, x1) {
  const ptr = api.response(i, n, x0 | 0, x1 | 0);
  if (!ptr) return null;
  const all = new Int32Array(core.HEAP32.buffer, ptr, 2 * n).slice();
  return { curve: all.subarray(0, n), shape: all.subarray(n) };
}
// a canvas per scalar parameter with a response curve: the curve (grey, its keys as dots), the shape the
// instance applies before smoothing (the dead zone too; in colour), and the target with its shaped value
function drawResponses() {
  const box = $('responses');
  if (!layout) { box.textContent = ''; return; }
  const want = layout.parameters.map((p, i) => (response(i, 2, 0, 0) ? i : -1)).filter((i) => i >= 0);
  if (box.dataset.sig !== want.join(',')) {
    box.textContent = '';
    for (const i of want) {
      const d = document.createElement('div');
      d.className = 'response';
      d.innerHTML = `<div><b>${layout.parameters[i].name}</b> response curve <small>target <code id="response-target-${layout.parameters[i].name}"></code>` +
        ` → shaped <code id="response-${layout.parameters[i].name}"></code></small></div><canvas width="300" height="150"></canvas>`;
      box.append(d);
    }
    box.dataset.sig = want.join(',');
  }
  want.forEach((i, k) => {
    const name = layout.parameters[i].name;
    const f = (fields.parameters || {})[name] || {};
    const keys = (Array.isArray(f.curve) ? f.curve : f.curve && f.curve.keys) || [];
    const kt = keys.map((kk) => Number(kk.time)), kv = keys.map((kk) => Number(kk.value));
    const range = Number(f.dead_zone_range) || 1;
    const xlo = Math.min(0, ...kt), xhi = Math.max(range, ...kt, params[i] / ONE);
    const n = 200, r = response(i, n, xlo * ONE, xhi * ONE);
    const cv = box.children[k].querySelector('canvas'), g = cv.getContext('2d');
    const ys = [...r.curve, ...r.shape].map((v) => v / ONE).concat(kv, [0]);
    const ylo = Math.min(...ys), yhi = Math.max(...ys) > ylo ? Math.max(...ys) : ylo + 1;
    const X = (x) => 8 + (x - xlo) / (xhi - xlo) * (cv.width - 16), Y = (y) => cv.height - 14 - (y - ylo) / (yhi - ylo) * (cv.height - 24);
    g.fillStyle = '#f6f6f4'; g.fillRect(0, 0, cv.width, cv.height);
    g.strokeStyle = '#ccc'; g.lineWidth = 1; g.beginPath(); g.moveTo(X(xlo), Y(0)); g.lineTo(X(xhi), Y(0)); g.moveTo(X(0), Y(ylo)); g.lineTo(X(0), Y(yhi)); g.stroke();
    for (const [arr, style, w] of [[r.curve, '#999', 1], [r.shape, colour(2), 2]]) {
      g.strokeStyle = style; g.lineWidth = w; g.beginPath();
      arr.forEach((v, j) => { const x = X(xlo + (xhi - xlo) * j / (n - 1)), y = Y(v / ONE); j ? g.lineTo(x, y) : g.moveTo(x, y); });
      g.stroke();
    }
    g.fillStyle = '#555';
    kt.forEach((x, j) => { g.beginPath(); g.arc(X(x), Y(kv[j]), 3, 0, 2 * Math.PI); g.fill(); });
    const target = params[i], shaped = response(i, 2, target, target).shape[0];
    g.strokeStyle = '#000'; g.setLineDash([3, 3]); g.beginPath(); g.moveTo(X(target / ONE), Y(ylo)); g.lineTo(X(target / ONE), Y(shaped / ONE)); g.stroke(); g.setLineDash([]);
    g.fillStyle = '#000'; g.beginPath(); g.arc(X(target / ONE), Y(shaped / ONE), 4, 0, 2 * Math.PI); g.fill();
    g.font = '10px system-ui'; g.fillText(`${xlo} .. ${+xhi.toFixed(3)}`, 8, cv.height - 2);
    $('response-target-' + name).textContent = fx(target);
    $('response-' + name).textContent = fx(shaped);
  });
}

// ---------------------------------------------------------------- settings (filters, time scales)
function buildSettings() {
  const t = $('settings');
  t.textContent = '';
  const row = (label, ptr, value, placeholder) => {
    const tr = document.createElement('tr');
    const inp = document.createElement('input');
    inp.size = 8; inp.value = value === undefined ? '' : String(value); inp.placeholder = placeholder; inp.dataset.ptr = ptr;
    inp.addEventListener('change', () => {
      const raw = fxParse(inp.value);
      inp.classList.toggle('bad', raw === null);
      if (raw !== null) edit(ptr, inp.value.trim());
    });
    tr.innerHTML = `<td>${label}</td><td></td>`;
    tr.children[1].append(inp);
    t.append(tr);
  };
  const fp = fields.parameters || {};
  for (const p of layout.parameters) {
    const f = fp[p.name] || {};
    const rawText = (k) => { const s = spans(current.text).get(`/parameters/${p.name}/${k}`); return s ? current.text.slice(s.start, s.end) : undefined; };
    if (layout.parameters.some((q) => (fp[q.name] || {}).pair === p.name)) continue; // the y of a pair has no filter
    row(`${p.name} dead_zone`, `/parameters/${p.name}/dead_zone`, rawText('dead_zone'), '0');
    row(`${p.name} dead_zone_range`, `/parameters/${p.name}/dead_zone_range`, rawText('dead_zone_range'), '1');
    row(`${p.name} smooth_time`, `/parameters/${p.name}/smooth_time`, rawText('smooth_time'), '0');
    if (f.smooth_time !== undefined) row(`${p.name} max_speed`, `/parameters/${p.name}/max_speed`, rawText('max_speed'), '0');
    // a response curve's keys: time, value and tangents as written (an array of keys or {"keys": [...]})
    const keys = Array.isArray(f.curve) ? f.curve : f.curve && Array.isArray(f.curve.keys) ? f.curve.keys : null;
    const base = Array.isArray(f.curve) ? `/parameters/${p.name}/curve` : `/parameters/${p.name}/curve/keys`;
    (keys || []).forEach((k, i) => {
      for (const field of ['time', 'value', 'in_tangent', 'out_tangent']) {
        if (k[field] === undefined && field !== 'time' && field !== 'value') continue;
        row(`${p.name} curve key ${i} ${field}`, `${base}/${i}/${field}`, rawText(`${base.slice(`/parameters/${p.name}/`.length)}/${i}/${field}`), '0');
      }
    });
  }
  for (const node of layout.nodes) {
    const nf = nodeFields(node.name);
    const text = (ptr) => { const sp = spans(current.text).get(ptr); return sp ? current.text.slice(sp.start, sp.end) : undefined; };
    (nf.children || []).forEach((c, i) => {
      const base = `/nodes/${node.name}/children/${i}`;
      if (c.threshold !== undefined) row(`${node.name} · ${c.motion} threshold`, base + '/threshold', text(base + '/threshold'), '');
      if (Array.isArray(c.position)) {
        const tr = document.createElement('tr');
        const inp = document.createElement('input');
        inp.size = 12; inp.dataset.ptr = base + '/position';
        inp.value = (text(base + '/position') || '').replace(/^\[\s*|\s*\]$/g, '');
        inp.addEventListener('change', () => {
          const parts = inp.value.split(',').map((x) => x.trim());
          const ok = parts.length === 2 && parts.every((x) => fxParse(x) !== null);
          inp.classList.toggle('bad', !ok);
          if (ok) edit(base + '/position', `[${parts[0]}, ${parts[1]}]`);
        });
        tr.innerHTML = `<td>${node.name} · ${c.motion} position</td><td></td>`;
        tr.children[1].append(inp);
        t.append(tr);
      }
    });
    (nf.children || []).forEach((c, i) => {
      const s = spans(current.text).get(`/nodes/${node.name}/children/${i}/time_scale`);
      row(`${node.name} · ${c.motion} time_scale`, `/nodes/${node.name}/children/${i}/time_scale`, s ? current.text.slice(s.start, s.end) : undefined, '1');
    });
  }
}

// ---------------------------------------------------------------- skeleton (three.js)
let three = null;
function initThree() { three = makeScene($('skeleton')); }
function makeScene(box) {
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setSize(box.clientWidth, box.clientHeight);
  box.append(renderer.domElement);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x1d232a);
  const camera = new THREE.PerspectiveCamera(40, box.clientWidth / box.clientHeight, 0.01, 100);
  camera.position.set(2.2, 1.6, 3.2);
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.set(0, 0.9, 0);
  controls.update();
  scene.add(new THREE.GridHelper(6, 12, 0x556070, 0x384048));
  return { renderer, scene, camera, controls, bones: null, joints: null };
}
function buildSkeleton() {
  if (!three) initThree();
  for (const k of ['bones', 'joints']) if (three[k]) { three.scene.remove(three[k]); three[k].geometry.dispose(); }
  const nj = layout.joints.length;
  if (!nj) return;
  const jg = new THREE.BufferGeometry();
  jg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(nj * 3), 3));
  three.joints = new THREE.Points(jg, new THREE.PointsMaterial({ color: 0xffe119, size: 0.05 }));
  const bg = new THREE.BufferGeometry();
  bg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(nj * 6), 3));
  three.bones = new THREE.LineSegments(bg, new THREE.LineBasicMaterial({ color: 0xe6e6e0 }));
  three.scene.add(three.joints, three.bones);
}
function drawSkeleton(model) {
  if (!three || !three.joints || !model) return;
  const jp = three.joints.geometry.attributes.position, bp = three.bones.geometry.attributes.position;
  layout.joints.forEach((j, i) => {
    jp.setXYZ(i, model[i * 3], model[i * 3 + 1], model[i * 3 + 2]);
    const p = j.parent >= 0 ? j.parent : i;
    bp.setXYZ(i * 2, model[p * 3], model[p * 3 + 1], model[p * 3 + 2]);
    bp.setXYZ(i * 2 + 1, model[i * 3], model[i * 3 + 1], model[i * 3 + 2]);
  });
  jp.needsUpdate = true; bp.needsUpdate = true;
}

function refreshState() {
  const s = JSON.parse(api.state());
  if (s.error) return;
  $('tick').textContent = s.tick;
  shownTick = s.tick;
  $('state-checksum').textContent = s.state_checksum;
  $('pose-checksum').textContent = s.pose_checksum || '-';
  for (const [k, v] of Object.entries(s.params)) { const td = $('filtered-' + k); if (td) td.textContent = v; }
  if (s.script && s.targets_raw.some((v, i) => v !== params[i])) { // the script moved the point
    s.targets_raw.forEach((v, i) => setParamRaw(i, v));
    refreshAll();
  }
  drawSkeleton(s.model);
}

function frame(t) {
  if (layout && playing && activeView === 'tune') {
    tickDebt += Math.min(0.25, (t - (lastFrame || t)) / 1000) * layout.tick_rate;
    const n = Math.floor(tickDebt);
    if (n > 0) { tickDebt -= n; tickInstance(n); refreshState(); }
  }
  lastFrame = t;
  if (activeView === 'replay' && rp) replayFrame(t);
  const sc = activeView === 'replay' ? (rp && rp.three) : activeView === 'desync' ? (ds && ds.three) : three;
  if (sc) { sc.controls.update(); sc.renderer.render(sc.scene, sc.camera); }
  requestAnimationFrame(frame);
}

// ---------------------------------------------------------------- replay view
let rp = null; // the open replay: bs_replay_open's answer + view state

async function openReplay(f) {
  showView('replay');
  showMessage('');
  setStatus(`${f.name}: reading…`);
  const t0 = performance.now();
  if (!f.bytes) {
    const b = await fetch('api/file?id=' + f.id);
    if (!b.ok) { showMessage(`${f.name}: HTTP ${b.status}`); return; }
    f.bytes = new Uint8Array(await b.arrayBuffer());
  }
  const path = writeFs(f.name, f.bytes);
  const fail = (msg) => { showMessage(`${f.name}: ${msg}`); setStatus(`${f.name}: not loaded`); document.body.dataset.ready = '1'; };
  const head = JSON.parse(api.replayOpen(path));
  if (head.error) { fail(head.error); return; }
  // re-simulate in slices, yielding to the page between them: a long replay shows its progress
  for (;;) {
    const st = JSON.parse(api.replayStep(2000));
    if (st.error) { fail(st.error); return; }
    setStatus(`${f.name}: re-simulating… ${st.frames} frames (${Math.round(100 * st.bytes_read / f.bytes.length)} %)`);
    if (st.done) break;
    await new Promise((r) => setTimeout(r, 0));
  }
  const res = JSON.parse(api.replayInfo());
  if (res.error) { fail(res.error); return; }
  if (!rp || !rp.three) rp = { three: makeScene($('replay-skeleton')) };
  for (const o of rp.objects || []) { rp.three.scene.remove(o); o.geometry.dispose(); }
  Object.assign(rp, { file: f, info: res, index: 0, character: 0, playing: false, debt: 0, objects: [] });
  rp.recorded = new Map(res.recorded.map((c) => [c.tick, c]));
  const W = res.motions_max + res.params_max + res.switches_max;
  rp.tracks = new Int32Array(core.HEAP32.buffer, api.replayTracks(), res.frames * res.characters.length * W).slice();
  const sel = $('replay-character');
  sel.textContent = '';
  res.characters.forEach((c, k) => { const o = document.createElement('option'); o.value = k; o.textContent = `${k}: ${c.name}`; sel.append(o); });
  // one skeleton per character, side by side (display only)
  res.characters.forEach((c) => {
    const n = c.joints.length;
    const jg = new THREE.BufferGeometry(); jg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(n * 3), 3));
    const bg = new THREE.BufferGeometry(); bg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(n * 6), 3));
    const pts = new THREE.Points(jg, new THREE.PointsMaterial({ color: 0xffe119, size: 0.05 }));
    const lines = new THREE.LineSegments(bg, new THREE.LineBasicMaterial({ color: 0xe6e6e0 }));
    rp.three.scene.add(pts, lines);
    rp.objects.push(pts, lines);
  });
  const span = (res.characters.length - 1) * 1.2;
  rp.three.camera.position.set(span / 2, 2.2, 3 + span * 0.9);
  rp.three.controls.target.set(span / 2, 0.9, 0);
  $('replay-scrub').max = Math.max(0, res.frames - 1);
  $('replay-info').textContent = `${f.name}: ${res.frames} frames from tick ${res.first_tick}, ${res.tick_rate} Hz, ` +
    `${res.characters.length} characters, ${res.recorded.length} recorded checksums, ${res.desyncs.length} desyncs; config: ${res.config_used}` +
    (res.stop ? `; reading stopped: ${res.stop}` : '') + `; re-simulated in ${Math.round(performance.now() - t0)} ms`;
  drawTracks();
  seekFromHash();
  setStatus(`${f.name}: replay`);
  document.body.dataset.ready = '1';
}

function seekFromHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.has('character')) {
    const k = Number(h.get('character'));
    if (k >= 0 && k < rp.info.characters.length) { rp.character = k; $('replay-character').value = k; drawTracks(); }
  }
  let index = 0;
  if (h.has('tick')) index = Math.min(Math.max(0, Number(h.get('tick')) - rp.info.first_tick), rp.info.frames - 1);
  replayShow(index);
}

function replayShow(index) {
  if (!rp || !(index >= 0)) return;
  const s = JSON.parse(api.replaySeek(index));
  if (s.error) { showMessage(`${rp.file.name}: tick ${index}: ${s.error}`); return; }
  rp.index = index;
  $('replay-scrub').value = index;
  $('replay-tick').textContent = s.tick;
  $('replay-checksum').textContent = s.blend;
  $('replay-pose').textContent = s.pose;
  const rec = rp.recorded.get(s.tick);
  $('replay-recorded').textContent = rec ? `${rec.blend} ${rec.blend === s.blend ? '(matches)' : '(DIFFERS)'}` : '(none at this tick)';
  rp.models = s.characters.map((c) => c.model);
  $('replay-alpha').textContent = '0';
  drawReplaySkeletons(rp.models);
  drawCursor();
}

// every character's joints: models[k] = [x, y, z, ...] (the tick's pose, or a presentation pose)
function drawReplaySkeletons(models) {
  models.forEach((m, k) => {
    if (!m) return;
    const joints = rp.info.characters[k].joints;
    const jp = rp.objects[k * 2].geometry.attributes.position, bp = rp.objects[k * 2 + 1].geometry.attributes.position;
    const dx = k * 1.2;
    joints.forEach((j, i) => {
      jp.setXYZ(i, m[i * 3] + dx, m[i * 3 + 1], m[i * 3 + 2]);
      const p = j.parent >= 0 ? j.parent : i;
      bp.setXYZ(i * 2, m[p * 3] + dx, m[p * 3 + 1], m[p * 3 + 2]);
      bp.setXYZ(i * 2 + 1, m[i * 3] + dx, m[i * 3 + 1], m[i * 3 + 2]);
    });
    jp.needsUpdate = true; bp.needsUpdate = true;
    rp.objects[k * 2].material.color.set(k === rp.character ? 0x42d4f4 : 0xffe119);
  });
}

// the presentation pose of every character at the shown tick + alpha (alpha: Q16.16 raw), split per character
function presentModels(alphaRaw) {
  const ptr = api.replayPresent(alphaRaw);
  if (!ptr) return null;
  const total = rp.info.characters.reduce((n, c) => n + c.joints.length, 0);
  const all = new Float32Array(core.HEAPF32.buffer, ptr, total * 3);
  let at = 0;
  return rp.info.characters.map((c) => { const m = Array.from(all.subarray(at, at + c.joints.length * 3)); at += c.joints.length * 3; return m; });
}
// for the tests: the largest difference between the tick's pose and the presentation pose at alpha 0 (must be 0)
window.studioPresentCheck = () => {
  const p = presentModels(0);
  let worst = 0;
  rp.models.forEach((m, k) => m && m.forEach((v, i) => { worst = Math.max(worst, Math.abs(Math.fround(v) - p[k][i])); }));
  return worst;
};

function drawTracks() {
  const info = rp.info, W = info.motions_max + info.params_max + info.switches_max, n = info.frames, ch = info.characters[rp.character];
  const at = (i, k) => rp.tracks[(i * info.characters.length + rp.character) * W + k] / ONE;
  for (const [id, keys, range] of [['replay-tracks', ch.motions.map((_, m) => m), null],
    ['replay-params', ch.parameters.map((_, p) => info.motions_max + p), 'auto']]) {
    const cv = $(id), g = cv.getContext('2d');
    const off = new OffscreenCanvas(cv.width, cv.height), og = off.getContext('2d');
    og.fillStyle = '#fff'; og.fillRect(0, 0, cv.width, cv.height);
    let lo = 0, hi = 1;
    if (range) { lo = Infinity; hi = -Infinity; for (let i = 0; i < n; i++) for (const k of keys) { lo = Math.min(lo, at(i, k)); hi = Math.max(hi, at(i, k)); } if (hi <= lo) hi = lo + 1; }
    const H = cv.height - 14;
    keys.forEach((k, c) => {
      og.strokeStyle = colour(c); og.lineWidth = 1.5; og.beginPath();
      for (let i = 0; i < n; i++) { const x = i / Math.max(1, n - 1) * cv.width, y = 4 + (1 - (at(i, k) - lo) / (hi - lo)) * (H - 8); i ? og.lineTo(x, y) : og.moveTo(x, y); }
      og.stroke();
    });
    og.fillStyle = '#888';
    for (const c of info.recorded) { const x = (c.tick - info.first_tick) / Math.max(1, n - 1) * cv.width; og.fillRect(x - 0.5, H, 1, 6); }
    og.fillStyle = '#c00';
    for (const d of info.desyncs) { const x = (d.tick - info.first_tick) / Math.max(1, n - 1) * cv.width; og.fillRect(x - 1, 0, 2, H); }
    if (range) { og.fillStyle = '#333'; og.font = '10px system-ui'; og.fillText(`${lo.toFixed(2)} .. ${hi.toFixed(2)}`, 4, cv.height - 2); }
    rp[id] = off;
  }
  { // switch states: one band per switch, each state in its child's colour, its name where it starts
    const cv = $('replay-switches');
    const off = new OffscreenCanvas(cv.width, cv.height), og = off.getContext('2d');
    og.fillStyle = '#fff'; og.fillRect(0, 0, cv.width, cv.height);
    og.font = '10px system-ui';
    const rows = Math.max(1, ch.switches.length), h = cv.height / rows;
    ch.switches.forEach((sw, w) => {
      let prev = -1;
      for (let i = 0; i < n; i++) {
        const state = rp.tracks[(i * info.characters.length + rp.character) * W + info.motions_max + info.params_max + w] - 1;
        const x0 = i / n * cv.width, x1 = (i + 1) / n * cv.width;
        og.fillStyle = state >= 0 ? colour(state) : '#ddd';
        og.globalAlpha = 0.55; og.fillRect(x0, w * h + 1, x1 - x0 + 0.5, h - 2); og.globalAlpha = 1;
        if (state !== prev && state >= 0) { og.fillStyle = '#111'; og.fillText(`${sw.node}: ${sw.states[state]}`, x0 + 2, w * h + h / 2 + 4); }
        prev = state;
      }
    });
    if (!ch.switches.length) { og.fillStyle = '#555'; og.fillText('this character\'s graph has no switch', 4, 24); }
    rp['replay-switches'] = off;
  }
  { // events and ranges (docs/actions.md): a row per action of the chosen character's graph; an event is a
    // mark at each tick it fired in (taller when it fired more than once), a range a bar over the ticks it
    // was open after, with its enter and exit ticks marked
    const cv = $('replay-events');
    const marks = timelineMarks(rp.character);
    const rows = Math.max(1, ch.actions.length), rh = 16;
    cv.height = rows * rh + 4;
    const off = new OffscreenCanvas(cv.width, cv.height), og = off.getContext('2d');
    og.fillStyle = '#fff'; og.fillRect(0, 0, cv.width, cv.height);
    og.font = '10px system-ui';
    const X = (i) => i / n * cv.width, dx = Math.max(1.5, cv.width / n);
    ch.actions.forEach((a, r) => {
      const y = r * rh + 2;
      og.fillStyle = '#f4f4f4'; og.fillRect(0, y, cv.width, rh - 2);
      const m = marks[r];
      og.fillStyle = colour(r);
      og.globalAlpha = 0.45;
      for (const i of m.open) og.fillRect(X(i), y + 3, dx + 0.5, rh - 8);
      og.globalAlpha = 1;
      for (const i of m.fired) og.fillRect(X(i), y, dx, rh - 2);
      og.fillStyle = '#111';
      for (const i of m.entered) og.fillRect(X(i), y, 1.5, rh - 2);
      for (const i of m.exited) og.fillRect(X(i) + dx - 1.5, y, 1.5, rh - 2);
      // the row's name at its right end, on a backing that keeps it readable over the marks
      const label = `${a.name} (${a.kind}, ${a.motion}): ${a.kind === 'event' ? m.fired.length + ' ticks' : m.entered.length + ' opened'}`;
      const lw = og.measureText(label).width + 8;
      og.fillStyle = 'rgba(255,255,255,0.85)'; og.fillRect(cv.width - lw, y, lw, rh - 2);
      og.fillStyle = '#111'; og.fillText(label, cv.width - lw + 4, y + rh - 5);
    });
    if (!ch.actions.length) { og.fillStyle = '#555'; og.fillText('this character\'s graph has no events or ranges', 4, 13); }
    rp['replay-events'] = off;
  }
  const legend = $('replay-legend');
  legend.innerHTML = ch.motions.map((m, c) => `<span><span class="swatch" style="background:${colour(c)}"></span>${m}</span>`).join('') +
    ' | ' + ch.parameters.map((p, c) => `<span><span class="swatch" style="background:${colour(c)}"></span>${p}</span>`).join('');
  drawCursor();
}

// per action of character k: the frame indices it fired in (events), was entered, left, open after (ranges)
function timelineMarks(k) {
  const ch = rp.info.characters[k];
  const marks = ch.actions.map(() => ({ fired: [], entered: [], exited: [], open: [] }));
  for (const [i, c, a, kind, count, exits, active] of rp.info.actions) {
    if (c !== k || !marks[a]) continue;
    if (kind === 0 && count) marks[a].fired.push(i);
    if (kind === 1) { if (count) marks[a].entered.push(i); if (exits) marks[a].exited.push(i); if (active) marks[a].open.push(i); }
  }
  return marks;
}
// for the tests: what the timeline shows for character k, by tick (the switch band's states, the marks)
window.studioTimeline = (k) => {
  const info = rp.info, W = info.motions_max + info.params_max + info.switches_max, ch = info.characters[k];
  const tick = (i) => info.first_tick + i;
  return {
    switches: ch.switches.map((sw, w) => Array.from({ length: info.frames },
      (_, i) => rp.tracks[(i * info.characters.length + k) * W + info.motions_max + info.params_max + w] - 1)),
    actions: timelineMarks(k).map((m, a) => ({ name: ch.actions[a].name, kind: ch.actions[a].kind,
      fired: m.fired.map(tick), entered: m.entered.map(tick), exited: m.exited.map(tick), open: m.open.map(tick) })),
  };
};
// the shown tick's reports of the chosen character, as text
function firedText() {
  const ch = rp.info.characters[rp.character];
  const here = rp.info.actions.filter(([i, c]) => i === rp.index && c === rp.character);
  return here.length ? here.map(([, , a, kind, count, exits, active]) => {
    const name = ch.actions[a] ? ch.actions[a].name : `#${a}`;
    if (kind === 0) return count > 1 ? `${name} ×${count}` : name;
    return `${name} ${[count ? 'entered' : '', exits ? 'left' : '', active ? 'open' : ''].filter(Boolean).join(', ')}`;
  }).join('; ') : 'nothing';
}

function drawCursor() {
  if (rp && rp.info) {
    $('replay-fired').textContent = firedText();
    const sw = window.studioTimeline(rp.character).switches, ch = rp.info.characters[rp.character];
    $('replay-states').textContent = ch.switches.map((s, w) => `${s.node}: ${s.states[sw[w][rp.index]] ?? '-'}`).join(', ') || '-';
  }
  for (const id of ['replay-tracks', 'replay-switches', 'replay-events', 'replay-params']) {
    const cv = $(id), g = cv.getContext('2d');
    if (!rp[id]) continue;
    g.drawImage(rp[id], 0, 0);
    const x = rp.index / Math.max(1, rp.info.frames - 1) * cv.width;
    g.strokeStyle = '#000'; g.lineWidth = 1; g.beginPath(); g.moveTo(x, 0); g.lineTo(x, cv.height); g.stroke();
  }
}

function replayFrame(t) {
  if (!rp.playing) { rp.last = t; return; }
  rp.debt += Math.min(0.25, (t - (rp.last || t)) / 1000) * rp.info.tick_rate;
  rp.last = t;
  const k = Math.floor(rp.debt);
  if (k > 0) {
    rp.debt -= k;
    const next = rp.index + k;
    if (next >= rp.info.frames) { rp.playing = false; $('replay-play').textContent = 'play'; return; }
    replayShow(next);
  }
  // between ticks: the presentation pose at the display's time (bsync_present_match), not a held tick pose
  const alpha = Math.floor(rp.debt * 65536);
  const models = presentModels(alpha);
  if (models) { drawReplaySkeletons(models); $('replay-alpha').textContent = (alpha / 65536).toFixed(3); }
}
['replay-tracks', 'replay-switches', 'replay-events', 'replay-params'].forEach((id) => {
  const cv = $(id);
  const scrub = (e) => { if (!rp || !(e.buttons & 1)) return; const r = cv.getBoundingClientRect(); rp.playing = false; $('replay-play').textContent = 'play'; replayShow(Math.round((e.clientX - r.left) / r.width * (rp.info.frames - 1))); };
  cv.addEventListener('pointerdown', scrub);
  cv.addEventListener('pointermove', scrub);
});

// ---------------------------------------------------------------- desync view
let ds = null;
const OPERATIONS = ['the client\'s state does not load', 'a parameter\'s target (other inputs)', 'a parameter\'s filter state',
  'a leaf weight', 'a node\'s cycle length', 'a node\'s phase (the clock advance)', 'switch stacks, inertialization or a clock carry'];

async function openDesync(f) {
  showView('desync');
  showMessage('');
  const dir = '/w/' + f.name.slice(0, f.name.lastIndexOf('/'));
  const match = files.find((x) => x.kind === 'match');
  const res = JSON.parse(api.desyncOpen(dir, match ? '/w/' + match.name : ''));
  if (res.error) { showMessage(`${f.name}: ${res.error}`); setStatus(`${f.name}: not loaded`); document.body.dataset.ready = '1'; return; }
  if (!ds) ds = { three: makeScene($('desync-skeleton')), objects: [] };
  ds.info = res;
  ds.dir = dir; ds.match = match ? '/w/' + match.name : '';
  window.studioDesync = res; // what the view draws (the tests compare the highlighted joints with the positions)
  const fd = res.first_divergence;
  const pose = res.pose_joints; // a pose desync: the character and joints the server named (null: none)
  const focus = fd.located ? fd.character : pose ? pose.character : 0;
  drawDesyncState(res.characters, res.tick);
  ds.shown = res.tick;
  $('desync-shown').textContent = `${res.tick} (the reported tick: server.bsms, client.bsms)`;
  ds.three.camera.position.set(focus * 1.2, 1.3, 3.6);
  ds.three.controls.target.set(focus * 1.2, 0.85, 0);
  const ch = res.characters[focus];
  $('desync-tick').textContent = res.tick;
  $('desync-first').textContent = fd.located ? fd.tick : pose ? pose.tick : (fd.unavailable || 'not located by the trail');
  $('desync-character').textContent = fd.located ? `${fd.character} (${ch.name})` : pose ? `${pose.character} (${pose.character_name})` : '-';
  $('desync-operation').textContent = fd.located ? OPERATIONS[fd.operation] || String(fd.operation) :
    pose ? 'the pose alone (the states agree): its pose checksums differ' : '-';
  const list = $('desync-list');
  list.textContent = '';
  for (const d of res.differences) { const li = document.createElement('li'); li.textContent = d; list.append(li); }
  for (const d of fd.lines || []) { const li = document.createElement('li'); li.className = 'trace'; li.textContent = d; list.append(li); }
  ds.current = 0;
  showDifference(0);
  drawDesyncTimeline();
  $('desync-info').textContent = `${f.name}: slot ${res.slot}, match config ${res.config}` +
    (fd.located ? `; the trail re-simulated from tick ${fd.previous_tick}${fd.reproduced ? ' reproduces the server\'s state' : ' does NOT reproduce the server\'s state'}` : '');
  setStatus(`${f.name}: desync at tick ${res.tick}`);
  document.body.dataset.ready = '1';
}

// A tick between the agreeing and the reported one (bs_desync_at: the server's state re-simulated
// from server-previous.bsms, the client's from its trail): drawn as the reported tick is
function desyncAt(tick) {
  const res = JSON.parse(api.desyncAt(ds.dir, ds.match, tick));
  if (res.error) { $('desync-shown').textContent = `${tick}: ${res.error}`; return res; }
  drawDesyncState(res.characters, tick);
  ds.shown = tick;
  const differ = res.characters.filter((c) => c.blend_differs).map((c) => c.name);
  $('desync-shown').textContent = `${tick} (server re-simulated${res.server_is_bundle ? ' = server.bsms' : ''}, client from ${res.client_from}): ` +
    (differ.length ? `${differ.join(', ')} differ${differ.length === 1 ? 's' : ''}` : 'the states agree');
  drawDesyncTimeline();
  return res;
}
window.studioDesyncAt = (tick) => desyncAt(tick);

// both states of every character, overlaid (server white/yellow, client orange), side by side; in red
// and listed: at the reported tick of a bundle that names joints (a pose desync), exactly those; else
// the joints whose pose checksums, computed from the two states, differ
function drawDesyncState(characters, tick) {
  const pose = ds.info.pose_joints;
  const named = pose && tick === ds.info.tick && pose.joints.length ? pose : null;
  const lit = characters.map((c, k) => (named ? (k === named.character ? named.joints.map((j) => j.index) : []) : c.differing_joints));
  window.studioDesyncHighlighted = lit.flatMap((js, k) => js.map((j) => [k, j])); // what is drawn red
  for (const o of ds.objects) { ds.three.scene.remove(o); o.geometry.dispose(); }
  ds.objects = [];
  characters.forEach((c, k) => {
    const dx = k * 1.2;
    for (const [side, bone, joint] of [['server', 0xe6e6e0, 0xffe119], ['client', 0xf58231, 0xf58231]]) {
      const m = c[side];
      if (!m) continue;
      const n = c.joints.length;
      const bp = new Float32Array(n * 6);
      c.joints.forEach((j, i) => { const p = j.parent >= 0 ? j.parent : i; bp.set([m[p * 3] + dx, m[p * 3 + 1], m[p * 3 + 2], m[i * 3] + dx, m[i * 3 + 1], m[i * 3 + 2]], i * 6); });
      const bg = new THREE.BufferGeometry(); bg.setAttribute('position', new THREE.BufferAttribute(bp, 3));
      const jp = new Float32Array(m.map((v, i) => (i % 3 === 0 ? v + dx : v)));
      const jg = new THREE.BufferGeometry(); jg.setAttribute('position', new THREE.BufferAttribute(jp, 3));
      ds.objects.push(new THREE.LineSegments(bg, new THREE.LineBasicMaterial({ color: bone })), new THREE.Points(jg, new THREE.PointsMaterial({ color: joint, size: 0.04 })));
    }
    if (lit[k].length && c.server) {
      const hp = new Float32Array(lit[k].flatMap((j) => [c.server[j * 3] + dx, c.server[j * 3 + 1], c.server[j * 3 + 2]]));
      const hg = new THREE.BufferGeometry(); hg.setAttribute('position', new THREE.BufferAttribute(hp, 3));
      ds.objects.push(new THREE.Points(hg, new THREE.PointsMaterial({ color: 0xff2020, size: named ? 0.16 : 0.11 })));
    }
  });
  ds.three.scene.add(...ds.objects);
  const diffJoints = characters.flatMap((c, k) => lit[k].map((j) => `${c.name}:${c.joints[j].name}`));
  const blend = characters.some((c) => c.blend_differs);
  $('desync-joints').textContent = named ?
    `${diffJoints.join(', ')}, named by the bundle: ${named.character_name}'s pose checksums of ${diffJoints.length === 1 ? 'this joint' : 'these joints'} differ (first at tick ${named.tick}` +
      `${named.differing > named.joints.length ? `; ${named.differing - named.joints.length} more not named` : ''})` :
    diffJoints.length ? diffJoints.join(', ') :
    pose && tick === ds.info.tick ? `none named: ${pose.character_name}'s pose checksums differ, but ` +
      (pose.compared ? `all ${pose.compared} of its joints' checksums agree` : 'no per-joint checksums were compared') :
    blend || blend === undefined ? 'none (the states differ in blend state only; the poses are equal)' : 'none (the states agree)';
  $('desync-joints').dataset.joints = diffJoints.join(',');
  $('desync-joints').dataset.source = named ? 'bundle' : 'states';
}

function showDifference(i) {
  const items = [...$('desync-list').children];
  if (!items.length) { $('desync-position').textContent = 'no differences'; return; }
  ds.current = (i + items.length) % items.length;
  items.forEach((li, k) => li.classList.toggle('current', k === ds.current));
  $('desync-position').textContent = `${ds.current + 1} of ${items.length}`;
  items[ds.current].scrollIntoView({ block: 'nearest' });
}

function drawDesyncTimeline() {
  const cv = $('desync-timeline'), g = cv.getContext('2d');
  const fd = ds.info.first_divergence, T = ds.info.tick;
  const t0 = fd.previous_tick >= 0 ? fd.previous_tick : Math.max(0, T - 30);
  const x = (t) => 20 + (t - t0) / Math.max(1, T - t0) * (cv.width - 40);
  g.fillStyle = '#fff'; g.fillRect(0, 0, cv.width, cv.height);
  g.strokeStyle = '#888'; g.beginPath(); g.moveTo(x(t0), 30); g.lineTo(x(T), 30); g.stroke();
  g.font = '11px system-ui'; g.fillStyle = '#333';
  for (let t = t0; t <= T; t++) { g.fillRect(x(t), 26, 1, 8); }
  const mark = (t, colour, label, y) => { g.fillStyle = colour; g.fillRect(x(t) - 2, 8, 4, 44); g.fillText(label, Math.min(x(t) + 5, cv.width - 180), y); };
  mark(t0, '#3cb44b', `agreeing: ${t0}`, 18);
  const pose = ds.info.pose_joints;
  if (fd.located) mark(fd.tick, '#e6194b', `first divergence: ${fd.tick}`, 48);
  else if (pose) mark(pose.tick, '#e6194b', `pose checksums differ: ${pose.tick}`, 48);
  mark(T, '#4363d8', `reported: ${T}`, 18);
  cv.dataset.first = fd.located ? fd.tick : pose ? pose.tick : '';
  if (ds.shown !== undefined) { g.strokeStyle = '#000'; g.lineWidth = 2; g.beginPath(); g.arc(x(ds.shown), 30, 6, 0, 2 * Math.PI); g.stroke(); g.lineWidth = 1; }
  ds.tickAt = (px) => Math.round(t0 + (px - 20) / (cv.width - 40) * Math.max(1, T - t0));
  ds.t0 = t0;
}

// ---------------------------------------------------------------- start
async function main() {
  try {
    await loadCore();
  } catch (e) { showMessage(e.message); setStatus('no core'); return; }
  $('replay-play').onclick = () => { if (rp) { rp.playing = !rp.playing; $('replay-play').textContent = rp.playing ? 'pause' : 'play'; } };
  $('replay-scrub').oninput = () => { if (rp) { rp.playing = false; $('replay-play').textContent = 'play'; replayShow(Number($('replay-scrub').value)); } };
  $('replay-character').onchange = () => { if (rp) { rp.character = Number($('replay-character').value); drawTracks(); replayShow(rp.index); } };
  $('desync-next').onclick = () => ds && showDifference(ds.current + 1);
  $('desync-timeline').onclick = (e) => {
    if (!ds || !ds.tickAt) return;
    const cv = $('desync-timeline'), r = cv.getBoundingClientRect();
    const tick = Math.min(ds.info.tick, Math.max(ds.t0, ds.tickAt((e.clientX - r.left) / r.width * cv.width)));
    desyncAt(tick);
  };
  $('desync-prev').onclick = () => ds && showDifference(ds.current - 1);
  $('play').onclick = () => { playing = !playing; $('play').textContent = playing ? 'pause' : 'play'; };
  $('reset').onclick = () => { api.reset(); tickDebt = 0; pointLog = []; shownTick = 0; refreshState(); };
  $('run').onclick = () => {
    const n = Number($('run-ticks').value);
    if (!(n >= 1)) return;
    playing = false; $('play').textContent = 'play';
    tickInstance(n); refreshState();
  };
  $('save').onclick = save;
  window.addEventListener('beforeunload', (e) => { if (dirty) e.preventDefault(); });
  try {
    await fetchFiles();
  } catch (e) { showMessage(`cannot read the files from the server: ${e.message}`); return; }
  for (const b of document.querySelectorAll('.tab')) {
    b.onclick = () => showView(b.dataset.view);
    b.hidden = !files.some((f) => f.kind === { tune: 'config', replay: 'replay', desync: 'bundle' }[b.dataset.view]);
  }
  const hash = new URLSearchParams(location.hash.slice(1));
  const want = hash.get('file');
  // #file=NAME opens that file; #tick=N&character=K the moment of the replay
  const pick = files.find((f) => (f.kind === 'config' || f.kind === 'replay' || f.kind === 'bundle') && f.name === want) ||
    // else the most specific file given: a bundle, a replay, a graph config
    files.find((f) => f.kind === 'bundle') || files.find((f) => f.kind === 'replay') || files.find((f) => f.kind === 'config');
  if (pick) $('file-select').value = pick.id;
  window.addEventListener('hashchange', () => { if (rp) seekFromHash(); });
  await openFile(pick);
  requestAnimationFrame(frame);
}
main();
