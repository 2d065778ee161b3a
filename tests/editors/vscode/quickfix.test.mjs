// The real VS Code: code-server hosts VS Code's web workbench, Debian's chromium (driven by
// playwright-core) is the window. The packaged extension (.vsix) is installed with
// `code-server --install-extension`; the test opens a legacy PyTorch file, waits for the squiggle
// the extension's server reports, opens the quick-fix menu on it (Ctrl+.), applies the fix, saves
// (Ctrl+S) and checks the file on disk.
//
// Environment: ASYNCFIX_LSP_BIN (the server), ASYNCFIX_VSIX (the packaged extension),
// ASYNCFIX_VSCODE_ENV (where setup.sh installed code-server and playwright-core),
// ASYNCFIX_SCREENSHOT (optional: where to save the quick-fix menu as PNG), CHROMIUM (default
// /usr/bin/chromium).
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
const serverBin = need('ASYNCFIX_LSP_BIN');
const vsix = need('ASYNCFIX_VSIX');
const env = need('ASYNCFIX_VSCODE_ENV');
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
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(config, 'auth: none\n');
  fs.copyFileSync(path.join(here, 'project', 'train.py'), path.join(dirs.project, 'train.py'));
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
    'asyncfix.path': serverBin,
    'asyncfix.trace.server': 'messages',
  });

  const common = ['--config', config, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  const install = spawnSync(codeServer, [...common, '--install-extension', vsix, '--force'], { encoding: 'utf8', timeout: 120000 });
  assert.equal(install.status, 0, `code-server --install-extension failed:\n${install.stdout}\n${install.stderr}`);
  const listed = spawnSync(codeServer, [...common, '--list-extensions', '--show-versions'], { encoding: 'utf8', timeout: 60000 });
  const version = JSON.parse(fs.readFileSync(path.join(here, '..', '..', '..', 'editors', 'vscode', 'package.json'), 'utf8')).version;
  assert.match(listed.stdout, new RegExp(`^asyncfix\\.asyncfix@${version.replace(/\./g, '\\.')}$`, 'm'), listed.stdout + listed.stderr);

  server = spawn(
    codeServer,
    [...common, '--bind-addr', '127.0.0.1:0', '--auth', 'none', '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override', '--ignore-last-opened', dirs.project],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_CONFIG_HOME: work, XDG_DATA_HOME: work } },
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
  fs.rmSync(work, { recursive: true, force: true });
});

test('a quick fix from the asyncfix extension fixes the file in the real VS Code workbench', async (t) => {
  t.diagnostic(`work directory ${work}`);
  try {
    // Open train.py with Quick Open.
    await page.locator('.monaco-workbench').click({ position: { x: 640, y: 400 } });
    await page.keyboard.press('Control+P');
    const quickInput = page.locator('.quick-input-widget input');
    await quickInput.waitFor({ timeout: 30000 });
    await quickInput.fill('train.py');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'train.py' }).first().waitFor({ timeout: 30000 });
    await page.keyboard.press('Enter');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-lines', { hasText: 'cuda(async=True)' }).waitFor({ timeout: 30000 });

    // The squiggle: the extension started the server, which reported AF101 (an error) under `async`.
    const squiggle = editor.locator('.squiggly-error').first();
    await squiggle.waitFor({ timeout: 90000 });

    // Put the cursor on the finding (Go to Line/Column: line 9, column of `async`) and open the quick-fix menu.
    const source = fs.readFileSync(path.join(dirs.project, 'train.py'), 'utf8');
    const lines = source.split('\n');
    const line = lines.findIndex((l) => l.includes('cuda(async=True)'));
    const column = lines[line].indexOf('async') + 1;
    await page.keyboard.press('Control+G');
    await quickInput.waitFor({ timeout: 30000 });
    await quickInput.fill(`:${line + 1}:${column + 2}`);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Replace `async=` with `non_blocking=`' });
    await fix.first().waitFor({ timeout: 30000 });
    await page.locator('.action-widget .monaco-list-row', { hasText: 'Disable AF101 for this line' }).first().waitFor({ timeout: 30000 });
    if (process.env.ASYNCFIX_SCREENSHOT) {
      fs.mkdirSync(path.dirname(process.env.ASYNCFIX_SCREENSHOT), { recursive: true });
      await page.screenshot({ path: process.env.ASYNCFIX_SCREENSHOT });
    }
    // The preferred fix is the focused row (the menu's pointer block swallows clicks): Enter applies it.
    await page.locator('.action-widget .monaco-list-row.focused', { hasText: 'Replace `async=` with `non_blocking=`' }).waitFor({ timeout: 10000 });
    await page.keyboard.press('Enter');
    await editor.locator('.view-lines', { hasText: 'cuda(non_blocking=True)' }).waitFor({ timeout: 30000 });

    // Save, and the file on disk is the fixed one.
    await page.keyboard.press('Control+S');
    const expected = source.replace('cuda(async=True)', 'cuda(non_blocking=True)');
    assert.notEqual(expected, source);
    await eventually(() => fs.readFileSync(path.join(dirs.project, 'train.py'), 'utf8') === expected, 30000, 'the saved file');
    // The finding is gone from the editor.
    await eventually(async () => (await editor.locator('.squiggly-error').count()) === 0, 30000, 'the squiggle to go away');
  } catch (error) {
    const shot = path.join(os.tmpdir(), 'asyncfix-vscode-failure.png');
    await page?.screenshot({ path: shot }).catch(() => {});
    throw new Error(`${error.message}\n(screenshot: ${shot})\ncode-server log:\n${serverLog.slice(-4000)}`);
  }
});
