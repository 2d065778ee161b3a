// The WebAssembly language server (docs/wasm.md) that every package of the extension carries in
// bundled/wasm/: asyncfix-lsp.wasm, a WASI module, run by its launcher asyncfix-lsp.js under
// node:wasi in a child Node.js process (the one VS Code runs extensions with). It reads no file:
// documents and settings come over LSP. Used where no native server runs (`asyncfix.server`).
// No `vscode` import here, so this file is tested under plain Node.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type ServerKind = 'auto' | 'native' | 'wasm';

export function serverKind(value: unknown): ServerKind {
  return value === 'native' || value === 'wasm' ? value : 'auto';
}

export type WasmResolution = { ok: true; launcher: string; directory: string } | { ok: false; message: string };

/**
 * Why this Node.js (`versions.node`, `hasTag`: WebAssembly exception handling, `hasWasi`:
 * node:wasi) cannot run the WebAssembly server, or undefined when it can.
 */
export function wasmHostProblem(node: string, hasTag: boolean, hasWasi: boolean): string | undefined {
  const major = Number(node.split('.')[0]);
  if (!(major >= 18)) return `the WebAssembly server needs Node.js >= 18, and VS Code runs extensions with Node.js ${node}`;
  if (!hasTag) return 'the WebAssembly server needs WebAssembly exception handling (WebAssembly.Tag), which this Node.js lacks';
  if (!hasWasi) return 'the WebAssembly server needs node:wasi, which this Node.js lacks';
  return undefined;
}

function hasNodeWasi(): boolean {
  try {
    require('node:wasi');
    return true;
  } catch {
    return false;
  }
}

/** The WebAssembly server this extension carries (`bundled/wasm/`), if it can run here. */
export function resolveWasmServer(bundledDir: string): WasmResolution {
  const directory = path.join(bundledDir, 'wasm');
  const launcher = path.join(directory, 'asyncfix-lsp.js');
  for (const file of [launcher, path.join(directory, 'asyncfix-lsp.wasm'), path.join(directory, 'locate.js'), path.join(directory, 'stdin.js'), path.join(directory, 'warm_up.js')])
    if (!fs.existsSync(file))
      return { ok: false, message: `this extension carries no WebAssembly server (${file} is missing): reinstall the extension` };
  const problem = wasmHostProblem(
    process.versions.node,
    typeof (globalThis as { WebAssembly?: { Tag?: unknown } }).WebAssembly?.Tag === 'function',
    hasNodeWasi(),
  );
  if (problem) return { ok: false, message: problem };
  return { ok: true, launcher, directory };
}
