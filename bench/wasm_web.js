#!/usr/bin/env node
// What one change costs the web extension (editors/vscode/src/web/: every change lints the whole
// text with the C API's browser module, build/wasm/api-web), beside the native command.
//
//   node bench/wasm_web.js [--rounds N] [--native PATH]
//
// For texts of about 200 and 20 000 lines (bench/gen_torch.py FILE --lines N), alternating:
// asyncfix_linter_check + asyncfix_report_json in the browser module, run here by Node.js (V8,
// as in Chromium; the module's loader runs in Node too), and `asyncfix check --output-format json -`
// on the same text through a pipe (the native command, process start-up included). Medians of N
// rounds (default 5). Also the module's size, as built and gzipped, and its instantiation time.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const root = path.dirname(__dirname);
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(option('--rounds', '5'));
const native = option('--native', path.join(root, 'build', 'ci', 'cli', 'asyncfix'));
const dir = path.join(process.env.ASYNCFIX_WASM_DIR || path.join(root, 'build', 'wasm'), 'api-web');
const wasmFile = path.join(dir, 'asyncfix-api-web.wasm');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  if (!fs.existsSync(wasmFile)) throw new Error(`no ${wasmFile} (cmake --build --preset wasm --target asyncfix_api_web)`);
  const bytes = fs.readFileSync(wasmFile);
  const create = require(path.join(dir, 'asyncfix-api-web.js'));
  const start = process.hrtime.bigint();
  const m = await create({ wasmBinary: bytes });
  const instantiateMs = Number(process.hrtime.bigint() - start) / 1e6;
  const encoder = new TextEncoder();
  const put = (s) => {
    const b = encoder.encode(s);
    const p = m._malloc(b.length + 1);
    m.HEAPU8.set(b, p);
    m.HEAPU8[p + b.length] = 0;
    return [p, b.length];
  };
  const [options] = put('{}');
  const linter = m._asyncfix_linter_new(options);
  const [name] = put('bench.py');
  console.log(`module ${bytes.length} bytes (${zlib.gzipSync(bytes, { level: 9 }).length} gzipped), loader ` +
    `${fs.statSync(path.join(dir, 'asyncfix-api-web.js')).size} bytes; instantiated in ${instantiateMs.toFixed(0)} ms`);
  const tmp = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'asyncfix-wasm-web-'));
  for (const lines of [200, 20000]) {
    const file = path.join(tmp, `gen${lines}.py`);
    execFileSync('python3', [path.join(root, 'bench', 'gen_torch.py'), file, '--lines', String(lines)], { stdio: 'ignore' });
    const text = fs.readFileSync(file, 'utf8');
    const web = [];
    const cli = [];
    for (let r = -1; r < rounds; r++) { // round -1 warms up (V8 tiers the module up)
      const [src, len] = put(text);
      const t0 = process.hrtime.bigint();
      const report = m._asyncfix_linter_check(linter, src, len, name);
      const json = m._asyncfix_report_json(report);
      if (r >= 0) web.push(Number(process.hrtime.bigint() - t0) / 1e6);
      m._asyncfix_string_free(json);
      m._asyncfix_report_free(report);
      m._free(src);
      const t1 = process.hrtime.bigint();
      try {
        execFileSync(native, ['check', '--output-format', 'json', '-'], { input: text, stdio: ['pipe', 'pipe', 'ignore'], maxBuffer: 1 << 30 });
      } catch (error) {
        if (error.status !== 1) throw error; // 1: findings
      }
      if (r >= 0) cli.push(Number(process.hrtime.bigint() - t1) / 1e6);
    }
    const w = median(web);
    const n = median(cli);
    console.log(`${text.split('\n').length - 1} lines: browser module ${w.toFixed(1)} ms, native command ${n.toFixed(1)} ms ` +
      `(${(w / n).toFixed(1)}x; median of ${rounds})`);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(`wasm_web.js: ${error.message}`);
  process.exit(2);
});
