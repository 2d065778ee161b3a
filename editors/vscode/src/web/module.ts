// The C API in the browser: the module of asyncfix_api_web (cmake/WasmModules.cmake), made from
// the .wasm bytes the extension reads from its own package, and the calls the web extension
// makes (lint and fix one text), as wasm/index.js makes them for Node.js. Nothing here blocks and
// nothing reads a file. A trap inside the module (a bug in asyncfix) is thrown as an Error and
// drops the module; the next call makes a new one from the same bytes.
import createAsyncfixModule = require('asyncfix-api-web');
import type { ReportDiagnostic } from './convert';

type AsyncfixModule = Awaited<ReturnType<typeof createAsyncfixModule>>;

const encoder = new TextEncoder();
// A byte order mark is part of the text (fix() must give it back).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export class AsyncfixWasm {
  private module: AsyncfixModule | undefined;
  // One linter per options text, in the current module.
  private linters = new Map<string, number>();

  private constructor(
    private readonly bytes: Uint8Array,
    private readonly log: (line: string) => void,
  ) {}

  /** Instantiates the module from `bytes` (the contents of asyncfix-api-web.wasm). */
  static async load(bytes: Uint8Array, log: (line: string) => void): Promise<AsyncfixWasm> {
    const api = new AsyncfixWasm(bytes, log);
    await api.instance();
    return api;
  }

  private async instance(): Promise<AsyncfixModule> {
    if (!this.module) {
      this.module = await createAsyncfixModule({ wasmBinary: this.bytes, print: this.log, printErr: this.log });
      this.linters.clear();
    }
    return this.module;
  }

  async version(): Promise<string> {
    const m = await this.instance();
    return this.stringAt(m, m._asyncfix_version());
  }

  /** The report of `text` checked as the file `path` (a name ending in .ipynb: notebook JSON). */
  async lint(text: string, path: string, options: string): Promise<ReportDiagnostic[]> {
    return this.call(options, (m, linter) => {
      const report = this.withStrings(m, [text, path], (src, len, p) => m._asyncfix_linter_check(linter, src, len, p));
      if (!report) throw this.lastError(m);
      try {
        return JSON.parse(this.owned(m, m._asyncfix_report_json(report))) as ReportDiagnostic[];
      } finally {
        m._asyncfix_report_free(report);
      }
    });
  }

  /** `text` with its fixes applied; unsafe ones too when `unsafe`. */
  async fix(text: string, path: string, options: string, unsafe: boolean): Promise<string> {
    return this.call(options, (m, linter) =>
      this.owned(m, this.withStrings(m, [text, path], (src, len, p) => m._asyncfix_linter_fix(linter, src, len, p, unsafe ? 1 : 0, 0))),
    );
  }

  private async call<T>(options: string, body: (m: AsyncfixModule, linter: number) => T): Promise<T> {
    const m = await this.instance();
    let linter = this.linters.get(options);
    if (linter === undefined) {
      linter = this.withStrings(m, [options], (o) => m._asyncfix_linter_new(o));
      if (!linter) throw this.lastError(m); // invalid options: the module is fine
      this.linters.set(options, linter);
    }
    try {
      return body(m, linter);
    } catch (error) {
      if (error instanceof AsyncfixError) throw error;
      // A trap: the module's memory may be inconsistent.
      if (this.module === m) this.module = undefined;
      throw new Error(`the WebAssembly module stopped (a bug in asyncfix, please report it): ${String(error)}`);
    }
  }

  private lastError(m: AsyncfixModule): AsyncfixError {
    const message = m._asyncfix_last_error();
    return new AsyncfixError(message ? this.stringAt(m, message) : 'asyncfix failed');
  }

  private stringAt(m: AsyncfixModule, pointer: number): string {
    const end = m.HEAPU8.indexOf(0, pointer);
    return decoder.decode(m.HEAPU8.subarray(pointer, end < 0 ? m.HEAPU8.length : end));
  }

  /** A string the library returned for the caller to free, or the last error when it is NULL. */
  private owned(m: AsyncfixModule, pointer: number): string {
    if (!pointer) throw this.lastError(m);
    try {
      return this.stringAt(m, pointer);
    } finally {
      m._asyncfix_string_free(pointer);
    }
  }

  /** The strings copied into the module, NUL-terminated, for `body` (the first one's byte length
   * after its pointer), then freed. */
  private withStrings<T>(m: AsyncfixModule, strings: string[], body: (...args: number[]) => T): T {
    const args: number[] = [];
    const pointers: number[] = [];
    try {
      strings.forEach((s, i) => {
        const bytes = encoder.encode(s);
        const pointer = m._malloc(bytes.length + 1);
        if (!pointer) throw new AsyncfixError('out of memory');
        pointers.push(pointer);
        m.HEAPU8.set(bytes, pointer); // after _malloc: memory growth replaces HEAPU8
        m.HEAPU8[pointer + bytes.length] = 0;
        args.push(pointer);
        if (i === 0) args.push(bytes.length);
      });
      return body(...args);
    } finally {
      for (const pointer of pointers) m._free(pointer);
    }
  }
}

/** A failure the library reported (invalid options, text that cannot be linted). */
export class AsyncfixError extends Error {}
