#!/usr/bin/env node
'use strict';
// `asyncfix` on Node.js: the CLI compiled to WebAssembly (docs/wasm.md). Same arguments, output
// and exit codes as the native command; files are read and written through Node's file system.
const { checkHost, locate } = require('./locate.js');

checkHost('asyncfix');
// emscripten's loader (NODERAWFS) runs main() with process.argv.slice(2) and exits with its code.
require(locate('asyncfix', 'asyncfix.js'));
