'use strict';
// Where the WebAssembly modules are, and whether this Node can run them (docs/wasm.md).
//
// The modules come from the `wasm` CMake preset: build/wasm/cli/asyncfix.{js,wasm} (the CLI),
// build/wasm/lsp/asyncfix-lsp.wasm (the language server) and build/wasm/api/asyncfix-api.{js,wasm}
// (the JavaScript API). The npm package carries them in dist/; in the source tree they are found
// in the build directory; ASYNCFIX_WASM_DIR names another directory holding them all, or another
// build directory.
const fs = require('node:fs');
const path = require('node:path');

const MIN_NODE_MAJOR = 18;

/// Why this Node cannot run the modules, or null when it can.
function hostProblem() {
  const major = Number(process.versions.node.split('.')[0]);
  if (!(major >= MIN_NODE_MAJOR))
    return `Node.js ${process.versions.node} is too old: the WebAssembly build needs Node.js >= ${MIN_NODE_MAJOR}`;
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.Tag !== 'function')
    return 'this Node.js has no WebAssembly exception handling (WebAssembly.Tag); the WebAssembly build needs it';
  return null;
}

/// Exits with code 2 and a message when this Node cannot run the modules.
function checkHost(name) {
  const problem = hostProblem();
  if (problem) {
    process.stderr.write(`${name}: ${problem}\n`);
    process.exit(2);
  }
}

/// The path of `file` (asyncfix.js, asyncfix.wasm, asyncfix-lsp.wasm, asyncfix-api.js), or an
/// error that says where it was looked for.
function find(file) {
  const sub = file.startsWith('asyncfix-lsp') ? 'lsp' : file.startsWith('asyncfix-api') ? 'api' : 'cli';
  const candidates = [];
  const dir = process.env.ASYNCFIX_WASM_DIR;
  if (dir) candidates.push(path.join(dir, file), path.join(dir, sub, file)); // flat, or a build directory
  candidates.push(path.join(__dirname, 'dist', file));
  candidates.push(path.join(__dirname, '..', 'build', 'wasm', sub, file));
  for (const candidate of candidates) if (fs.existsSync(candidate)) return { file: candidate };
  return {
    error: `${file} not found (looked at ${[...new Set(candidates)].join(', ')}); build it with \`cmake --preset wasm && cmake --build --preset wasm\``,
  };
}

/// The path of `file`; exits with code 2 when it is nowhere.
function locate(name, file) {
  const found = find(file);
  if (found.error) {
    process.stderr.write(`${name}: ${found.error}\n`);
    process.exit(2);
  }
  return found.file;
}

module.exports = { checkHost, find, hostProblem, locate };
