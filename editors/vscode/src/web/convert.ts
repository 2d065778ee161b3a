// The web extension's pure parts (no `vscode` import, so test/unit.test.mjs runs them under plain
// Node): the options the C API takes, positions from its JSON report in VS Code's UTF-16 columns,
// and a notebook as the `.ipynb` JSON the library lints as one file.
import type { ServerSettings } from '../settings';

/** A position of the library's JSON report: 1-based row, 1-based column in code points. */
export interface ReportPosition {
  row: number;
  column: number;
}

export interface ReportEdit {
  content: string;
  cell?: number;
  location: ReportPosition;
  end_location: ReportPosition;
}

/** One object of `asyncfix check --output-format json` (asyncfix_report_json()). */
export interface ReportDiagnostic {
  code: string;
  name: string;
  message: string;
  severity: string;
  cell?: number;
  location: ReportPosition;
  end_location: ReportPosition;
  fix?: { applicability: string; message: string; edits: ReportEdit[] } | null;
  url?: string;
}

/**
 * The C API's options_json for the editor's settings: the configuration file's keys. Unsafe
 * fixes are left out: a fix's safety is chosen per call (quick fixes list them all, fix on save
 * never applies them), and the settings' value is passed to asyncfix_linter_fix() instead.
 */
export function optionsJson(settings: ServerSettings): string {
  const table: Record<string, unknown> = {};
  if (settings.select) table['select'] = settings.select;
  if (settings.extendSelect) table['extend-select'] = settings.extendSelect;
  if (settings.ignore) table['ignore'] = settings.ignore;
  if (settings.targetVersion) table['target-version'] = settings.targetVersion;
  if (settings.renameStyle) table['rename-style'] = settings.renameStyle;
  return JSON.stringify(table);
}

/** The UTF-16 column (0-based, as VS Code counts) of the 1-based code-point `column` in `line`. */
export function utf16Column(line: string, column: number): number {
  let units = 0;
  let points = 1;
  while (points < column && units < line.length) {
    const code = line.charCodeAt(units);
    units += code >= 0xd800 && code <= 0xdbff && units + 1 < line.length ? 2 : 1;
    points++;
  }
  // Past the end of the line (a range ending at a line break): the break is one code point.
  return units + Math.max(0, column - points);
}

/** A notebook's cell as the extension sees it: its kind and, for code cells, its language. */
export interface CellInput {
  kind: 'markup' | 'code';
  language: string;
  text: string;
}

/** Python code cells are linted; other languages' code cells are kept as raw cells (their
 * numbers, which the report's `cell` counts, stay those of the notebook). */
export function notebookJson(cells: CellInput[]): string {
  return JSON.stringify({
    cells: cells.map((c) => ({
      cell_type: c.kind === 'markup' ? 'markdown' : c.language === 'python' ? 'code' : 'raw',
      metadata: {},
      source: c.text,
      ...(c.kind === 'code' && c.language === 'python' ? { outputs: [], execution_count: null } : {}),
    })),
    metadata: { language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  });
}

/** The cells' texts of a notebook that fix() returned for notebookJson()'s text. */
export function notebookCellTexts(json: string): string[] {
  const parsed = JSON.parse(json) as { cells?: { source?: string | string[] }[] };
  return (parsed.cells ?? []).map((c) => (Array.isArray(c.source) ? c.source.join('') : (c.source ?? '')));
}
