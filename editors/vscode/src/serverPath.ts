// Where `asyncfix-lsp` is: the `asyncfix.path` setting, else the first executable on PATH.
// No `vscode` import here, so this file is tested under plain Node.
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

export type Resolution = { ok: true; command: string } | { ok: false; message: string };

/**
 * The server executable: `configured` (the `asyncfix.path` setting) with `~` and
 * `${workspaceFolder}` expanded and a relative path taken from `workspaceFolder`; when it is empty,
 * `asyncfix-lsp` on `searchPath`. The failure message says what to do.
 */
export function resolveServer(configured: string, workspaceFolder: string | undefined, searchPath: string | undefined): Resolution {
  let file = configured.trim();
  if (file === '') {
    const found = findOnPath(serverName, searchPath);
    if (found) return { ok: true, command: found };
    return {
      ok: false,
      message: `cannot find \`${serverName}\` on PATH; build it (cmake --build --preset release --target asyncfix_lsp_bin) and put it on PATH, or set \`asyncfix.path\``,
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
      const found = findOnPath(file, searchPath);
      if (found) return { ok: true, command: found };
      return { ok: false, message: `\`asyncfix.path\`: cannot find \`${file}\` on PATH` };
    }
    if (!workspaceFolder) return { ok: false, message: `\`asyncfix.path\` (${configured}) is relative, but no folder is open` };
    file = path.resolve(workspaceFolder, file);
  }
  if (!isExecutableFile(file)) return { ok: false, message: `\`asyncfix.path\`: ${file} is not an executable file` };
  return { ok: true, command: file };
}
