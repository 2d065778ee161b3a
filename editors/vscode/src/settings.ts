// The editor's `asyncfix.*` settings as the server reads them: `initializationOptions` and
// `workspace/didChangeConfiguration`'s `settings.asyncfix` (lsp/protocol.cpp, fromJSON(Settings)).
// No `vscode` import here, so this file is tested under plain Node.

/** What the server accepts, key for key (camelCase, as in lsp/protocol.cpp). */
export interface ServerSettings {
  select?: string[];
  extendSelect?: string[];
  ignore?: string[];
  targetVersion?: string;
  renameStyle?: string;
  unsafeFixes?: boolean;
}

/** The keys mirrored to the server; every other `asyncfix.*` setting belongs to the extension. */
export const serverKeys = ['select', 'extendSelect', 'ignore', 'targetVersion', 'renameStyle', 'unsafeFixes'] as const;
export type ServerKey = (typeof serverKeys)[number];

/**
 * One setting as VS Code reports it (`WorkspaceConfiguration.inspect`): only the values the user
 * set. A setting left at its default is not sent, so the project's configuration file
 * (`pyproject.toml` `[tool.asyncfix]`) decides; the server puts what is sent on top of it.
 */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The value the user set, the most specific scope first, or undefined. */
function userValue(inspected: Inspected | undefined): unknown {
  if (!inspected) return undefined;
  return inspected.workspaceFolderValue ?? inspected.workspaceValue ?? inspected.globalValue;
}

function stringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (!Array.isArray(value)) return undefined;
  return value.filter((v): v is string => typeof v === 'string').map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * The server's settings from the user's `asyncfix.*` values. Empty strings mean "not set" (the
 * settings UI cannot unset a string); an explicitly set empty list is sent (`select: []` selects
 * nothing, as on the command line). Values of the wrong type are left out (VS Code only warns
 * about them in settings.json); the server reports values it does not understand.
 */
export function serverSettings(inspect: (key: ServerKey) => Inspected | undefined): ServerSettings {
  const out: ServerSettings = {};
  for (const key of ['select', 'extendSelect', 'ignore'] as const) {
    const list = stringList(userValue(inspect(key)));
    if (list) out[key] = list;
  }
  for (const key of ['targetVersion', 'renameStyle'] as const) {
    const value = userValue(inspect(key));
    if (typeof value === 'string' && value.trim() !== '') out[key] = value.trim();
  }
  const unsafe = userValue(inspect('unsafeFixes'));
  if (typeof unsafe === 'boolean') out.unsafeFixes = unsafe;
  return out;
}

/**
 * How a settings change reaches a running server. The server lays the latest
 * didChangeConfiguration over initializationOptions key by key, so a notification can change a key
 * but cannot take back one that initializationOptions set: that needs a restart (which sends the
 * new settings as initializationOptions).
 */
export function changeNeedsRestart(initial: ServerSettings, current: ServerSettings): boolean {
  return serverKeys.some((key) => initial[key] !== undefined && current[key] === undefined);
}
