'use strict';
// Where the WebAssembly modules are, and whether this Node can run them (docs/wasm.md).
//
// The modules come from the `wasm` CMake preset: build/wasm/cli/asyncfix.{js,wasm} (the CLI) and
// build/wasm/lsp/asyncfix-lsp.wasm (the language server). A package carries them in dist/; in
// the source tree the launchers find the build directory; ASYNCFIX_WASM_DIR names another
// directory holding all three files, or another build directory.
const fs = require('node:fs');
const path = require('node:path');

const MIN_NODE_MAJOR = 18;

/// Exits with code 2 and a message when this Node cannot run the modules.
function checkHost(name) {
  const major = Number(process.versions.node.split('.')[0]);
  if (!(major >= MIN_NODE_MAJOR)) {
    process.stderr.write(`${name}: Node.js ${process.versions.node} is too old: the WebAssembly build needs Node.js >= ${MIN_NODE_MAJOR}\n`);
    process.exit(2);
  }
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.Tag !== 'function') {
    process.stderr.write(`${name}: this Node.js has no WebAssembly exception handling (WebAssembly.Tag); the WebAssembly build needs it\n`);
    process.exit(2);
  }
}

/// The path of `file` (one of asyncfix.js, asyncfix.wasm, asyncfix-lsp.wasm); exits with code 2
/// when it is nowhere.
function locate(name, file) {
  const sub = file.startsWith('asyncfix-lsp') ? 'lsp' : 'cli';
  const candidates = [];
  const dir = process.env.ASYNCFIX_WASM_DIR;
  if (dir) candidates.push(path.join(dir, file), path.join(dir, sub, file)); // flat, or a build directory
  candidates.push(path.join(__dirname, 'dist', file));
  candidates.push(path.join(__dirname, '..', 'build', 'wasm', sub, file));
  for (const candidate of candidates) if (fs.existsSync(candidate)) return candidate;
  process.stderr.write(`${name}: ${file} not found (looked at ${candidates.join(', ')}); build it with \`cmake --preset wasm && cmake --build --preset wasm\`\n`);
  process.exit(2);
}

module.exports = { checkHost, locate };
