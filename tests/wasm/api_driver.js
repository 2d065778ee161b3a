'use strict';
// tests/wasm/test_npm.py's side of the JavaScript API: the package `asyncfix` at argv[2] runs the
// cases of the JSON file argv[3], and the answers go to stdout as JSON, one per case in order:
//   { "text": base64 bytes, "path": "-", "options": { camelCase keys } }
//   -> { "lint": [diagnostics] | { "error": [code, message] }, "fix": text | { "error": ... } }
// and { "rules": true } -> { "rules": asyncfix.rules() }.
const fs = require('node:fs');

const asyncfix = require(process.argv[2]);
const cases = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));

function answer(body) {
  try {
    return body();
  } catch (error) {
    if (!(error instanceof asyncfix.AsyncfixError)) throw error;
    return { error: [error.code, error.message] };
  }
}

const out = cases.map((c) => {
  if (c.rules) return { rules: asyncfix.rules() };
  const text = new Uint8Array(Buffer.from(c.text, 'base64'));
  const options = { ...c.options, path: c.path };
  return { lint: answer(() => asyncfix.lint(text, options)), fix: answer(() => asyncfix.fix(text, options)) };
});
process.stdout.write(JSON.stringify(out));
