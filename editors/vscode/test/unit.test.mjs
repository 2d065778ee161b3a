// The extension's pure parts (compiled to out/ by `tsc`), under plain Node: which settings reach
// the server, when a change needs a restart, and where the server executable is found.
//   node --test test/   (after package.sh or `npx tsc -p .`)
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
const { serverSettings, changeNeedsRestart } = require('../out/settings.js');
const { resolveServer, findOnPath } = require('../out/serverPath.js');

const inspector = (values) => (key) => values[key];

test('only the settings the user set are sent, so the configuration file decides the rest', () => {
  assert.deepEqual(serverSettings(inspector({})), {});
  assert.deepEqual(
    serverSettings(
      inspector({
        select: { globalValue: ['AF1', ' AF001 '] },
        ignore: { workspaceValue: 'AF104, AF106' },
        targetVersion: { globalValue: 'py36' },
        renameStyle: { globalValue: '' }, // the settings UI's "unset"
        unsafeFixes: { globalValue: false },
      }),
    ),
    { select: ['AF1', 'AF001'], ignore: ['AF104', 'AF106'], targetVersion: 'py36', unsafeFixes: false },
  );
});

test('the most specific scope wins, and an explicitly empty list is sent', () => {
  assert.deepEqual(
    serverSettings(inspector({ select: { globalValue: ['AF1'], workspaceValue: [] }, renameStyle: { globalValue: 'is_async', workspaceFolderValue: '{name}_flag' } })),
    { select: [], renameStyle: '{name}_flag' },
  );
});

test('values of the wrong type are left out', () => {
  assert.deepEqual(
    serverSettings(inspector({ select: { globalValue: 42 }, targetVersion: { globalValue: 38 }, unsafeFixes: { globalValue: 'yes' } })),
    {},
  );
});

test('a change that unsets a key sent at initialize needs a restart; other changes do not', () => {
  assert.equal(changeNeedsRestart({ select: ['AF1'] }, {}), true);
  assert.equal(changeNeedsRestart({ select: ['AF1'] }, { select: ['AF2'] }), false);
  assert.equal(changeNeedsRestart({}, { unsafeFixes: true }), false);
  assert.equal(changeNeedsRestart({ unsafeFixes: false }, { unsafeFixes: true }), false);
});

test('the server is found on PATH, at a configured path, or a clear message says why not', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncfix-vscode-unit-'));
  try {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    const exe = path.join(bin, 'asyncfix-lsp');
    fs.writeFileSync(exe, '#!/bin/sh\n');
    fs.chmodSync(exe, 0o755);
    const notExe = path.join(dir, 'asyncfix-lsp');
    fs.writeFileSync(notExe, '');
    const searchPath = ['/nonexistent', dir, bin].join(path.delimiter);

    assert.equal(findOnPath('asyncfix-lsp', searchPath), exe, 'skips a file that is not executable');
    assert.deepEqual(resolveServer('', undefined, searchPath), { ok: true, command: exe });
    assert.deepEqual(resolveServer('  ', undefined, searchPath), { ok: true, command: exe });
    assert.deepEqual(resolveServer(exe, undefined, ''), { ok: true, command: exe });
    assert.deepEqual(resolveServer('${workspaceFolder}/bin/asyncfix-lsp', dir, ''), { ok: true, command: exe });
    assert.deepEqual(resolveServer('bin/asyncfix-lsp', dir, ''), { ok: true, command: exe });
    assert.deepEqual(resolveServer('asyncfix-lsp', undefined, bin), { ok: true, command: exe });

    const missing = resolveServer('', undefined, '/nonexistent');
    assert.equal(missing.ok, false);
    assert.match(missing.message, /cannot find `asyncfix-lsp` on PATH.*asyncfix\.path/);
    assert.match(resolveServer(notExe, undefined, '').message, /is not an executable file/);
    assert.match(resolveServer(dir, undefined, '').message, /is not an executable file/, 'a directory is no server');
    assert.match(resolveServer('bin/asyncfix-lsp', undefined, '').message, /relative, but no folder is open/);
    assert.match(resolveServer('${workspaceFolder}/x', undefined, '').message, /no folder is open/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
