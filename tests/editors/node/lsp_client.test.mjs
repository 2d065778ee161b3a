// The real `asyncfix-lsp`, driven over stdio by the protocol library VS Code itself uses
// (vscode-languageserver-protocol on vscode-jsonrpc): push diagnostics with UTF-16 columns, a quick
// fix applied, pull diagnostics, source.fixAll.asyncfix (inline and through codeAction/resolve),
// asyncfix.applyAutofix and asyncfix.fixWorkspace answered with workspace/applyEdit, hover,
// shutdown. Every reply is checked with the protocol library's own type guards.
//
//   ctest --preset ci -R editors.node   (or: cd tests/editors/node && npm ci && ASYNCFIX_LSP_BIN=… node --test)
import { spawn } from 'node:child_process';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import * as lsp from 'vscode-languageserver-protocol/node.js';
import { TextDocument } from 'vscode-languageserver-textdocument';

// The workspace and the expected files; CTest runs a copy of this file next to its node_modules.
const here = process.env.ASYNCFIX_NODE_TEST_DIR ?? path.dirname(fileURLToPath(import.meta.url));
const serverBin = process.env.ASYNCFIX_LSP_BIN;
if (!serverBin) throw new Error('set ASYNCFIX_LSP_BIN to the asyncfix-lsp executable');
const timeoutMs = 20000;

/** A fresh copy of tests/editors/node/workspace in a temporary directory. */
function copyWorkspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncfix-node-client-'));
  fs.cpSync(path.join(here, 'workspace'), dir, { recursive: true });
  return dir;
}

const uriOf = (file) => pathToFileURL(file).toString();

/** Rejects when `promise` takes longer than timeoutMs, naming what was awaited. */
function within(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The 0-based line holding `needle` in `text`, and the UTF-16 column (JS string index) of `token` on it. */
function locate(text, needle, token, nth = 0) {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  assert.ok(line >= 0, `no line with ${needle}`);
  let column = -1;
  for (let i = 0; i <= nth; ++i) column = lines[line].indexOf(token, column + 1);
  assert.ok(column >= 0, `no ${token} on line ${line}`);
  return { line, character: column };
}

/** Checks a value with one of the protocol library's type guards. */
function assertShape(guard, value, what) {
  assert.ok(guard(value), `${what} is not a valid ${guard.name || 'protocol value'}: ${JSON.stringify(value)}`);
}

/** A Diagnostic as the server must send it: the protocol's shape plus asyncfix's fields. */
function checkDiagnostic(d) {
  assertShape(lsp.Diagnostic.is, d, 'diagnostic');
  assert.equal(d.source, 'asyncfix');
  assert.match(String(d.code), /^AF\d{3}$/);
  assert.ok(lsp.CodeDescription.is(d.codeDescription), `codeDescription of ${d.code}`);
  assert.ok([1, 2, 3, 4].includes(d.severity), `severity of ${d.code}`);
}

/** Applies a WorkspaceEdit to the documents and files it names: open documents in `docs` (by URI), others on disk. */
function applyWorkspaceEdit(edit, docs) {
  assertShape(lsp.WorkspaceEdit.is, edit, 'workspace edit');
  const changes = [];
  if (edit.documentChanges) {
    for (const change of edit.documentChanges) {
      assertShape(lsp.TextDocumentEdit.is, change, 'document change');
      changes.push([change.textDocument.uri, change.textDocument.version, change.edits]);
    }
  } else {
    for (const [uri, edits] of Object.entries(edit.changes ?? {})) changes.push([uri, null, edits]);
  }
  for (const [uri, version, edits] of changes) {
    edits.forEach((e) => assertShape(lsp.TextEdit.is, e, 'text edit'));
    const open = docs.get(uri);
    if (open) {
      if (version !== null) assert.equal(version, open.version, `edit for ${uri} is for version ${version}`);
      docs.set(uri, TextDocument.create(uri, open.languageId, open.version, TextDocument.applyEdits(open, edits)));
    } else {
      const file = fileURLToPath(uri);
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, TextDocument.applyEdits(TextDocument.create(uri, 'python', 0, text), edits));
    }
  }
  return changes.map(([uri]) => uri);
}

/** One running asyncfix-lsp and a protocol connection to it, acting as an editor. */
class Session {
  constructor(root, { pull = false, resolve = false, settings = {} } = {}) {
    this.root = root;
    this.pull = pull;
    this.resolve = resolve;
    this.settings = settings;
    this.docs = new Map(); // uri → TextDocument: what the editor shows
    this.published = new Map(); // uri → the latest publishDiagnostics params
    this.waiters = [];
    this.progress = [];
    this.appliedEdits = [];
    this.stderr = '';
    this.shown = []; // window/showMessage texts: none expected, every setting here is valid
  }

  async start() {
    this.process = spawn(serverBin, ['--log-level', 'debug'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.process.stderr.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.process.on('exit', (code, signal) => resolve({ code, signal })));
    this.connection = lsp.createProtocolConnection(
      new lsp.StreamMessageReader(this.process.stdout),
      new lsp.StreamMessageWriter(this.process.stdin),
    );
    const c = this.connection;
    c.onNotification(lsp.PublishDiagnosticsNotification.type, (params) => {
      params.diagnostics.forEach(checkDiagnostic);
      this.published.set(params.uri, params);
      this.notify();
    });
    c.onNotification(lsp.LogMessageNotification.type, () => {});
    c.onNotification(lsp.ShowMessageNotification.type, (params) => this.shown.push(params.message));
    c.onRequest(lsp.WorkDoneProgressCreateRequest.type, (params) => {
      assert.ok(lsp.ProgressToken.is(params.token), 'progress token');
      return null;
    });
    c.onNotification('$/progress', (params) => {
      this.progress.push(params);
      this.notify();
    });
    c.onRequest(lsp.RegistrationRequest.type, () => null);
    c.onRequest(lsp.ApplyWorkspaceEditRequest.type, (params) => {
      this.appliedEdits.push({ label: params.label, uris: applyWorkspaceEdit(params.edit, this.docs) });
      this.notify();
      return { applied: true };
    });
    c.listen();

    const capabilities = {
      general: { positionEncodings: ['utf-16'] },
      textDocument: {
        synchronization: { dynamicRegistration: false, didSave: true },
        publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
        codeAction: {
          codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'source', 'source.fixAll'] } },
          isPreferredSupport: true,
          dataSupport: true,
          ...(this.resolve ? { resolveSupport: { properties: ['edit'] } } : {}),
        },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        ...(this.pull ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } } : {}),
      },
      workspace: {
        applyEdit: true,
        workspaceEdit: { documentChanges: true },
        workspaceFolders: true,
        configuration: false,
        didChangeWatchedFiles: { dynamicRegistration: true },
      },
      window: { workDoneProgress: true },
    };
    const result = await within(
      c.sendRequest(lsp.InitializeRequest.type, {
        processId: process.pid,
        clientInfo: { name: 'asyncfix node protocol test' },
        rootUri: uriOf(this.root),
        workspaceFolders: [{ uri: uriOf(this.root), name: 'workspace' }],
        capabilities,
        initializationOptions: { asyncfix: this.settings },
      }),
      'initialize',
    );
    await c.sendNotification(lsp.InitializedNotification.type, {});
    return result;
  }

  notify() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves with predicate()'s value once it is truthy, re-checked after every server message. */
  async until(predicate, what) {
    return within(
      new Promise((resolve) => {
        const check = () => {
          const value = predicate();
          if (value) resolve(value);
          else this.waiters.push(check);
        };
        check();
      }),
      what,
    );
  }

  async open(file) {
    const uri = uriOf(file);
    const doc = TextDocument.create(uri, 'python', 1, fs.readFileSync(file, 'utf8'));
    this.docs.set(uri, doc);
    await this.connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'python', version: doc.version, text: doc.getText() },
    });
    return uri;
  }

  /** Applies `edits` (TextEdits of the current version) in the editor and sends them as incremental changes. */
  async edit(uri, edits) {
    const before = this.docs.get(uri);
    const after = TextDocument.create(uri, 'python', before.version + 1, TextDocument.applyEdits(before, edits));
    return this.replace(uri, before, after, edits);
  }

  /** Syncs the editor's document `uri`, already changed to `after`, by sending `edits` of `before`. */
  async replace(uri, before, after, edits) {
    // Later edits first, so each range still means the same text when the server applies it.
    const ordered = [...edits].sort((a, b) => before.offsetAt(b.range.start) - before.offsetAt(a.range.start));
    this.docs.set(uri, after);
    await this.connection.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: after.version },
      contentChanges: ordered.map((e) => ({ range: e.range, text: e.newText })),
    });
  }

  async diagnosticsFor(uri, version) {
    const params = await this.until(() => {
      const p = this.published.get(uri);
      return p && p.version === version ? p : undefined;
    }, `diagnostics of ${uri} version ${version}`);
    return params.diagnostics;
  }

  async codeActions(uri, range, diagnostics, only) {
    const actions = await within(
      this.connection.sendRequest(lsp.CodeActionRequest.type, {
        textDocument: { uri },
        range,
        context: { diagnostics, ...(only ? { only } : {}), triggerKind: lsp.CodeActionTriggerKind.Invoked },
      }),
      'textDocument/codeAction',
    );
    assert.ok(Array.isArray(actions), 'codeAction result is an array');
    for (const a of actions) {
      if (a.data !== undefined && a.edit === undefined) {
        assert.equal(typeof a.title, 'string');
        assert.equal(typeof a.kind, 'string');
      } else {
        assertShape(lsp.CodeAction.is, a, 'code action');
      }
    }
    return actions;
  }

  async shutdown() {
    await within(this.connection.sendRequest(lsp.ShutdownRequest.type), 'shutdown');
    await this.connection.sendNotification(lsp.ExitNotification.type);
    const { code } = await within(this.exited, 'the server to exit');
    this.connection.dispose();
    return code;
  }

  kill() {
    if (this.process && this.process.exitCode === null) this.process.kill('SIGKILL');
  }
}

describe('asyncfix-lsp with push diagnostics (VS Code without pull support, Neovim, Emacs)', () => {
  let root, session, train, trainUri, source;
  before(async () => {
    root = copyWorkspace();
    session = new Session(root);
    const result = await session.start();
    assert.equal(result.capabilities.positionEncoding ?? 'utf-16', 'utf-16');
    assert.equal(result.serverInfo?.name, 'asyncfix');
    const kinds = result.capabilities.codeActionProvider?.codeActionKinds ?? [];
    assert.ok(kinds.includes('quickfix') && kinds.includes('source.fixAll.asyncfix'), `code action kinds ${kinds}`);
    assert.deepEqual([...result.capabilities.executeCommandProvider.commands].sort(), [
      'asyncfix.applyAutofix',
      'asyncfix.fixWorkspace',
    ]);
    assert.equal(result.capabilities.diagnosticProvider, undefined, 'no pull diagnostics for a push client');
    train = path.join(root, 'train.py');
    source = fs.readFileSync(train, 'utf8');
    trainUri = await session.open(train);
  });
  after(() => {
    session.kill();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('publishes each finding with its code and UTF-16 range, also after multi-byte characters', async () => {
    const diagnostics = await session.diagnosticsFor(trainUri, 1);
    const found = diagnostics.map((d) => `${d.code} ${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character}`);
    const at = (needle, token, code, nth = 0) => {
      const start = locate(source, needle, token, nth);
      return `${code} ${start.line}:${start.character}-${start.line}:${start.character + 5}`;
    };
    const expected = [
      at('batch = batch.cuda(async=True)', 'async', 'AF101'),
      // `async` after "températures 🌡️": JS string indices are UTF-16 code units, as the protocol's.
      at('label = "températures', 'async', 'AF101'),
      at('    async = True', 'async', 'AF001'),
      at('return batch.cuda(async=async)', 'async', 'AF101'),
      at('return batch.cuda(async=async)', 'async', 'AF001', 1),
      at('def to_gpu(tensor, async=False)', 'async', 'AF001'),
      at('return tensor.cuda(async=async)', 'async', 'AF101'),
      at('return tensor.cuda(async=async)', 'async', 'AF001', 1),
    ];
    assert.deepEqual([...found].sort(), [...expected].sort());
    // The multi-byte line, spelled out: 'é' is one UTF-16 unit (2 bytes), '🌡' two (4 bytes), U+FE0F one (3 bytes).
    const multi = diagnostics.find((d) => d.range.start.line === locate(source, 'températures', 'async').line);
    assert.equal(multi.range.start.character, 53);
    const deprecated = diagnostics.filter((d) => d.code === 'AF101');
    assert.ok(deprecated.every((d) => d.tags?.includes(lsp.DiagnosticTag.Deprecated)), 'AF101 is tagged Deprecated');
    // Each links to the rule's page in the manual, which exists (the build tree links the repository's docs/).
    for (const d of diagnostics) {
      assert.ok(d.codeDescription.href.startsWith('file://'), d.codeDescription.href);
      assert.ok(d.codeDescription.href.endsWith(`/rules/${d.code}.md`), d.codeDescription.href);
      assert.ok(fs.existsSync(fileURLToPath(d.codeDescription.href)), d.codeDescription.href);
    }
  });

  test('offers a preferred quick fix for the finding after the multi-byte characters, and applying it clears that finding', async () => {
    const diagnostics = await session.diagnosticsFor(trainUri, 1);
    const line = locate(source, 'températures', 'async').line;
    const target = diagnostics.find((d) => d.code === 'AF101' && d.range.start.line === line);
    const actions = await session.codeActions(trainUri, target.range, [target]);
    const titles = actions.map((a) => a.title);
    assert.ok(titles.includes('Disable AF101 for this line'), `titles: ${titles}`);
    const fix = actions.find((a) => a.kind === 'quickfix' && a.isPreferred);
    assert.ok(fix, `a preferred quick fix among ${titles}`);
    assert.match(fix.title, /non_blocking/);
    assert.deepEqual(fix.diagnostics.map((d) => d.code), ['AF101']);
    const change = fix.edit.documentChanges[0];
    assert.equal(change.textDocument.uri, trainUri);
    assert.equal(change.textDocument.version, 1);
    const before = session.docs.get(trainUri);
    await session.edit(trainUri, change.edits);
    const text = session.docs.get(trainUri).getText();
    assert.equal(text.split('\n')[line], '    label = "températures 🌡️"; target = target.cuda(non_blocking=True)');
    assert.equal(text.split('\n').filter((l, i) => l !== before.getText().split('\n')[i]).length, 1, 'only that line changed');
    const now = await session.diagnosticsFor(trainUri, 2);
    assert.equal(now.length, 7);
    assert.ok(!now.some((d) => d.range.start.line === line), 'the fixed line has no finding left');
  });

  test('hover on a finding shows the rule in Markdown', async () => {
    const start = locate(session.docs.get(trainUri).getText(), 'batch = batch.cuda(async=True)', 'async');
    const hover = await within(
      session.connection.sendRequest(lsp.HoverRequest.type, { textDocument: { uri: trainUri }, position: start }),
      'hover',
    );
    assertShape(lsp.Hover.is, hover, 'hover');
    assert.equal(hover.contents.kind, 'markdown');
    assert.match(hover.contents.value, /AF101/);
    assert.deepEqual(hover.range.start, start);
  });

  test('source.fixAll.asyncfix applies every safe fix and leaves the unsafe rename', async () => {
    const doc = session.docs.get(trainUri);
    const whole = { start: { line: 0, character: 0 }, end: doc.positionAt(doc.getText().length) };
    const actions = await session.codeActions(trainUri, whole, [], ['source.fixAll.asyncfix']);
    assert.equal(actions.length, 1);
    assert.equal(actions[0].kind, 'source.fixAll.asyncfix');
    applyWorkspaceEdit(actions[0].edit, session.docs);
    const fixed = session.docs.get(trainUri);
    const expected = fs.readFileSync(path.join(here, 'expected', 'train.fixall.py'), 'utf8');
    assert.equal(fixed.getText(), expected);
    // Keep the server in step with what the editor now shows.
    const synced = TextDocument.create(trainUri, 'python', doc.version + 1, fixed.getText());
    await session.replace(trainUri, doc, synced, actions[0].edit.documentChanges[0].edits);
    const left = await session.diagnosticsFor(trainUri, doc.version + 1);
    assert.deepEqual(left.map((d) => d.code), ['AF001', 'AF001'], 'only the unsafe rename of a public parameter is left');
  });

  test('shutdown and exit end the server with status 0', async () => {
    assert.deepEqual(session.shown, []);
    assert.equal(await session.shutdown(), 0, session.stderr);
  });
});

describe('asyncfix-lsp with pull diagnostics and resolved code actions (what VS Code declares)', () => {
  let root, session, trainUri;
  before(async () => {
    root = copyWorkspace();
    session = new Session(root, { pull: true, resolve: true, settings: { unsafeFixes: true } });
    const result = await session.start();
    const provider = result.capabilities.diagnosticProvider;
    assert.ok(provider && typeof provider.interFileDependencies === 'boolean' && typeof provider.workspaceDiagnostics === 'boolean',
      `diagnosticProvider ${JSON.stringify(provider)}`);
    trainUri = await session.open(path.join(root, 'train.py'));
  });
  after(() => {
    session.kill();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('textDocument/diagnostic answers a full report, then unchanged for the same result id', async () => {
    const report = await within(
      session.connection.sendRequest(lsp.DocumentDiagnosticRequest.type, { textDocument: { uri: trainUri } }),
      'textDocument/diagnostic',
    );
    assert.equal(report.kind, lsp.DocumentDiagnosticReportKind.Full);
    assert.equal(typeof report.resultId, 'string');
    report.items.forEach(checkDiagnostic);
    assert.deepEqual(report.items.map((d) => d.code).sort(), ['AF001', 'AF001', 'AF001', 'AF001', 'AF101', 'AF101', 'AF101', 'AF101']);
    const again = await session.connection.sendRequest(lsp.DocumentDiagnosticRequest.type, {
      textDocument: { uri: trainUri },
      previousResultId: report.resultId,
    });
    assert.deepEqual(again, { kind: lsp.DocumentDiagnosticReportKind.Unchanged, resultId: report.resultId });
    assert.equal(session.published.size, 0, 'a pull client gets no publishDiagnostics');
  });

  test('source.fixAll.asyncfix is resolved with codeAction/resolve', async () => {
    const doc = session.docs.get(trainUri);
    const whole = { start: { line: 0, character: 0 }, end: doc.positionAt(doc.getText().length) };
    const [action, ...rest] = await session.codeActions(trainUri, whole, [], ['source.fixAll.asyncfix']);
    assert.equal(rest.length, 0);
    assert.equal(action.edit, undefined, 'the edit is computed on resolve');
    const resolved = await within(session.connection.sendRequest(lsp.CodeActionResolveRequest.type, action), 'codeAction/resolve');
    assertShape(lsp.CodeAction.is, resolved, 'resolved code action');
    const edited = TextDocument.applyEdits(doc, resolved.edit.documentChanges[0].edits);
    assert.equal(edited, fs.readFileSync(path.join(here, 'expected', 'train.fixall.py'), 'utf8'));
  });

  test('asyncfix.applyAutofix fixes the open document through workspace/applyEdit, unsafe fixes included', async () => {
    const doc = session.docs.get(trainUri);
    const reply = await within(
      session.connection.sendRequest(lsp.ExecuteCommandRequest.type, {
        command: 'asyncfix.applyAutofix',
        arguments: [{ uri: trainUri, version: doc.version }],
      }),
      'asyncfix.applyAutofix',
    );
    assert.equal(reply, null);
    await session.until(() => session.appliedEdits.length === 1, 'workspace/applyEdit');
    assert.deepEqual(session.appliedEdits[0].uris, [trainUri]);
    assert.equal(session.docs.get(trainUri).getText(), fs.readFileSync(path.join(here, 'expected', 'train.fixed.py'), 'utf8'));
  });

  test('asyncfix.fixWorkspace fixes the files on disk with one applyEdit and reports progress', async () => {
    // The editor syncs the applied fix first, as VS Code does after workspace/applyEdit.
    const doc = session.docs.get(trainUri);
    await session.connection.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
      textDocument: { uri: trainUri, version: doc.version + 1 },
      contentChanges: [{ text: doc.getText() }],
    });
    session.docs.set(trainUri, TextDocument.create(trainUri, 'python', doc.version + 1, doc.getText()));
    const reply = await within(
      session.connection.sendRequest(lsp.ExecuteCommandRequest.type, { command: 'asyncfix.fixWorkspace', arguments: [] }),
      'asyncfix.fixWorkspace',
    );
    assert.equal(reply, null);
    await session.until(() => session.appliedEdits.length === 2, 'the workspace edit');
    const loader = path.join(root, 'pkg', 'loader.py');
    assert.deepEqual(session.appliedEdits[1].uris, [uriOf(loader)], 'only the file with findings left');
    assert.equal(fs.readFileSync(loader, 'utf8'), fs.readFileSync(path.join(here, 'expected', 'loader.fixed.py'), 'utf8'));
    const kinds = session.progress.map((p) => p.value.kind);
    assert.equal(kinds[0], 'begin');
    assert.equal(kinds.at(-1), 'end');
    assert.ok(kinds.slice(1, -1).every((k) => k === 'report'));
    assert.match(session.progress.at(-1).value.message, /Fixed 2 problems in 1 file/);
    // Pulling the workspace's diagnostics now finds nothing left.
    const workspace = await within(
      session.connection.sendRequest(lsp.WorkspaceDiagnosticRequest.type, { previousResultIds: [] }),
      'workspace/diagnostic',
    );
    for (const item of workspace.items) {
      assert.equal(item.kind, 'full');
      assert.deepEqual(item.items, [], `${item.uri} has no findings left`);
    }
    assert.deepEqual(workspace.items.map((i) => path.basename(fileURLToPath(i.uri))).sort(), ['loader.py', 'train.py']);
  });

  test('an unknown command is an InvalidParams error and the server keeps serving', async () => {
    await assert.rejects(
      session.connection.sendRequest(lsp.ExecuteCommandRequest.type, { command: 'asyncfix.nope', arguments: [] }),
      (error) => error.code === lsp.ErrorCodes.InvalidParams,
    );
    assert.deepEqual(session.shown, []);
    assert.equal(await session.shutdown(), 0, session.stderr);
  });
});

describe('asyncfix-lsp with a Jupyter notebook (notebookDocument/*)', () => {
  let root, session;
  const nbUri = 'file:///notebooks/train.ipynb';
  const cell = (n) => `vscode-notebook-cell:/notebooks/train.ipynb#W${n}sZmlsZQ`;
  const texts = [
    'import torch\n\ndef to_gpu(batch):\n    return batch.cuda(async=True)\n',
    'Markdown about `x.cuda(async=True)`.\n',
    '%time y = 1\nx = to_gpu(torch.ones(2))\ny = x.cpu(async=True)\n',
  ];
  before(async () => {
    root = copyWorkspace();
    session = new Session(root);
    const result = await session.start();
    const sync = result.capabilities.notebookDocumentSync;
    assert.deepEqual(sync?.notebookSelector?.[0]?.notebook, { notebookType: 'jupyter-notebook' });
    assert.deepEqual(sync?.notebookSelector?.[0]?.cells, [{ language: 'python' }]);
    assert.ok(result.capabilities.codeActionProvider.codeActionKinds.includes('notebook.source.fixAll.asyncfix'));
    const languages = ['python', 'markdown', 'python'];
    texts.forEach((text, i) => session.docs.set(cell(i), TextDocument.create(cell(i), languages[i], 1, text)));
    await session.connection.sendNotification('notebookDocument/didOpen', {
      notebookDocument: {
        uri: nbUri, notebookType: 'jupyter-notebook', version: 1,
        cells: texts.map((_, i) => ({ kind: i === 1 ? 1 : 2, document: cell(i) })),
      },
      cellTextDocuments: texts.map((text, i) => ({ uri: cell(i), languageId: languages[i], version: 1, text })),
    });
  });

  test('diagnostics are published per cell, in the cell\'s own positions', async () => {
    const first = await session.diagnosticsFor(cell(0), 1);
    assert.deepEqual(first.map((d) => [d.code, d.range.start]), [['AF101', locate(texts[0], 'batch.cuda', 'async')]]);
    const third = await session.diagnosticsFor(cell(2), 1);
    // The IPython line is left alone; `.cpu(async=…)` is AF102.
    assert.deepEqual(third.map((d) => [d.code, d.range.start]), [['AF102', locate(texts[2], 'x.cpu', 'async')]]);
    assert.equal(session.published.get(cell(1)), undefined, 'markdown cells get nothing');
  });

  test('a quick fix edits the cell, and typing in a cell is synchronized incrementally', async () => {
    const [d] = await session.diagnosticsFor(cell(0), 1);
    const actions = await session.codeActions(cell(0), d.range, [d]);
    const fix = actions.find((a) => a.kind === 'quickfix' && a.isPreferred);
    assert.ok(fix, `a preferred quick fix among ${actions.map((a) => a.title)}`);
    const uris = applyWorkspaceEdit(fix.edit, session.docs);
    assert.deepEqual(uris, [cell(0)]);
    const fixed = session.docs.get(cell(0)).getText();
    assert.match(fixed, /batch\.cuda\(non_blocking=True\)/);
    // The editor sends the applied edit back as a notebook change (cell version 2).
    await session.connection.sendNotification('notebookDocument/didChange', {
      notebookDocument: { uri: nbUri, version: 2 },
      change: { cells: { textContent: [{ document: { uri: cell(0), version: 2 },
        changes: fix.edit.documentChanges[0].edits.map((e) => ({ range: e.range, text: e.newText })) }] } },
    });
    assert.deepEqual(await session.diagnosticsFor(cell(0), 2), []);
    assert.equal((await session.diagnosticsFor(cell(2), 1)).length, 1, 'the other cell keeps its finding');
  });

  test('closing the notebook clears every cell', async () => {
    await session.connection.sendNotification('notebookDocument/didClose', {
      notebookDocument: { uri: nbUri }, cellTextDocuments: texts.map((_, i) => ({ uri: cell(i) })),
    });
    await session.until(() => session.published.get(cell(2))?.diagnostics.length === 0, 'cleared diagnostics');
    assert.equal(await session.shutdown(), 0, session.stderr);
  });
});
