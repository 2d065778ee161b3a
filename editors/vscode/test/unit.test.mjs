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
const { resolveServer, findOnPath, probeServer } = require('../out/serverPath.js');

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
    const fromEnvironment = { ok: true, command: exe, source: 'environment' };
    const fromSetting = { ok: true, command: exe, source: 'path setting' };
    assert.deepEqual(resolveServer('', undefined, searchPath), fromEnvironment);
    assert.deepEqual(resolveServer('  ', undefined, searchPath), fromEnvironment);
    assert.deepEqual(resolveServer(exe, undefined, ''), fromSetting);
    assert.deepEqual(resolveServer('${workspaceFolder}/bin/asyncfix-lsp', dir, ''), fromSetting);
    assert.deepEqual(resolveServer('bin/asyncfix-lsp', dir, ''), fromSetting);
    assert.deepEqual(resolveServer('asyncfix-lsp', undefined, bin), fromSetting);

    const missing = resolveServer('', undefined, '/nonexistent');
    assert.equal(missing.ok, false);
    assert.match(missing.message, /cannot find `asyncfix-lsp` on PATH, and this extension carries no server;.*wheel.*asyncfix\.path/);
    assert.match(resolveServer(notExe, undefined, '').message, /is not an executable file/);
    assert.match(resolveServer(dir, undefined, '').message, /is not an executable file/, 'a directory is no server');
    assert.match(resolveServer('bin/asyncfix-lsp', undefined, '').message, /relative, but no folder is open/);
    assert.match(resolveServer('${workspaceFolder}/x', undefined, '').message, /no folder is open/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the carried server: after the environment by default, alone with useBundled, and a clear message when it is gone', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncfix-vscode-unit-'));
  try {
    const onPath = path.join(dir, 'bin');
    const bundled = path.join(dir, 'bundled', 'linux-x64', 'asyncfix-lsp');
    fs.mkdirSync(onPath);
    fs.mkdirSync(path.dirname(bundled), { recursive: true });
    const environment = path.join(onPath, 'asyncfix-lsp');
    for (const file of [environment, bundled]) {
      fs.writeFileSync(file, '#!/bin/sh\n');
      fs.chmodSync(file, 0o755);
    }
    const search = (extra) => ({ searchPath: onPath, bundled, bundledExpected: true, platform: 'linux-x64', ...extra });

    assert.deepEqual(resolveServer('', undefined, search({})), { ok: true, command: environment, source: 'environment' });
    assert.deepEqual(resolveServer('', undefined, search({ searchPath: '/nonexistent' })), { ok: true, command: bundled, source: 'bundled' });
    assert.deepEqual(resolveServer('', undefined, search({ strategy: 'useBundled' })), { ok: true, command: bundled, source: 'bundled' });
    assert.deepEqual(resolveServer(environment, undefined, search({ strategy: 'useBundled' })), { ok: true, command: environment, source: 'path setting' });

    // The universal extension carries none: useBundled says so, and where to get a server.
    const none = resolveServer('', undefined, search({ strategy: 'useBundled', bundledExpected: false }));
    assert.equal(none.ok, false);
    assert.match(none.message, /`asyncfix.importStrategy` is `useBundled`, but this extension carries no server for linux-x64; install the asyncfix wheel/);
    assert.match(resolveServer('', undefined, search({ searchPath: '', bundledExpected: false })).message, /carries no server for linux-x64/);

    // Packaged with a server that is gone, or not executable: reinstall.
    fs.chmodSync(bundled, 0o644);
    const broken = resolveServer('', undefined, search({ searchPath: '' }));
    assert.equal(broken.ok, false);
    assert.match(broken.message, /the server this extension carries \(.*bundled.*\) is missing or not executable: reinstall the extension/);
    fs.rmSync(bundled);
    assert.match(resolveServer('', undefined, search({ strategy: 'useBundled' })).message, /is missing or not executable: reinstall the extension, or set `asyncfix.importStrategy` to `fromEnvironment`/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a server that does not run is reported with what to do', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncfix-vscode-unit-'));
  try {
    const good = path.join(dir, 'good');
    fs.writeFileSync(good, '#!/bin/sh\necho "asyncfix-lsp 9.9.9"\n');
    const failing = path.join(dir, 'failing');
    fs.writeFileSync(failing, '#!/bin/sh\necho "error while loading shared libraries" >&2\nexit 127\n');
    const corrupt = path.join(dir, 'corrupt');
    fs.writeFileSync(corrupt, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0xde, 0xad])); // a truncated ELF
    for (const file of [good, failing, corrupt]) fs.chmodSync(file, 0o755);

    assert.deepEqual(await probeServer({ command: good, source: 'bundled' }), { ok: true, version: 'asyncfix-lsp 9.9.9' });
    const library = await probeServer({ command: failing, source: 'environment' });
    assert.equal(library.ok, false);
    assert.match(library.message, /does not run \(error while loading shared libraries\): reinstall asyncfix in that environment, set `asyncfix.path`, or install the extension built for this platform/);
    const truncated = await probeServer({ command: corrupt, source: 'bundled' });
    assert.equal(truncated.ok, false);
    assert.match(truncated.message, /corrupt does not run \(.+\): reinstall the extension, or set `asyncfix.path`/);
    const configured = await probeServer({ command: failing, source: 'path setting' });
    assert.match(configured.message, /: fix or clear `asyncfix.path`$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The web extension (src/web/convert.ts): the C API's options, its code-point columns in UTF-16,
// and notebooks as the .ipynb text the library lints.
const { optionsJson, utf16Column, notebookJson, notebookCellTexts } = require('../out/web/convert.js');

test('the web extension passes the settings as the configuration file keys, unsafe fixes per call', () => {
  assert.equal(optionsJson({}), '{}');
  assert.deepEqual(
    JSON.parse(optionsJson({ select: ['AF1'], extendSelect: ['AF2'], ignore: [], targetVersion: 'py36', renameStyle: 'is_async', unsafeFixes: true })),
    { select: ['AF1'], 'extend-select': ['AF2'], ignore: [], 'target-version': 'py36', 'rename-style': 'is_async' },
  );
});

test('code-point columns become UTF-16 columns: astral characters count twice', () => {
  const line = 'x = "é😀"; y.cuda(async=True)';
  // The native report puts `async` at column 18 (code points, 1-based).
  assert.equal(utf16Column(line, 18), line.indexOf('async'));
  assert.equal(utf16Column(line, 23), line.indexOf('async') + 5);
  assert.equal(utf16Column('abc', 1), 0);
  assert.equal(utf16Column('abc', 4), 3); // the end of the line
  assert.equal(utf16Column('abc', 5), 4); // past it: the line break
  assert.equal(utf16Column('😀😀', 3), 4);
});

test('a notebook is linted as .ipynb JSON: Python code cells as code, others kept in their places', () => {
  const json = JSON.parse(
    notebookJson([
      { kind: 'markup', language: 'markdown', text: '# title' },
      { kind: 'code', language: 'python', text: 'x.cuda(async=True)\n%time y' },
      { kind: 'code', language: 'r', text: 'print(1)' },
    ]),
  );
  assert.deepEqual(
    json.cells.map((c) => [c.cell_type, c.source]),
    [['markdown', '# title'], ['code', 'x.cuda(async=True)\n%time y'], ['raw', 'print(1)']],
  );
  assert.equal(json.nbformat, 4);
  // What fix() gives back: sources as strings or as lists of lines.
  assert.deepEqual(notebookCellTexts(JSON.stringify({ cells: [{ source: ['a\n', 'b'] }, { source: 'c' }, {}] })), ['a\nb', 'c', '']);
});
