// The types of asyncfix's JavaScript API (index.js), written by hand from lib/include/asyncfix.h
// and the JSON that `asyncfix check --output-format json` prints (docs/cli.md). Checked by
// `tsc --strict` against tests/wasm/typed_usage.ts.

/** A rule selector: a code (`AF101`), a prefix (`AF1`) or `ALL`. */
export type Selector = string;
export type Severity = 'error' | 'warning' | 'info' | 'hint';
export type TargetVersion =
  | 'py35' | 'py36' | 'py37' | 'py38' | 'py39' | 'py310' | 'py311' | 'py312' | 'py313' | 'py314';

/** A row of the renames table (docs/configuration.md, "The renames table"). */
export interface RenameRow {
  old: string;
  new: string;
  library?: string;
  since?: string;
  source?: string;
  callable?: string;
  owner?: string;
}

/** The configuration file's keys (docs/configuration.md), in camelCase. */
export interface Options {
  select?: Selector[];
  extendSelect?: Selector[];
  ignore?: Selector[];
  targetVersion?: TargetVersion;
  /** `async_`, `is_async`, or a template such as `{name}_flag`. */
  renameStyle?: string;
  /** Fixes apply unsafe fixes too. */
  unsafeFixes?: boolean;
  severity?: Record<string, Severity>;
  /** Globs to the selectors they ignore, matched against `path`. */
  perFileIgnores?: Record<string, Selector[]>;
  renames?: {
    module?: RenameRow[];
    function?: RenameRow[];
    keyword?: RenameRow[];
    attribute?: RenameRow[];
    api?: RenameRow[];
  };
}

export interface TextOptions extends Options {
  /** The name the text is checked as (default `-`): it appears in the diagnostics, a name ending
   * in `.ipynb` makes the text a notebook's JSON, and `perFileIgnores` match it. Nothing is read
   * from disk. */
  path?: string;
}

/** The options of `asyncfix check` that checkPaths() takes, which win over configuration files. */
export interface CheckPathsOptions {
  /** Fix the files on disk (`check --fix`); the result lists what remains. */
  fix?: boolean;
  select?: Selector[];
  extendSelect?: Selector[];
  ignore?: Selector[];
  targetVersion?: TargetVersion;
  renameStyle?: string;
  /** true: --unsafe-fixes; false: no unsafe fixes, whatever the configuration files say. */
  unsafeFixes?: boolean;
  respectGitignore?: boolean;
  docsUrl?: string;
  /** One configuration file for every file (--config). */
  config?: string;
  /** No configuration files (--isolated). */
  isolated?: boolean;
  /** Worker threads; the WebAssembly build has one whatever this says. */
  jobs?: number;
}

/** A place: 1-based row, 1-based column in Unicode code points. */
export interface Location {
  row: number;
  column: number;
}

export interface Edit {
  content: string;
  location: Location;
  end_location: Location;
  /** A notebook's edits: the 1-based cell the location counts in. */
  cell?: number;
  /** Set when the fix spans files: the file this edit is in. */
  filename?: string;
}

export interface Fix {
  applicability: 'safe' | 'unsafe' | 'display-only';
  /** The fix's title: "Replace `async=` with `non_blocking=`". */
  message: string;
  edits: Edit[];
  /** Files or directories the fix moves (a module named `async` renamed with its importers). */
  renames?: { from: string; to: string }[];
}

/** One object of `asyncfix check --output-format json`. */
export interface Diagnostic {
  code: string;
  name: string;
  message: string;
  severity: Severity;
  filename: string;
  /** A notebook's diagnostics: the 1-based cell that location and end_location count in. */
  cell?: number;
  location: Location;
  end_location: Location;
  fix: Fix | null;
  url: string | null;
}

export interface Rule {
  code: string;
  name: string;
  summary: string;
  /** Markdown, as `asyncfix rule CODE` prints it. */
  doc: string;
  url: string;
}

export type ErrorCode = 'argument' | 'options' | 'input' | 'memory' | 'internal' | 'config' | 'host' | 'run';

export class AsyncfixError extends Error {
  /** The C API's asyncfix_status; 'host' when this Node.js cannot run the module or it is
   * missing; 'run' for a RunError. */
  readonly code: ErrorCode;
}

/** checkPaths() met paths or files it could not use; the run went on without them. */
export class RunError extends AsyncfixError {
  readonly messages: string[];
  readonly diagnostics: Diagnostic[];
}

/** A configured set of rules; make one per configuration and keep it. */
export class Linter {
  /** Throws AsyncfixError (code 'options') for invalid options. */
  constructor(options?: Options);
  /** The diagnostics of `text` checked as the file `path` (default `-`). */
  lint(text: string | Uint8Array, path?: string): Diagnostic[];
  /** `text` with its fixes applied, each verified (re-parsed); fixing the result again changes
   * nothing. */
  fix(text: string | Uint8Array, path?: string): string;
  /** Releases the linter now rather than when it is collected. */
  dispose(): void;
}

/** The diagnostics of `text`. Throws AsyncfixError for invalid options or text (not UTF-8, a NUL
 * byte, a broken notebook). */
export function lint(text: string | Uint8Array, options?: TextOptions): Diagnostic[];
/** `text` with its safe fixes applied (unsafe ones too with `unsafeFixes: true`). */
export function fix(text: string | Uint8Array, options?: TextOptions): string;
/** The files and directories `paths` (none: `.`) checked, or fixed, as `asyncfix check` does it:
 * walked with `exclude` and .gitignore, each file with its nearest configuration file, the files
 * seen together. Throws RunError after the run when a path or file could not be used; a fix the
 * run did not apply is a process warning of type 'AsyncfixWarning'. */
export function checkPaths(paths?: string | string[], options?: CheckPathsOptions): Diagnostic[];
/** Every rule, sorted by code. */
export function rules(): Rule[];
/** The library's version, "0.1.0". */
export function version(): string;
