// The npm package's types (wasm/index.d.ts) as a TypeScript user meets them: tests/wasm/
// test_npm.py installs the package and compiles this file with `tsc --strict --noEmit`. The
// `@ts-expect-error` lines are mistakes the types must reject: tsc fails if one compiles.
import * as asyncfix from 'asyncfix';
import { AsyncfixError, Diagnostic, Linter, RunError } from 'asyncfix';

const source = 'import torch\nx = torch.zeros(2)\ny = x.cuda(async=True)\n';

const diagnostics: Diagnostic[] = asyncfix.lint(source, { path: 'train.py', targetVersion: 'py38' });
for (const d of diagnostics) {
  const where: string = `${d.filename}:${d.location.row}:${d.location.column}`;
  const severity: 'error' | 'warning' | 'info' | 'hint' = d.severity;
  const title: string | undefined = d.fix?.message;
  const firstEdit: string | undefined = d.fix?.edits[0]?.content;
  const cell: number | undefined = d.cell;
  console.log(where, severity, title, firstEdit, cell, d.url ?? 'no page');
}

const fixed: string = asyncfix.fix(source, { unsafeFixes: true, select: ['AF1', 'AF001'] });
const bytes: string = asyncfix.fix(new TextEncoder().encode(source));
console.log(fixed === bytes);

const linter = new Linter({ ignore: ['AF104'], severity: { AF101: 'warning' }, perFileIgnores: { 'tests/*.py': ['AF001'] } });
const again: Diagnostic[] = linter.lint(source, 'tests/t.py');
const fixedAgain: string = linter.fix(source);
linter.dispose();
console.log(again.length, fixedAgain);

for (const rule of asyncfix.rules()) console.log(rule.code, rule.name, rule.summary.length, rule.doc.length, rule.url);
const version: string = asyncfix.version();
console.log(version);

try {
  const remaining: Diagnostic[] = asyncfix.checkPaths(['src', 'notebooks/run.ipynb'], { fix: true, unsafeFixes: false, jobs: 1 });
  console.log(remaining.length);
} catch (error) {
  if (error instanceof RunError) console.log(error.messages.join('\n'), error.diagnostics.length);
  else if (error instanceof AsyncfixError) console.log(error.code, error.message);
}

// Mistakes the types catch.
// @ts-expect-error: no Python 2.7 target
asyncfix.lint(source, { targetVersion: 'py27' });
// @ts-expect-error: select is a list of selectors
asyncfix.lint(source, { select: 'AF1' });
// @ts-expect-error: fix() returns the text, not diagnostics
const wrong: Diagnostic[] = asyncfix.fix(source);
// @ts-expect-error: a diagnostic's fix may be null
console.log(diagnostics[0].fix.edits);
// @ts-expect-error: Linter.lint takes the path, not options
linter.lint(source, { path: 'a.py' });
console.log(wrong);
