// The real VS Code: code-server hosts VS Code's web workbench, Debian's chromium (driven by
// playwright-core) is the window. The packaged extension (.vsix) is installed with
// `code-server --install-extension`; the test opens a legacy PyTorch file, waits for the squiggle
// the extension's server reports, opens the quick-fix menu on it (Ctrl+.), applies the fix, saves
// (Ctrl+S) and checks the file on disk. Then the command "asyncfix: Fix all problems in this file"
// from the command palette, `source.fixAll.asyncfix` from `editor.codeActionsOnSave`, and a
// Jupyter notebook (VS Code's own .ipynb support): a squiggle in a cell, its quick fix, the save.
//
// The extension is the platform-specific one, carrying its own asyncfix-lsp; code-server runs with
// a PATH that has no asyncfix-lsp and no `asyncfix.path` is set, as on a machine with no asyncfix
// installed (issue 14): the squiggles come from the carried server.
//
// With ASYNCFIX_VSCODE_SERVER=wasm the extension is the universal one, which carries no native
// server, only the WebAssembly one (issue 33): the same squiggles, quick fixes and notebook fix
// come from asyncfix-lsp.wasm, run by code-server's Node.js, and the status bar says so. The
// workspace fix (the WebAssembly server reads no file) is left out; a crash of the server is
// added: the client starts it again and the unsaved text is linted again.
//
// With ASYNCFIX_VSCODE_SERVER=web the extension is the web package (package.sh's `web` target):
// the `browser` entry point alone, no `main`, so code-server runs it in the browser's Web Worker
// extension host, as VS Code for the Web does. No server process exists: the squiggles, quick
// fixes, fix-all commands and the notebook fix come from the C API's browser module inside the
// worker, and its output line says it runs in a Web Worker without Node.js. Restarting a server,
// asyncfix.path, a crash of the server and the workspace fix do not apply and are left out.
//
// Environment: ASYNCFIX_LSP_BIN (the build's server, which the carried one is a stripped copy
// of; not needed with wasm), ASYNCFIX_VSIX (the packaged extension), ASYNCFIX_VSCODE_SERVER
// (native, the default, or wasm),
// ASYNCFIX_VSCODE_ENV (where setup.sh installed code-server and playwright-core),
// ASYNCFIX_SCREENSHOT (optional: where to save the quick-fix menu as PNG), CHROMIUM (default
// /usr/bin/chromium), ASYNCFIX_KEEP_WORK=1 (keep the temporary workspace, profiles and logs).
import { spawn, spawnSync } from 'node:child_process';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const need = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see the comment at the top of ${path.basename(fileURLToPath(import.meta.url))})`);
  return value;
};
const serverKind = ['wasm', 'web'].includes(process.env.ASYNCFIX_VSCODE_SERVER) ? process.env.ASYNCFIX_VSCODE_SERVER : 'native';
const web = serverKind === 'web';
const noServer = web && 'the web extension runs no server';
const serverBin = serverKind === 'native' ? path.resolve(need('ASYNCFIX_LSP_BIN')) : undefined;
const vsix = path.resolve(need('ASYNCFIX_VSIX'));
const env = path.resolve(need('ASYNCFIX_VSCODE_ENV'));
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const { chromium } = createRequire(path.join(env, 'package.json'))('playwright-core');
const codeServer = path.join(env, 'node_modules', '.bin', 'code-server');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncfix-vscode-'));
const dirs = {
  userData: path.join(work, 'user-data'),
  extensions: path.join(work, 'extensions'),
  project: path.join(work, 'project'),
  browser: path.join(work, 'chromium-profile'),
};
const config = path.join(work, 'code-server.yaml');
const workspaceSettings = path.join(dirs.project, '.vscode', 'settings.json');
const baseWorkspaceSettings = {
  '[python]': { 'editor.codeActionsOnSave': { 'source.fixAll.asyncfix': 'explicit' } },
};
let server; // the code-server process
let serverLog = '';
let context; // the browser
let page;

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

/** Polls `check` until it returns a truthy value or `ms` pass. */
async function eventually(check, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

before(async () => {
  if (!fs.existsSync(chromiumPath)) throw new Error(`no browser at ${chromiumPath}: run scripts/install-deps.sh (Debian's chromium)`);
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(config, 'auth: none\n');
  fs.cpSync(path.join(here, 'project'), dirs.project, { recursive: true });
  // Fix on save, for Python files, as the README tells users to set it.
  writeJson(workspaceSettings, baseWorkspaceSettings);
  // A quiet workbench: no welcome page, no trust prompt, no telemetry, no update checks; and the
  // server the extension starts.
  writeJson(path.join(dirs.userData, 'User', 'settings.json'), {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'git.enabled': false,
    'editor.minimap.enabled': false,
    'asyncfix.trace.server': 'messages',
  });

  const common = ['--config', config, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  const install = spawnSync(codeServer, [...common, '--install-extension', vsix, '--force'], { encoding: 'utf8', timeout: 120000 });
  assert.equal(install.status, 0, `code-server --install-extension failed:\n${install.stdout}\n${install.stderr}`);
  const listed = spawnSync(codeServer, [...common, '--list-extensions', '--show-versions'], { encoding: 'utf8', timeout: 60000 });
  const version = JSON.parse(fs.readFileSync(path.join(here, '..', '..', '..', 'editors', 'vscode', 'package.json'), 'utf8')).version;
  assert.match(listed.stdout, new RegExp(`^asyncfix\\.asyncfix@${version.replace(/\./g, '\\.')}$`, 'm'), listed.stdout + listed.stderr);

  // A PATH without asyncfix-lsp on it.
  const searchPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !fs.existsSync(path.join(dir, 'asyncfix-lsp')))
    .join(path.delimiter);
  server = spawn(
    codeServer,
    [...common, '--bind-addr', '127.0.0.1:0', '--auth', 'none', '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override', '--ignore-last-opened', dirs.project],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: searchPath, XDG_CONFIG_HOME: work, XDG_DATA_HOME: work } },
  );
  server.stdout.on('data', (d) => (serverLog += d));
  server.stderr.on('data', (d) => (serverLog += d));
  const url = await eventually(() => serverLog.match(/HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/)?.[1], 60000, 'code-server to listen');

  context = await chromium.launchPersistentContext(dirs.browser, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${url}/?folder=${encodeURIComponent(dirs.project)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
});

after(async () => {
  await context?.close().catch(() => {});
  server?.kill('SIGTERM');
  if (!process.env.ASYNCFIX_KEEP_WORK) fs.rmSync(work, { recursive: true, force: true });
});

/** The executables of this user's running asyncfix-lsp processes. */
function runningServers() {
  return runningServerProcesses().map((p) => p.exe);
}

/** This user's running language servers: native ones (`exe`), and WebAssembly ones (`exe` is
 * Node.js, `launcher` the asyncfix-lsp.js it runs). */
function runningServerProcesses() {
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const exe = fs.readlinkSync(`/proc/${pid}/exe`);
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const launcher = argv.find((a) => a.endsWith(`${path.sep}asyncfix-lsp.js`));
      if (path.basename(exe) === 'asyncfix-lsp' || launcher) found.push({ pid: Number(pid), exe, launcher });
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

const read = (name) => fs.readFileSync(path.join(dirs.project, name), 'utf8');
const original = (name) => fs.readFileSync(path.join(here, 'project', name), 'utf8');

/** Runs `body`; on failure, saves a screenshot and adds code-server's log to the error. */
async function step(name, body) {
  try {
    await body();
  } catch (error) {
    const shot = path.join(os.tmpdir(), `asyncfix-vscode-${name}.png`);
    await page?.screenshot({ path: shot }).catch(() => {});
    throw new Error(`${error.message}\n(screenshot: ${shot})\ncode-server log:\n${serverLog.slice(-4000)}`);
  }
}

const quickInput = () => page.locator('.quick-input-widget input');
const activeEditor = () => page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();

/** Opens `name` with Quick Open and waits until its tab is the active one. */
async function quickOpen(name) {
  await page.keyboard.press('Control+P');
  await quickInput().waitFor({ timeout: 30000 });
  await quickInput().fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 30000 });
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 30000 });
}

/** Opens `name` with Quick Open and waits until its text containing `marker` is shown. */
async function openFile(name, marker) {
  await quickOpen(name);
  await activeEditor().locator('.view-lines', { hasText: marker }).waitFor({ timeout: 30000 });
}

/** Waits until the active editor shows `count` error squiggles (and `warnings` warning squiggles, when given). */
async function squiggles(count, ms = 90000, warnings = undefined) {
  await eventually(
    async () =>
      (await activeEditor().locator('.squiggly-error').count()) === count &&
      (warnings === undefined || (await activeEditor().locator('.squiggly-warning').count()) === warnings),
    ms,
    `${count} error squiggles` + (warnings === undefined ? '' : ` and ${warnings} warning squiggles`),
  );
}

test('a quick fix from the asyncfix extension fixes the file in the real VS Code workbench', async (t) => {
  t.diagnostic(`work directory ${work}`);
  await step('quickfix', async () => {
    await page.locator('.monaco-workbench').click({ position: { x: 640, y: 400 } });
    await openFile('train.py', 'cuda(async=True)');
    // The squiggle: the extension started the server, which reported AF101 (an error) under `async`.
    await activeEditor().locator('.squiggly-error').first().waitFor({ timeout: 90000 });
    if (serverKind === 'native') {
      // ... the server the extension carries, a stripped copy of this build's.
      const servers = runningServers();
      assert.ok(servers.some((exe) => exe.startsWith(dirs.extensions + path.sep) && exe.includes(`${path.sep}bundled${path.sep}linux-x64${path.sep}`)), servers.join('\n'));
      assert.ok(!servers.includes(serverBin), servers.join('\n'));
    } else if (serverKind === 'wasm') {
      // ... the WebAssembly server the extension carries, and no native one; the status bar says so.
      const servers = runningServerProcesses();
      const described = JSON.stringify(servers);
      assert.ok(servers.some((p) => p.launcher?.startsWith(dirs.extensions + path.sep) && p.launcher.includes(`${path.sep}bundled${path.sep}wasm${path.sep}`)), described);
      assert.ok(!servers.some((p) => path.basename(p.exe) === 'asyncfix-lsp'), described);
      await page.locator('.statusbar-item', { hasText: 'asyncfix (WebAssembly)' }).first().waitFor({ timeout: 30000 });
      assert.match(outputLog(), /using the WebAssembly server .*no native server runs here/);
    } else {
      // ... the web extension in the browser's Web Worker extension host: no server process, no
      // extension host in Node.js for it, and its own line saying where it runs.
      // (Other processes of this user may run servers: only this workbench's extensions count.)
      assert.deepEqual(runningServerProcesses().filter((p) => (p.launcher ?? p.exe).startsWith(dirs.extensions + path.sep)), []);
      assert.ok(!outputLog(), `the extension logged from Node.js:\n${outputLog()}`);
      await page.locator('.statusbar-item', { hasText: 'asyncfix (WebAssembly, in the browser)' }).first().waitFor({ timeout: 30000 });
      // VS Code's own list says where it runs.
      await runCommand('Developer: Show Running Extensions');
      const row = page.locator('.runtime-extensions-editor .monaco-list-row', { hasText: /asyncfix/ });
      await row.first().waitFor({ timeout: 30000 });
      assert.match(await row.first().innerText(), /web worker/, await row.first().innerText());
      await page.keyboard.press('Control+W');
      await page.locator('.tab.active', { hasText: 'train.py' }).waitFor({ timeout: 30000 });
      await runCommand('asyncfix: Show output');
      // (The editor renders spaces as no-break spaces and wraps the long line.)
      const line = page.locator('.part.panel .monaco-editor .view-lines', { hasText: /using\sasyncfix\s\(WebAssembly,\sin\sthe\sbrowser\)/ });
      await line.first().waitFor({ timeout: 30000 });
      const said = (await line.first().innerText()).replace(/\s+/g, ' ');
      assert.match(said, /in a Web Worker, no Node\.js \(Mozilla\/5\.0 .*Chrome\//, said);
      await page.keyboard.press('Control+J'); // the panel away again
      await activeEditor().click({ position: { x: 200, y: 100 } });
    }

    // Put the cursor on the finding (Go to Line/Column) and open the quick-fix menu.
    const source = original('train.py');
    const lines = source.split('\n');
    const line = lines.findIndex((l) => l.includes('cuda(async=True)'));
    const column = lines[line].indexOf('async') + 1;
    await page.keyboard.press('Control+G');
    await quickInput().waitFor({ timeout: 30000 });
    await quickInput().fill(`:${line + 1}:${column + 2}`);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Replace `async=` with `non_blocking=`' });
    await fix.first().waitFor({ timeout: 30000 });
    if (!web) await page.locator('.action-widget .monaco-list-row', { hasText: 'Disable AF101 for this line' }).first().waitFor({ timeout: 30000 });
    if (process.env.ASYNCFIX_SCREENSHOT) {
      fs.mkdirSync(path.dirname(process.env.ASYNCFIX_SCREENSHOT), { recursive: true });
      await page.screenshot({ path: process.env.ASYNCFIX_SCREENSHOT });
    }
    // The preferred fix is the focused row (the menu's pointer block swallows clicks): Enter applies it.
    await page.locator('.action-widget .monaco-list-row.focused', { hasText: 'Replace `async=` with `non_blocking=`' }).waitFor({ timeout: 10000 });
    await page.keyboard.press('Enter');
    await activeEditor().locator('.view-lines', { hasText: 'cuda(non_blocking=True)' }).waitFor({ timeout: 30000 });

    // Save, and the file on disk is the fixed one.
    await page.keyboard.press('Control+S');
    const expected = source.replace('cuda(async=True)', 'cuda(non_blocking=True)');
    assert.notEqual(expected, source);
    await eventually(() => read('train.py') === expected, 30000, 'the saved train.py');
    await squiggles(0, 30000);
  });
});

test('"asyncfix: Fix all problems in this file" from the command palette fixes every finding', async () => {
  await step('fixall-command', async () => {
    await openFile('loader.py', 'asyncio.async(');
    await squiggles(2);
    await page.keyboard.press('Control+Shift+P');
    await quickInput().waitFor({ timeout: 30000 });
    await quickInput().fill('>asyncfix: Fix all problems in this file');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'asyncfix: Fix all problems in this file' }).first().waitFor({ timeout: 30000 });
    await page.keyboard.press('Enter');
    await activeEditor().locator('.view-lines', { hasText: 'asyncio.ensure_future(' }).waitFor({ timeout: 30000 });
    await page.keyboard.press('Control+S');
    const expected = original('loader.py').replace('cuda(async=True)', 'cuda(non_blocking=True)').replace('asyncio.async(', 'asyncio.ensure_future(');
    await eventually(() => read('loader.py') === expected, 30000, 'the saved loader.py');
    await squiggles(0, 30000);
  });
});

test('editor.codeActionsOnSave with source.fixAll.asyncfix fixes the file when it is saved', async () => {
  await step('on-save', async () => {
    await openFile('onsave.py', 'cuda(async=True)');
    await squiggles(1);
    // An edit of its own (a new last line), then save: the save applies the fixes too.
    await page.keyboard.press('Control+End');
    await page.keyboard.type('print(evaluate)\n');
    await page.keyboard.press('Control+S');
    const expected = original('onsave.py').replace('cuda(async=True)', 'cuda(non_blocking=True)') + 'print(evaluate)\n';
    await eventually(() => read('onsave.py') === expected, 30000, 'the saved onsave.py');
    await squiggles(0, 30000);
  });
});

test('asyncfix.* settings reach the running server: ignore and targetVersion change the squiggles', async () => {
  await step('settings', async () => {
    await openFile('settings_probe.py', 'asyncio.async(');
    await squiggles(2, 90000, 0); // AF202 and AF101, errors for the default target (py38)
    writeJson(workspaceSettings, { ...baseWorkspaceSettings, 'asyncfix.ignore': ['AF101'] });
    await squiggles(1, 30000, 0);
    // For Python 3.6, where `async` is still a name, both findings are warnings.
    writeJson(workspaceSettings, { ...baseWorkspaceSettings, 'asyncfix.targetVersion': 'py36' });
    await squiggles(0, 30000, 2);
    // Unset again: the server falls back to its defaults.
    writeJson(workspaceSettings, baseWorkspaceSettings);
    await squiggles(2, 30000, 0);
  });
});

/** Runs a command from the command palette by its title. */
async function runCommand(title) {
  await page.keyboard.press('Control+Shift+P');
  await quickInput().waitFor({ timeout: 30000 });
  await quickInput().fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 30000 });
  await page.keyboard.press('Enter');
}

/** The extension's output channel as VS Code logs it to disk. */
function outputLog() {
  const logs = path.join(dirs.userData, 'logs');
  for (const session of fs.readdirSync(logs).sort().reverse())
    for (const host of fs.existsSync(path.join(logs, session)) ? fs.readdirSync(path.join(logs, session)) : []) {
      const file = path.join(logs, session, host, 'asyncfix.asyncfix', 'asyncfix.log');
      if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
    }
  return '';
}

test('"asyncfix: Restart server" starts a new server that reports again; "asyncfix: Show output" shows its log', { skip: noServer }, async () => {
  await step('restart', async () => {
    await openFile('settings_probe.py', 'asyncio.async(');
    await squiggles(2, 30000, 0);
    const starts = () => (outputLog().match(/starting .*asyncfix-lsp/g) ?? []).length;
    assert.equal(starts(), 1, outputLog());
    await runCommand('asyncfix: Restart server');
    await eventually(() => starts() === 2, 30000, 'a second server start in the output channel');
    await eventually(() => (outputLog().match(/initialized for code-server/g) ?? []).length === 2, 30000, 'the new server to initialize');
    await squiggles(2, 30000, 0);
    await runCommand('asyncfix: Show output');
    // The Output panel, showing the channel "asyncfix" (the server's log and the protocol trace;
    // the editor renders spaces as no-break spaces, so the text matched has none).
    const channel = page.locator('.part.panel select.monaco-select-box');
    await eventually(async () => (await channel.count()) > 0 && (await channel.first().evaluate((e) => e.selectedOptions[0]?.text)) === 'asyncfix', 30000, 'the asyncfix output channel');
    await page.locator('.part.panel .monaco-editor .view-lines', { hasText: /\[Trace/ }).first().waitFor({ timeout: 30000 });
  });
});

test('a wrong asyncfix.path is reported in a notification, and fixing it brings the server back', { skip: noServer }, async () => {
  await step('bad-path', async () => {
    await openFile('settings_probe.py', 'asyncio.async(');
    await squiggles(2, 30000, 0);
    const missing = path.join(work, 'no-such-dir', 'asyncfix-lsp');
    writeJson(workspaceSettings, { ...baseWorkspaceSettings, 'asyncfix.path': missing });
    const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'is not an executable file' });
    await toast.first().waitFor({ timeout: 30000 });
    const text = await toast.first().innerText();
    assert.ok(text.includes(`asyncfix: \`asyncfix.path\`: ${missing} is not an executable file`), text);
    assert.match(text, /Open Settings/);
    await squiggles(0, 30000, 0); // the old server is gone, and its findings with it
    writeJson(workspaceSettings, baseWorkspaceSettings);
    await squiggles(2, 30000, 0);
  });
});

test('a server that dies is started again, and the unsaved text is linted again', { skip: noServer }, async () => {
  await step('crash', async () => {
    // The web workbench saves after a delay by default (which the workspace fix below relies on):
    // not here, where the text must stay unsaved.
    writeJson(workspaceSettings, { ...baseWorkspaceSettings, 'files.autoSave': 'off' });
    await openFile('settings_probe.py', 'asyncio.async(');
    await squiggles(2, 30000, 0);
    // An unsaved finding of its own on a new last line.
    await page.keyboard.press('Control+End');
    await page.keyboard.type('z = w.cuda(async=True)\n');
    await squiggles(3, 30000, 0);
    const starts = () => (outputLog().match(/starting .*asyncfix-lsp/g) ?? []).length;
    const before = starts();
    // One server (the one a restart or a settings change stopped has exited).
    const ours = () => runningServerProcesses().filter((p) => (p.launcher ?? p.exe).startsWith(dirs.extensions + path.sep));
    await eventually(() => ours().length === 1, 30000, `one server process, not ${JSON.stringify(ours())}`);
    const servers = ours();
    process.kill(servers[0].pid, 'SIGKILL');
    // The language client starts it again and opens the documents in it with their text.
    await eventually(
      () => runningServerProcesses().some((p) => p.pid !== servers[0].pid && (p.launcher ?? p.exe).startsWith(dirs.extensions + path.sep)),
      60000,
      'a new server process',
    );
    await eventually(() => /Server will restart|server .*restart/i.test(outputLog()) || starts() > before, 30000, 'the restart in the output channel');
    await squiggles(3, 60000, 0);
    assert.equal(read('settings_probe.py'), original('settings_probe.py'), 'the edit is unsaved');
    await runCommand('File: Revert File');
    await squiggles(2, 30000, 0);
    writeJson(workspaceSettings, baseWorkspaceSettings);
  });
});

test('"asyncfix: Fix all problems in the workspace" writes the fix into a file that is not open', { skip: (serverKind === 'wasm' && 'the WebAssembly server reads no file') || noServer }, async () => {
  await step('fix-workspace', async () => {
    assert.match(read('pkg/batch.py'), /async=True/);
    await runCommand('asyncfix: Fix all problems in the workspace');
    // The server answers with one workspace/applyEdit; VS Code writes a file that is not open
    // straight to disk.
    const expected = original('pkg/batch.py').replace('async=True', 'non_blocking=True');
    await eventually(() => read('pkg/batch.py') === expected, 30000, 'pkg/batch.py on disk');
    // A notebook that is not open is fixed as `asyncfix check --fix` fixes it: its JSON text.
    await eventually(() => !read('legacy.ipynb').includes('cuda(async=True)'), 30000, 'legacy.ipynb on disk');
    assert.deepEqual(JSON.parse(read('legacy.ipynb')).cells.length, JSON.parse(original('legacy.ipynb')).cells.length);
    // The notebook test below starts from the original.
    fs.writeFileSync(path.join(dirs.project, 'legacy.ipynb'), original('legacy.ipynb'));
  });
});

// Last: it leaves a notebook focused, which the workbench keeps as it is afterwards.
test('a Jupyter notebook: a squiggle in a cell, its quick fix, and the saved .ipynb', async () => {
  await step('notebook', async () => {
    const name = 'legacy.ipynb';
    await quickOpen(name);
    // VS Code's own ipynb support shows it as a notebook: one editor per cell (the notebook is
    // drawn in an overlay above the editor group, not inside it).
    const notebook = page.locator('.notebook-editor:visible');
    await notebook.waitFor({ timeout: 60000 });
    const cell = notebook.locator('.cell-editor-container .monaco-editor', { hasText: 'cuda(async=True)' }).first();
    await cell.waitFor({ timeout: 30000 });
    // The cells went to the server as notebookDocument/*; AF101 comes back on the cell's URI.
    const squiggle = cell.locator('.squiggly-error').first();
    try {
      await squiggle.waitFor({ timeout: 90000 });
    } catch (error) {
      // What the client and the server said about the notebook (the trace is on, see above).
      const said = outputLog().split('\n').filter((l) => /notebook|textDocument\/diagnostic|publishDiagnostics/.test(l));
      throw new Error(`${error.message}\nprotocol:\n${said.slice(-30).join('\n')}`);
    }
    assert.equal(await notebook.locator('.squiggly-error').count(), 1, 'one finding in the notebook (IPython lines left alone)');

    if (web) {
      // A deleted cell takes its finding with it (the web extension lints the notebook again
      // without it), and undoing the deletion brings both back (the workbench saves after a
      // delay: no revert). The Problems count in the status bar counts the other open files'
      // errors too.
      const errors = async () => Number((await page.locator('[id="status.problems"]').innerText()).trim().split(/\s+/)[0]);
      const before = await errors();
      assert.ok(before >= 1, String(before));
      const at = await squiggle.boundingBox();
      assert.ok(at, 'the squiggle is on screen');
      await page.mouse.click(at.x + at.width / 2, at.y + at.height / 2);
      await runCommand('Delete Cell');
      await eventually(async () => (await notebook.locator('.cell-editor-container .monaco-editor', { hasText: 'cuda(async=True)' }).count()) === 0, 30000, 'the cell deleted');
      await eventually(async () => (await errors()) === before - 1, 30000, `${before - 1} errors once the cell is gone`);
      await page.keyboard.press('Escape'); // the notebook's command mode, where Ctrl+Z undoes cell operations
      await page.keyboard.press('Control+Z');
      await squiggle.waitFor({ timeout: 30000 });
      await eventually(async () => (await errors()) === before, 30000, `${before} errors again`);
    }

    // The cursor on the finding, then the quick-fix menu.
    const box = await squiggle.boundingBox();
    assert.ok(box, 'the squiggle is on screen');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row.focused', { hasText: 'Replace `async=` with `non_blocking=`' });
    await fix.waitFor({ timeout: 30000 });
    await page.keyboard.press('Enter');
    await notebook.locator('.cell-editor-container .monaco-editor', { hasText: 'cuda(non_blocking=True)' }).first().waitFor({ timeout: 30000 });
    await eventually(async () => (await notebook.locator('.squiggly-error').count()) === 0, 30000, 'no squiggle left in the notebook');

    // Saved: the file on disk is the same notebook with the cell fixed, nothing else changed.
    await page.keyboard.press('Control+S');
    const before = JSON.parse(original(name));
    const saved = await eventually(() => {
      try {
        const json = JSON.parse(read(name));
        return json.cells.map((c) => [].concat(c.source).join('')).join('\n').includes('non_blocking=True') && json;
      } catch {
        return false; // being written
      }
    }, 30000, `${name} saved with the fix`);
    const sources = (nb) => nb.cells.map((c) => [c.cell_type, [].concat(c.source).join('')]);
    const expected = sources(before).map(([kind, text]) => [kind, text.replace('cuda(async=True)', 'cuda(non_blocking=True)')]);
    assert.deepEqual(sources(saved), expected);
  });
});
