// The asyncfix extension: starts `asyncfix-lsp` for Python files through vscode-languageclient —
// the native server where one runs, else the WebAssembly one it carries (`asyncfix.server`,
// shown in the status bar and the output) — mirrors the `asyncfix.*` settings to it, and adds
// the fix-all / restart / output commands.
// Everything else — diagnostics (pulled), quick fixes, `source.fixAll.asyncfix` on save, hover,
// workspace edits, progress — is the server's and the language client's.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

import { ImportStrategy, probeServer, resolveServer, serverName } from './serverPath';
import { changeNeedsRestart, serverKeys, ServerSettings, serverSettings } from './settings';
import { resolveWasmServer, serverKind } from './wasmServer';

// The server's commands (lsp/server.cpp). The language client also registers VS Code commands
// under these ids, so the extension's own commands have other ids.
const applyAutofix = 'asyncfix.applyAutofix';
const fixWorkspace = 'asyncfix.fixWorkspace';
// Changing these restarts the server: they are its command line.
const restartKeys = ['asyncfix.path', 'asyncfix.importStrategy', 'asyncfix.logLevel', 'asyncfix.server'];

let output: vscode.LogOutputChannel;
// Which server runs (native or WebAssembly), or that none does.
let status: vscode.StatusBarItem;
let extensionPath = '';
let client: LanguageClient | undefined;
let initialSettings: ServerSettings = {};
// Start, stop and restart one at a time (a settings change can arrive while the server starts).
let queue: Promise<unknown> = Promise.resolve();

function serialized<T>(task: () => Promise<T>): Promise<T> {
  const next = queue.then(task, task);
  queue = next.catch(() => undefined);
  return next;
}

function currentSettings(): ServerSettings {
  const config = vscode.workspace.getConfiguration('asyncfix');
  return serverSettings((key) => config.inspect(key));
}

function firstFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}

type Chosen = { serverOptions: ServerOptions; kind: 'native' | 'wasm'; describe: string };

/** The native server by `asyncfix.path` and `asyncfix.importStrategy`, probed; or why none runs. */
async function nativeServer(config: vscode.WorkspaceConfiguration): Promise<{ ok: true; chosen: Chosen } | { ok: false; message: string }> {
  // The platform-specific extension carries the server in bundled/<platform>-<arch>/.
  const platform = `${process.platform}-${process.arch}`;
  const bundledDir = path.join(extensionPath, 'bundled');
  const search = {
    searchPath: process.env['PATH'],
    bundled: path.join(bundledDir, platform, serverName + (process.platform === 'win32' ? '.exe' : '')),
    bundledExpected: fs.existsSync(path.join(bundledDir, platform)),
    strategy: (config.get<string>('importStrategy') === 'useBundled' ? 'useBundled' : 'fromEnvironment') as ImportStrategy,
    platform,
  };
  let resolved = resolveServer(config.get<string>('path') ?? '', firstFolder(), search);
  if (!resolved.ok) return resolved;
  let probe = await probeServer(resolved);
  if (!probe.ok && resolved.source === 'environment') {
    // The one on PATH does not run: the one this extension carries, if any, does instead.
    const carried = resolveServer('', firstFolder(), { ...search, strategy: 'useBundled' });
    if (carried.ok) {
      const second = await probeServer(carried);
      if (second.ok) {
        output.warn(`${probe.message}; using the server this extension carries`);
        resolved = carried;
        probe = second;
      }
    }
  }
  if (!probe.ok) return probe;
  return {
    ok: true,
    chosen: {
      kind: 'native',
      serverOptions: { command: resolved.command, args: ['--log-level', config.get<string>('logLevel') ?? 'info'] },
      describe: `the native server ${probe.version} (${resolved.source}: ${resolved.command})`,
    },
  };
}

/** The WebAssembly server this extension carries, run by Node.js with node:wasi; or why it cannot run. */
function wasmServer(config: vscode.WorkspaceConfiguration): { ok: true; chosen: Chosen } | { ok: false; message: string } {
  const bundledDir = path.join(extensionPath, 'bundled');
  const wasm = resolveWasmServer(bundledDir);
  if (!wasm.ok) return wasm;
  const args = ['--log-level', config.get<string>('logLevel') ?? 'info'];
  // Its rule pages: the manual this extension carries (the module cannot find it by itself).
  const manual = path.join(bundledDir, 'share', 'doc', 'asyncfix');
  if (fs.existsSync(path.join(manual, 'rules'))) args.push('--docs-url', pathToFileURL(manual).href);
  return {
    ok: true,
    chosen: {
      kind: 'wasm',
      // vscode-languageclient forks the launcher with the Node.js that runs this extension.
      serverOptions: {
        module: wasm.launcher,
        transport: TransportKind.stdio,
        args,
        options: { env: { ...process.env, ASYNCFIX_WASM_DIR: wasm.directory } },
      },
      describe: `the WebAssembly server (${wasm.launcher} under Node.js ${process.versions.node})`,
    },
  };
}

function showServer(chosen: Chosen | undefined, why?: string): void {
  if (!chosen) {
    status.text = '$(error) asyncfix';
    status.tooltip = `asyncfix: no server runs${why ? `: ${why}` : ''}`;
  } else {
    status.text = chosen.kind === 'wasm' ? '$(check) asyncfix (WebAssembly)' : '$(check) asyncfix';
    status.tooltip = `asyncfix: ${chosen.describe}${why ? `\n${why}` : ''}\nClick to show the output.`;
  }
  status.show();
}

async function start(): Promise<void> {
  const config = vscode.workspace.getConfiguration('asyncfix');
  const kind = serverKind(config.get<string>('server'));
  const fail = (message: string) => {
    output.error(message);
    showServer(undefined, message);
    // Not awaited: activation must not wait for the user to answer.
    void vscode.window.showErrorMessage(`asyncfix: ${message}`, 'Open Settings', 'Show Output').then((choice) => {
      if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'asyncfix.');
      if (choice === 'Show Output') output.show();
    });
  };
  let chosen: Chosen | undefined;
  let why: string | undefined;
  if (kind !== 'wasm') {
    const native = await nativeServer(config);
    // A server named in `asyncfix.path` is the user's choice: its failure is not covered up.
    if (native.ok) chosen = native.chosen;
    else if (kind === 'native' || (config.get<string>('path') ?? '').trim() !== '') return fail(native.message);
    else why = `no native server runs here (${native.message})`;
  }
  if (!chosen) {
    const wasm = wasmServer(config);
    if (!wasm.ok) return fail(why ? `${why}, and ${wasm.message}` : wasm.message);
    chosen = wasm.chosen;
  }
  output.info(`using ${chosen.describe}${why ? `: ${why}` : ''} (asyncfix.server: ${kind})`);
  showServer(chosen, why);
  initialSettings = currentSettings();
  const clientOptions: LanguageClientOptions = {
    // Python files on disk and unsaved ones, and the Python cells of Jupyter notebooks: the
    // server declares notebookDocumentSync, so the client sends those notebooks as
    // notebookDocument/* (the cells linted together, as the CLI lints an .ipynb file), and this
    // filter lets hover and code actions reach the cells.
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
      { notebook: { notebookType: 'jupyter-notebook' }, language: 'python' },
    ],
    outputChannel: output,
    traceOutputChannel: output,
    initializationOptions: { asyncfix: initialSettings },
    diagnosticCollectionName: 'asyncfix',
  };
  // If the server stops (a crash, or a trap in the WebAssembly module, which its launcher
  // reports on stderr, in this output), the client starts it again and opens the open documents
  // in it with their current text, saved or not.
  const next = new LanguageClient('asyncfix', 'asyncfix', chosen.serverOptions, clientOptions);
  const command = 'command' in chosen.serverOptions ? chosen.serverOptions.command : 'module' in chosen.serverOptions ? chosen.serverOptions.module : '';
  const args = 'args' in chosen.serverOptions ? (chosen.serverOptions.args ?? []) : [];
  output.info(`starting ${command} ${args.join(' ')}`);
  try {
    await next.start();
    client = next;
  } catch (error) {
    output.error(`the server did not start: ${String(error)}`);
    showServer(undefined, `the server did not start: ${String(error)}`);
    void vscode.window.showErrorMessage(`asyncfix: the server did not start (${command}); see the output`, 'Show Output').then(
      (choice) => choice && output.show(),
    );
    await next.dispose().catch(() => undefined);
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (!running) return;
  try {
    await running.stop(2000);
  } catch (error) {
    output.warn(`stopping the server: ${String(error)}`);
  }
  await running.dispose().catch(() => undefined);
}

function restart(): Promise<void> {
  return serialized(async () => {
    await stop();
    await start();
  });
}

/** The running client, or a message saying there is none. */
function runningClient(): LanguageClient | undefined {
  if (client?.isRunning()) return client;
  void vscode.window.showWarningMessage('asyncfix: the server is not running', 'Restart Server', 'Show Output').then((choice) => {
    if (choice === 'Restart Server') void restart();
    if (choice === 'Show Output') output.show();
  });
  return undefined;
}

/** Runs one of the server's commands; the server sends its edits back with workspace/applyEdit. */
async function executeServerCommand(command: string, args: unknown[]): Promise<void> {
  const running = runningClient();
  if (!running) return;
  try {
    await running.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  } catch (error) {
    const message = error instanceof ResponseError ? error.message : String(error);
    output.error(`${command}: ${message}`);
    void vscode.window.showErrorMessage(`asyncfix: ${message}`);
  }
}

async function fixAllInFile(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'python') {
    void vscode.window.showInformationMessage('asyncfix: open a Python file first');
    return;
  }
  const { uri, version } = editor.document;
  await executeServerCommand(applyAutofix, [{ uri: uri.toString(), version }]);
}

async function fixAllInWorkspace(): Promise<void> {
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'asyncfix: fixing the workspace' },
    () => executeServerCommand(fixWorkspace, []),
  );
}

function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
  if (!event.affectsConfiguration('asyncfix')) return;
  if (restartKeys.some((key) => event.affectsConfiguration(key))) {
    void restart();
    return;
  }
  if (!serverKeys.some((key) => event.affectsConfiguration(`asyncfix.${key}`))) return; // trace.server: the client's
  void serialized(async () => {
    if (!client?.isRunning()) return;
    const settings = currentSettings();
    if (changeNeedsRestart(initialSettings, settings)) {
      await stop();
      await start();
      return;
    }
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { asyncfix: settings } });
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('asyncfix', { log: true });
  status = vscode.window.createStatusBarItem('asyncfix.server', vscode.StatusBarAlignment.Right, 0);
  status.name = 'asyncfix server';
  status.command = 'asyncfix.showOutput';
  extensionPath = context.extensionPath;
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand('asyncfix.fixAllInFile', fixAllInFile),
    vscode.commands.registerCommand('asyncfix.fixAllInWorkspace', fixAllInWorkspace),
    vscode.commands.registerCommand('asyncfix.restart', restart),
    vscode.commands.registerCommand('asyncfix.showOutput', () => output.show()),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
  );
  await serialized(start);
}

export function deactivate(): Promise<void> {
  return serialized(stop);
}
