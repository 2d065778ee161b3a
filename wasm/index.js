'use strict';
// The JavaScript API of asyncfix (docs/wasm.md; the types are index.d.ts): the C API of
// lib/include/asyncfix.h, run as a WebAssembly module inside this Node.js process.
//
// Text goes in as a string (or UTF-8 bytes) and comes out as a string; diagnostics are the plain
// objects that `asyncfix check --output-format json` prints. Every call is synchronous. The
// module is made on first use (a few hundred milliseconds: V8 compiles it). A trap inside it (a
// bug in asyncfix) is thrown as an AsyncfixError with code 'internal', and the next call makes a
// new module, so one bad input does not take the others with it.
//
// Options are the configuration file's keys in camelCase (`targetVersion` for `target-version`);
// only the top-level keys are converted, so the globs of `perFileIgnores` and the codes of
// `severity` stay as written.
const path = require('node:path');
const { find, hostProblem } = require('./locate.js');

// asyncfix_status, by value.
const STATUS = ['ok', 'argument', 'options', 'input', 'memory', 'internal', 'config'];
// asyncfix_run_mode
const RUN_CHECK = 0;
const RUN_FIX = 1;

class AsyncfixError extends Error {
  /** `code`: 'argument', 'options', 'input', 'memory', 'internal', 'config' (the C API's
   * asyncfix_status), or 'host' when this Node.js cannot run the module or it is missing. */
  constructor(message, code) {
    super(message);
    this.name = 'AsyncfixError';
    this.code = code;
  }
}

/** checkPaths() met paths or files it could not use (the command exits 2 then). The run went on
 * without them: `diagnostics` holds its findings, `messages` its `error: …` lines. */
class RunError extends AsyncfixError {
  constructor(messages, diagnostics) {
    super(messages.length === 1 ? messages[0] : `${messages[0]} (and ${messages.length - 1} more)`, 'run');
    this.name = 'RunError';
    this.messages = messages;
    this.diagnostics = diagnostics;
  }
}

let current = null; // the module instance, made by instance()

function instance() {
  if (current) return current;
  const problem = hostProblem();
  if (problem) throw new AsyncfixError(problem, 'host');
  const found = find('asyncfix-api.js');
  if (found.error) throw new AsyncfixError(found.error, 'host');
  const create = require(found.file);
  // Synchronous: the module is linked with WASM_ASYNC_COMPILATION=0.
  current = create({ locateFile: (name) => path.join(path.dirname(found.file), name) });
  return current;
}

/** Runs `body(m)` on the module; a trap drops the module (its memory may be inconsistent). */
function call(body) {
  const m = instance();
  try {
    return body(m);
  } catch (error) {
    if (error instanceof AsyncfixError) throw error;
    if (current === m) current = null;
    const what = error instanceof Error ? error.message : String(error);
    throw new AsyncfixError(`the WebAssembly module stopped (a bug in asyncfix, please report it): ${what}`, 'internal');
  }
}

function lastError(m) {
  const message = m._asyncfix_last_error();
  const code = STATUS[m._asyncfix_last_error_code()] || 'internal';
  return new AsyncfixError(message ? stringAt(m, message) : 'asyncfix failed', code);
}

const encoder = new TextEncoder();
// A byte order mark at the start of a text is part of the text (emscripten's UTF8ToString would
// drop it, and with it a byte of the file that fix() returns).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The NUL-terminated UTF-8 string at `pointer`. */
function stringAt(m, pointer) {
  const heap = m.HEAPU8;
  const end = heap.indexOf(0, pointer);
  return decoder.decode(heap.subarray(pointer, end < 0 ? heap.length : end));
}

function bytesOf(text, what) {
  if (typeof text === 'string') return encoder.encode(text);
  if (text instanceof Uint8Array) return text;
  throw new AsyncfixError(`${what} must be a string or a Uint8Array`, 'argument');
}

/** `bytes` copied into the module, NUL-terminated; the pointer is freed after `body`. */
function withBytes(m, bytes, body) {
  const pointer = m._malloc(bytes.length + 1);
  if (!pointer) throw new AsyncfixError('out of memory', 'memory');
  try {
    m.HEAPU8.set(bytes, pointer);
    m.HEAPU8[pointer + bytes.length] = 0;
    return body(pointer, bytes.length);
  } finally {
    m._free(pointer);
  }
}

/** Several strings (null: a NULL pointer) in the module for the duration of `body`. */
function withStrings(m, strings, body) {
  const pointers = [];
  try {
    for (const s of strings) {
      if (s === null) {
        pointers.push(0);
        continue;
      }
      const bytes = encoder.encode(s);
      const pointer = m._malloc(bytes.length + 1);
      if (!pointer) throw new AsyncfixError('out of memory', 'memory');
      pointers.push(pointer);
      m.HEAPU8.set(bytes, pointer);
      m.HEAPU8[pointer + bytes.length] = 0;
    }
    return body(...pointers);
  } finally {
    for (const pointer of pointers) if (pointer) m._free(pointer);
  }
}

/** A string the library returned for the caller to free, or the last error when it is NULL. */
function owned(m, pointer) {
  if (!pointer) throw lastError(m);
  try {
    return stringAt(m, pointer);
  } finally {
    m._asyncfix_string_free(pointer);
  }
}

function kebab(key) {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The C API's options_json: top-level keys in kebab case, unset (undefined or null) ones left out. */
function optionsJson(options, leaveOut) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object' || Array.isArray(options)) throw new AsyncfixError('options must be an object', 'options');
  const table = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || value === null || leaveOut.includes(key)) continue;
    table[kebab(key)] = value;
  }
  return JSON.stringify(table);
}

function pathOf(options) {
  const p = options && options.path;
  if (p === undefined || p === null) return '-';
  if (typeof p !== 'string') throw new AsyncfixError('path must be a string', 'argument');
  return p;
}

// A linter's handle is released when the Linter is disposed or collected, unless its module
// has been replaced since (then the handle went with the old module).
const handles = new FinalizationRegistry(({ m, handle }) => {
  if (m === current) m._asyncfix_linter_free(handle);
});

/** A configured set of rules; make one per configuration and keep it. */
class Linter {
  constructor(options) {
    this._json = optionsJson(options, ['path']);
    this._module = null;
    this._handle = 0;
    this._ensure(instance()); // invalid options fail here
  }

  _ensure(m) {
    if (this._module === m && this._handle) return this._handle;
    const handle = withStrings(m, [this._json], (json) => m._asyncfix_linter_new(json));
    if (!handle) throw lastError(m);
    if (this._handle) handles.unregister(this);
    this._module = m;
    this._handle = handle;
    handles.register(this, { m, handle }, this);
    return handle;
  }

  /** The diagnostics of `text` checked as the file `path` ('-' by default). */
  lint(text, path = '-') {
    const bytes = bytesOf(text, 'text');
    return call((m) => {
      const handle = this._ensure(m);
      const report = withBytes(m, bytes, (src, len) =>
        withStrings(m, [path], (p) => m._asyncfix_linter_check(handle, src, len, p)),
      );
      if (!report) throw lastError(m);
      try {
        return JSON.parse(owned(m, m._asyncfix_report_json(report)));
      } finally {
        m._asyncfix_report_free(report);
      }
    });
  }

  /** `text` with its fixes applied (unsafe ones too when the options say `unsafeFixes: true`). */
  fix(text, path = '-') {
    const bytes = bytesOf(text, 'text');
    return call((m) => {
      const handle = this._ensure(m);
      return owned(
        m,
        withBytes(m, bytes, (src, len) => withStrings(m, [path], (p) => m._asyncfix_linter_fix(handle, src, len, p, 0, 0))),
      );
    });
  }

  /** Releases the linter now rather than when it is collected. */
  dispose() {
    if (this._handle && this._module === current) this._module._asyncfix_linter_free(this._handle);
    if (this._handle) handles.unregister(this);
    this._handle = 0;
    this._module = null;
  }
}

function lint(text, options) {
  const linter = new Linter(options);
  try {
    return linter.lint(text, pathOf(options));
  } finally {
    linter.dispose();
  }
}

function fix(text, options) {
  const linter = new Linter(options);
  try {
    return linter.fix(text, pathOf(options));
  } finally {
    linter.dispose();
  }
}

function checkPaths(paths, options) {
  const list = paths === undefined ? [] : typeof paths === 'string' ? [paths] : [...paths];
  if (!list.every((p) => typeof p === 'string')) throw new AsyncfixError('paths must be strings', 'argument');
  const mode = options && options.fix ? RUN_FIX : RUN_CHECK;
  const json = optionsJson(options, ['fix']);
  const [text, messages] = call((m) =>
    withStrings(m, [json, ...list], (optionsPointer, ...pathPointers) => {
      const array = m._malloc(4 * Math.max(1, pathPointers.length) + 4);
      if (!array) throw new AsyncfixError('out of memory', 'memory');
      try {
        pathPointers.forEach((p, i) => m.HEAPU32.set([p], (array >> 2) + i));
        const messagesOut = array + 4 * Math.max(1, pathPointers.length);
        m.HEAPU32[messagesOut >> 2] = 0;
        const result = m._asyncfix_run(array, pathPointers.length, optionsPointer, mode, messagesOut);
        const said = m.HEAPU32[messagesOut >> 2];
        const out = owned(m, result);
        return [out, said ? owned(m, said) : ''];
      } finally {
        m._free(array);
      }
    }),
  );
  const diagnostics = JSON.parse(text);
  const errors = [];
  for (const line of messages.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('error: ')) errors.push(line.slice('error: '.length));
    else process.emitWarning(line.startsWith('warning: ') ? line.slice('warning: '.length) : line, 'AsyncfixWarning');
  }
  if (errors.length > 0) throw new RunError(errors, diagnostics);
  return diagnostics;
}

function rules() {
  return call((m) => {
    const out = [];
    const count = m._asyncfix_rule_count();
    for (let i = 0; i < count; i++) {
      out.push({
        code: stringAt(m, m._asyncfix_rule_code(i)),
        name: stringAt(m, m._asyncfix_rule_name(i)),
        summary: stringAt(m, m._asyncfix_rule_summary(i)),
        doc: stringAt(m, m._asyncfix_rule_doc(i)),
        url: stringAt(m, m._asyncfix_rule_url(i)),
      });
    }
    return out;
  });
}

function version() {
  return call((m) => stringAt(m, m._asyncfix_version()));
}

module.exports = { AsyncfixError, Linter, RunError, checkPaths, fix, lint, rules, version };
