// Where `asyncfix-lsp` is: the `asyncfix.path` setting; else, by `asyncfix.importStrategy`, the
// environment's (the first executable on PATH, e.g. from the asyncfix wheel) and then the one the
// platform-specific extension carries, or the carried one alone.
// No `vscode` import here, so this file is tested under plain Node.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const serverName = 'asyncfix-lsp';

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, process.platform === 'win32' ? fs.constants.F_OK : fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first `name` on `searchPath` (PATH's syntax) that is an executable file. */
export function findOnPath(name: string, searchPath: string | undefined): string | undefined {
  const extensions = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

export type Resolution = { ok: true; command: string; source: 'path setting' | 'environment' | 'bundled' } | { ok: false; message: string };

export type ImportStrategy = 'fromEnvironment' | 'useBundled';

/** Where the server is found, besides the `asyncfix.path` setting. */
export interface Search {
  /** PATH's value. */
  searchPath: string | undefined;
  /** The server this extension carries (`bundled/<platform>-<arch>/asyncfix-lsp`), if any. */
  bundled?: string | undefined;
  /** Whether the extension was packaged with a server (the platform-specific .vsix). */
  bundledExpected?: boolean;
  strategy?: ImportStrategy;
  /** The platform this runs on, for messages (`linux-x64`). */
  platform?: string;
}

const install =
  'install the asyncfix wheel into an environment on PATH (pip install asyncfix-<version>-<tags>.whl), install the extension built for this platform, or set `asyncfix.path`';

/**
 * The server executable: `configured` (the `asyncfix.path` setting) with `~` and
 * `${workspaceFolder}` expanded and a relative path taken from `workspaceFolder`; when it is empty,
 * `asyncfix-lsp` on the search path and then the bundled one (`fromEnvironment`, the default), or
 * the bundled one only (`useBundled`). The failure message says what to do.
 */
export function resolveServer(configured: string, workspaceFolder: string | undefined, search: Search | string | undefined): Resolution {
  const where: Search = typeof search === 'object' ? search : { searchPath: search };
  const strategy = where.strategy ?? 'fromEnvironment';
  let file = configured.trim();
  if (file === '') {
    const bundled = () => {
      if (!where.bundled || !where.bundledExpected) return undefined;
      if (isExecutableFile(where.bundled)) return where.bundled;
      return null; // packaged with a server, but it is gone or broken
    };
    if (strategy === 'fromEnvironment') {
      const found = findOnPath(serverName, where.searchPath);
      if (found) return { ok: true, command: found, source: 'environment' };
    }
    const carried = bundled();
    if (carried) return { ok: true, command: carried, source: 'bundled' };
    if (carried === null)
      return {
        ok: false,
        message: `the server this extension carries (${where.bundled}) is missing or not executable: reinstall the extension, or ${
          strategy === 'useBundled' ? 'set `asyncfix.importStrategy` to `fromEnvironment` or ' : ''
        }set \`asyncfix.path\``,
      };
    if (strategy === 'useBundled')
      return {
        ok: false,
        message: `\`asyncfix.importStrategy\` is \`useBundled\`, but this extension carries no server${
          where.platform ? ` for ${where.platform}` : ''
        }; ${install}`,
      };
    return {
      ok: false,
      message: `cannot find \`${serverName}\` on PATH, and this extension carries no server${
        where.platform ? ` for ${where.platform}` : ''
      }; ${install}`,
    };
  }
  if (file.includes('${workspaceFolder}')) {
    if (!workspaceFolder) return { ok: false, message: `\`asyncfix.path\` (${configured}) uses \${workspaceFolder}, but no folder is open` };
    file = file.split('${workspaceFolder}').join(workspaceFolder);
  }
  if (file === '~' || file.startsWith('~/')) file = path.join(os.homedir(), file.slice(1));
  if (!path.isAbsolute(file)) {
    if (!file.includes('/') && !file.includes(path.sep)) {
      // A bare name, as in a shell: look it up on PATH.
      const found = findOnPath(file, where.searchPath);
      if (found) return { ok: true, command: found, source: 'path setting' };
      return { ok: false, message: `\`asyncfix.path\`: cannot find \`${file}\` on PATH` };
    }
    if (!workspaceFolder) return { ok: false, message: `\`asyncfix.path\` (${configured}) is relative, but no folder is open` };
    file = path.resolve(workspaceFolder, file);
  }
  if (!isExecutableFile(file)) return { ok: false, message: `\`asyncfix.path\`: ${file} is not an executable file` };
  return { ok: true, command: file, source: 'path setting' };
}

/**
 * Whether the resolved server runs (`asyncfix-lsp --version`, without blocking): a truncated
 * download, another architecture or a missing library says so here, with what to do, rather than
 * as a language client that never connects.
 */
export function probeServer(resolved: {
  command: string;
  source: string;
}): Promise<{ ok: true; version: string } | { ok: false; message: string }> {
  const advice: Record<string, string> = {
    bundled: 'reinstall the extension, or set `asyncfix.path`',
    'path setting': 'fix or clear `asyncfix.path`',
    environment:
      'reinstall asyncfix in that environment, set `asyncfix.path`, or install the extension built for this platform, which carries a server',
  };
  return new Promise((resolve) => {
    execFile(resolved.command, ['--version'], { encoding: 'utf8', timeout: 10000 }, (error, stdout, stderr) => {
      if (!error) return resolve({ ok: true, version: stdout.trim() });
      const why = (stderr || '').trim() || error.message;
      resolve({
        ok: false,
        message: `${resolved.command} does not run (${why}): ${advice[resolved.source] ?? advice['path setting']}`,
      });
    });
  });
}
