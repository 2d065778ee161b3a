// The asyncfix extension in VS Code for the Web (package.json's `browser` entry point; it runs in
// the browser's Web Worker extension host, where no process can be started). No language server:
// the C API, compiled to WebAssembly for the browser (module.ts), lints each Python document and
// each Jupyter notebook whole when it opens or changes (debounced), and the diagnostics' fixes are
// the quick fixes; "Fix all problems in this file" and `source.fixAll.asyncfix` run its fix().
// Given up against the desktop extension: incremental analysis, hover, "Disable … for this line",
// the workspace commands, and configuration files (the settings come from VS Code only).
import * as vscode from 'vscode';

import { serverSettings } from '../settings';
import { CellInput, notebookCellTexts, notebookJson, optionsJson, ReportDiagnostic, ReportEdit, utf16Column } from './convert';
import { AsyncfixWasm } from './module';

const describe = 'asyncfix (WebAssembly, in the browser)';
const debounceMs = 200;
const fixAllKind = vscode.CodeActionKind.SourceFixAll.append('asyncfix');

let output: vscode.LogOutputChannel;
let diagnostics: vscode.DiagnosticCollection;
let api: AsyncfixWasm | undefined;
// The fixes of the findings shown, by document URI: each with the diagnostic it belongs to and the
// version of every document its edits were computed against.
type Fixable = { diagnostic: vscode.Diagnostic; title: string; safe: boolean; edit: vscode.WorkspaceEdit; versions: Map<string, number> };
const fixes = new Map<string, Fixable[]>();
const timers = new Map<string, ReturnType<typeof setTimeout>>();
// How long the last lint of each unit took: the wait after a change is at least that long, so a
// large file that takes seconds is linted when typing pauses, not after every keystroke.
const costs = new Map<string, number>();
// The documents each unit's last lint reported on (a notebook's cells).
const linted = new Map<string, string[]>();

function settings() {
  const config = vscode.workspace.getConfiguration('asyncfix');
  const s = serverSettings((key) => config.inspect(key));
  return { options: optionsJson(s), unsafe: s.unsafeFixes === true };
}

/** What is linted for a document: itself, or the notebook it is a cell of. */
type Unit = { kind: 'text'; document: vscode.TextDocument } | { kind: 'notebook'; notebook: vscode.NotebookDocument };

function unitOf(document: vscode.TextDocument): Unit | undefined {
  if (document.languageId !== 'python') return undefined;
  if (document.uri.scheme === 'vscode-notebook-cell') {
    const notebook = vscode.workspace.notebookDocuments.find((n) => n.getCells().some((c) => c.document === document));
    return notebook && notebook.notebookType === 'jupyter-notebook' ? { kind: 'notebook', notebook } : undefined;
  }
  return { kind: 'text', document };
}

const unitKey = (unit: Unit) => (unit.kind === 'text' ? unit.document.uri : unit.notebook.uri).toString();

function cellsOf(notebook: vscode.NotebookDocument): CellInput[] {
  return notebook.getCells().map((c) => ({
    kind: c.kind === vscode.NotebookCellKind.Markup ? 'markup' : 'code',
    language: c.document.languageId,
    text: c.document.getText(),
  }));
}

/** The text document a report position is in: the document, or the notebook's cell `cell` (1-based). */
function documentAt(unit: Unit, cell: number | undefined): vscode.TextDocument | undefined {
  if (unit.kind === 'text') return unit.document;
  return cell === undefined ? undefined : unit.notebook.getCells()[cell - 1]?.document;
}

function position(document: vscode.TextDocument, row: number, column: number): vscode.Position {
  const line = row - 1;
  if (line >= document.lineCount) return document.lineAt(document.lineCount - 1).range.end;
  return new vscode.Position(line, utf16Column(document.lineAt(line).text, column));
}

function range(document: vscode.TextDocument, at: { location: ReportEdit['location']; end_location: ReportEdit['location'] }): vscode.Range {
  return new vscode.Range(position(document, at.location.row, at.location.column), position(document, at.end_location.row, at.end_location.column));
}

const severities: Record<string, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

async function lintUnit(unit: Unit): Promise<void> {
  if (!api) return;
  const { options } = settings();
  const documents = unit.kind === 'text' ? [unit.document] : unit.notebook.getCells().map((c) => c.document);
  const versions = new Map(documents.map((d) => [d.uri.toString(), d.version]));
  let report: ReportDiagnostic[];
  const started = Date.now();
  try {
    report =
      unit.kind === 'text'
        ? await api.lint(unit.document.getText(), pathOf(unit.document.uri, '.py'), options)
        : await api.lint(notebookJson(cellsOf(unit.notebook)), pathOf(unit.notebook.uri, '.ipynb'), options);
  } catch (error) {
    output.error(`${unitKey(unit)}: ${error instanceof Error ? error.message : String(error)}`);
    for (const d of documents) diagnostics.delete(d.uri);
    return;
  }
  costs.set(unitKey(unit), Date.now() - started);
  // Stale: a document or the notebook's cells changed while it was linted (the change schedules
  // another lint).
  if (documents.some((d) => d.version !== versions.get(d.uri.toString()))) return;
  if (unit.kind === 'notebook') {
    const cells = unit.notebook.getCells();
    if (cells.length !== documents.length || cells.some((c, i) => c.document !== documents[i])) return;
  }
  const byDocument = new Map<string, { diagnostics: vscode.Diagnostic[]; fixes: Fixable[] }>(
    documents.map((d) => [d.uri.toString(), { diagnostics: [], fixes: [] }]),
  );
  for (const found of report) {
    const document = documentAt(unit, found.cell);
    if (!document) continue;
    const diagnostic = new vscode.Diagnostic(range(document, found), found.message, severities[found.severity] ?? vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'asyncfix';
    diagnostic.code = found.url && /^https?:/.test(found.url) ? { value: found.code, target: vscode.Uri.parse(found.url) } : found.code;
    const entry = byDocument.get(document.uri.toString());
    if (!entry) continue;
    entry.diagnostics.push(diagnostic);
    if (found.fix && found.fix.edits.length > 0) {
      const edit = new vscode.WorkspaceEdit();
      let complete = true;
      for (const e of found.fix.edits) {
        const target = documentAt(unit, e.cell ?? found.cell);
        if (!target) complete = false;
        else edit.replace(target.uri, range(target, e), e.content);
      }
      if (complete) entry.fixes.push({ diagnostic, title: found.fix.message, safe: found.fix.applicability === 'safe', edit, versions });
    }
  }
  // A cell deleted since the last lint keeps no findings.
  for (const uri of linted.get(unitKey(unit)) ?? []) {
    if (byDocument.has(uri)) continue;
    diagnostics.delete(vscode.Uri.parse(uri));
    fixes.delete(uri);
  }
  linted.set(unitKey(unit), [...byDocument.keys()]);
  for (const [uri, entry] of byDocument) {
    diagnostics.set(vscode.Uri.parse(uri), entry.diagnostics);
    fixes.set(uri, entry.fixes);
  }
}

/** A name for the library: per-file-ignores and notebook handling look at it. */
function pathOf(uri: vscode.Uri, suffix: string): string {
  const name = uri.path || 'untitled';
  return name.endsWith(suffix) ? name : name + suffix;
}

function schedule(unit: Unit | undefined): void {
  if (!unit) return;
  const key = unitKey(unit);
  clearTimeout(timers.get(key));
  timers.set(
    key,
    setTimeout(() => {
      timers.delete(key);
      void lintUnit(unit);
    }, Math.max(debounceMs, costs.get(key) ?? 0)),
  );
}

function scheduleNotebook(notebook: vscode.NotebookDocument): void {
  if (notebook.notebookType === 'jupyter-notebook') schedule({ kind: 'notebook', notebook });
}

function lintAll(): void {
  for (const document of vscode.workspace.textDocuments) if (document.uri.scheme !== 'vscode-notebook-cell') schedule(unitOf(document));
  for (const notebook of vscode.workspace.notebookDocuments) scheduleNotebook(notebook);
}

function forget(document: vscode.TextDocument): void {
  if (document.uri.scheme === 'vscode-notebook-cell') return; // with its notebook
  diagnostics.delete(document.uri);
  fixes.delete(document.uri.toString());
  costs.delete(document.uri.toString());
  linted.delete(document.uri.toString());
}

function sameDiagnostic(a: vscode.Diagnostic, b: vscode.Diagnostic): boolean {
  const code = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? d.code.value : d.code);
  return a.range.isEqual(b.range) && a.message === b.message && code(a) === code(b);
}

function current(fixable: Fixable): boolean {
  return vscode.workspace.textDocuments.every((d) => {
    const version = fixable.versions.get(d.uri.toString());
    return version === undefined || version === d.version;
  });
}

class Actions implements vscode.CodeActionProvider {
  async provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): Promise<vscode.CodeAction[]> {
    const out: vscode.CodeAction[] = [];
    const wants = (kind: vscode.CodeActionKind) => !context.only || context.only.contains(kind) || kind.contains(context.only);
    if (wants(vscode.CodeActionKind.QuickFix)) {
      const { unsafe } = settings();
      for (const fixable of fixes.get(document.uri.toString()) ?? []) {
        if ((!fixable.safe && !unsafe) || !current(fixable)) continue;
        if (!context.diagnostics.some((d) => d.source === 'asyncfix' && sameDiagnostic(d, fixable.diagnostic))) continue;
        const action = new vscode.CodeAction(fixable.safe ? fixable.title : `${fixable.title} (unsafe)`, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [fixable.diagnostic];
        action.edit = fixable.edit;
        action.isPreferred = fixable.safe;
        out.push(action);
      }
    }
    // Fix all on save or from the source-action menu: safe fixes only, as the server does.
    if (context.only && wants(fixAllKind)) {
      const edit = await fixAllEdit(document, false);
      if (edit && edit.size > 0) {
        const action = new vscode.CodeAction('asyncfix: Fix all safe problems', fixAllKind);
        action.edit = edit;
        out.push(action);
      }
    }
    return out;
  }
}

/** The edit of fix() on the document (or its notebook's cells); unsafe fixes too when `unsafe`.
 * Undefined when fix() failed (said in the output and a notification). */
async function fixAllEdit(document: vscode.TextDocument, unsafe: boolean): Promise<vscode.WorkspaceEdit | undefined> {
  const unit = unitOf(document);
  if (!unit || !api) return undefined;
  const { options } = settings();
  const edit = new vscode.WorkspaceEdit();
  try {
    if (unit.kind === 'text') {
      const text = document.getText();
      const fixed = await api.fix(text, pathOf(document.uri, '.py'), options, unsafe);
      if (fixed !== text) edit.replace(document.uri, new vscode.Range(document.positionAt(0), document.positionAt(text.length)), fixed);
    } else {
      const cells = unit.notebook.getCells();
      const fixed = notebookCellTexts(await api.fix(notebookJson(cellsOf(unit.notebook)), pathOf(unit.notebook.uri, '.ipynb'), options, unsafe));
      if (fixed.length !== cells.length) throw new Error('the fixed notebook has other cells');
      cells.forEach((cell, i) => {
        const text = cell.document.getText();
        if (fixed[i] !== text) edit.replace(cell.document.uri, new vscode.Range(cell.document.positionAt(0), cell.document.positionAt(text.length)), fixed[i] ?? text);
      });
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    output.error(`fix all: ${message}`);
    void vscode.window.showErrorMessage(`asyncfix: ${message}`);
    return undefined;
  }
  return edit;
}

async function fixAllInFile(): Promise<void> {
  const document = vscode.window.activeTextEditor?.document;
  if (!document || document.languageId !== 'python') {
    void vscode.window.showInformationMessage('asyncfix: open a Python file first');
    return;
  }
  const edit = await fixAllEdit(document, settings().unsafe);
  if (edit && edit.size > 0) await vscode.workspace.applyEdit(edit);
}

function unavailable(what: string): () => void {
  return () => void vscode.window.showInformationMessage(`asyncfix: ${what} is not available in ${describe}`);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('asyncfix', { log: true });
  diagnostics = vscode.languages.createDiagnosticCollection('asyncfix');
  const status = vscode.window.createStatusBarItem('asyncfix.server', vscode.StatusBarAlignment.Right, 0);
  status.name = 'asyncfix';
  status.command = 'asyncfix.showOutput';
  context.subscriptions.push(output, diagnostics, status);
  const wasm = vscode.Uri.joinPath(context.extensionUri, 'dist', 'web', 'asyncfix-api-web.wasm');
  try {
    api = await AsyncfixWasm.load(await vscode.workspace.fs.readFile(wasm), (line) => output.info(line));
  } catch (error) {
    const message = `the WebAssembly module (${wasm.toString()}) did not load: ${error instanceof Error ? error.message : String(error)}`;
    output.error(message);
    status.text = '$(error) asyncfix';
    status.tooltip = `asyncfix: ${message}`;
    status.show();
    void vscode.window.showErrorMessage(`asyncfix: ${message}`);
    return;
  }
  // Where this runs, for the output (and the tests): a Web Worker has importScripts, Node.js has process.
  const g = globalThis as { importScripts?: unknown; process?: unknown; navigator?: { userAgent?: string } };
  const where = `${typeof g.importScripts === 'function' ? 'a Web Worker' : 'no Web Worker'}, ${g.process === undefined ? 'no Node.js' : 'Node.js'}`;
  output.info(`using ${describe}: asyncfix ${await api.version()} in ${where} (${g.navigator?.userAgent ?? 'no navigator'})`);
  status.text = '$(check) asyncfix (WebAssembly, in the browser)';
  status.tooltip = `${describe}: each change lints the whole file; no hover or workspace commands.\nClick to show the output.`;
  status.show();

  const selector: vscode.DocumentSelector = { language: 'python' };
  context.subscriptions.push(
    vscode.languages.registerCodeActionsProvider(selector, new Actions(), {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix, fixAllKind],
    }),
    vscode.commands.registerCommand('asyncfix.fixAllInFile', fixAllInFile),
    vscode.commands.registerCommand('asyncfix.fixAllInWorkspace', unavailable('"Fix all problems in the workspace"')),
    vscode.commands.registerCommand('asyncfix.restart', () => {
      fixes.clear();
      diagnostics.clear();
      lintAll();
    }),
    vscode.commands.registerCommand('asyncfix.showOutput', () => output.show()),
    vscode.workspace.onDidOpenTextDocument((d) => schedule(unitOf(d))),
    vscode.workspace.onDidChangeTextDocument((e) => schedule(unitOf(e.document))),
    vscode.workspace.onDidCloseTextDocument(forget),
    vscode.workspace.onDidOpenNotebookDocument(scheduleNotebook),
    vscode.workspace.onDidChangeNotebookDocument((e) => scheduleNotebook(e.notebook)),
    vscode.workspace.onDidCloseNotebookDocument((n) => {
      for (const uri of linted.get(n.uri.toString()) ?? []) {
        diagnostics.delete(vscode.Uri.parse(uri));
        fixes.delete(uri);
      }
      linted.delete(n.uri.toString());
      costs.delete(n.uri.toString());
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('asyncfix')) lintAll();
    }),
  );
  lintAll();
}

export function deactivate(): void {
  for (const timer of timers.values()) clearTimeout(timer);
  timers.clear();
}
