#!/usr/bin/env node
'use strict';
// `asyncfix-lsp` on Node.js: the language server as a WASI module (docs/wasm.md). It speaks LSP
// on stdin/stdout like the native one; the module reaches no file, only those two streams and
// stderr (its log).
const fs = require('node:fs');
const { checkHost, locate } = require('./locate.js');
const { withStdinReader } = require('./stdin.js');

checkHost('asyncfix-lsp');
let WASI;
try {
  ({ WASI } = require('node:wasi'));
} catch {
  process.stderr.write('asyncfix-lsp: this Node.js has no node:wasi; the WebAssembly language server needs it\n');
  process.exit(2);
}
// node:wasi is stable in all but name; its warning would only clutter the client's log.
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name !== 'ExperimentalWarning') process.stderr.write(`${w.name}: ${w.message}\n`);
});

const file = locate('asyncfix-lsp', 'asyncfix-lsp.wasm');
// The module's exit (after `exit`) ends the process there: with returnOnExit, node:wasi unwinds
// the module's stack by a JavaScript exception, and Node 20 crashed with a segmentation fault
// doing so after a 20 000-line trace with settles (tests/wasm: TypingTest).
const wasi = new WASI({ version: 'preview1', args: ['asyncfix-lsp', ...process.argv.slice(2)], env: {}, returnOnExit: false });
const wasm = new WebAssembly.Module(fs.readFileSync(file));
if (process.env.ASYNCFIX_LSP_WARM_UP !== '0') require('./warm_up.js').warmUp(wasm);
// Standard input through a reader thread, so that the server sees whether a message is waiting
// (stdin.js); the rest is node:wasi's.
let instance;
const imports = withStdinReader(wasi.wasiImport, () => instance.exports.memory);
instance = new WebAssembly.Instance(wasm, { wasi_snapshot_preview1: imports });
let code;
try {
  code = wasi.start(instance);
} catch (e) {
  // A trap (out of bounds, unreachable) or an exception the module did not catch.
  process.stderr.write(`asyncfix-lsp: the WebAssembly module stopped: ${e && e.stack ? e.stack : e}\n`);
  code = 70;
}
process.exitCode = code;
