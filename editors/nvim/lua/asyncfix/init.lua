-- asyncfix for Neovim: starts `asyncfix-lsp` for Python buffers, one client per project root.
--
--   require('asyncfix').setup({
--     cmd = { 'asyncfix-lsp' },                    -- the default
--     settings = { targetVersion = 'py38', ignore = { 'AF001' }, unsafeFixes = false },
--   })
--
-- Runs on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client) and uses vim.lsp.start
-- from 0.8 on. The settings reach the server as initializationOptions, as the answer to
-- workspace/configuration (section "asyncfix"), and through workspace/didChangeConfiguration when
-- they change (update_settings). See :help asyncfix and docs/editors.md (Neovim).
local M = {}

local NAME = 'asyncfix'
local COMMAND_FIX_FILE = 'asyncfix.applyAutofix'
local COMMAND_FIX_WORKSPACE = 'asyncfix.fixWorkspace'
local FIX_ALL_KIND = 'source.fixAll.asyncfix'

-- The keys setup() understands; any other key (on_attach, capabilities, handlers, cmd_env, flags,
-- on_exit, ...) is passed on to the client configuration unchanged.
local defaults = {
  cmd = { 'asyncfix-lsp' },
  filetypes = { 'python' },
  -- The nearest directory holding one of these is the root: the workspace folder the server
  -- walks for "fix the workspace". The configuration files the server reads come first
  -- (lib/src/config/settings.cpp), then other marks of a Python project, then the repository.
  root_markers = { '.asyncfix.toml', 'asyncfix.toml', 'pyproject.toml', 'setup.cfg', 'setup.py', '.git' },
  -- A file outside any root gets a client of its own directory (true) or none (false).
  single_file_support = true,
  -- select, extendSelect, ignore, targetVersion, renameStyle, unsafeFixes (camelCase or kebab-case).
  settings = {},
  -- Apply the safe fixes (source.fixAll.asyncfix) before each write.
  fix_on_save = false,
  fix_on_save_timeout_ms = 2000,
  -- Define :AsyncfixFixAll, :AsyncfixFixWorkspace, :AsyncfixRestart, :AsyncfixInfo.
  commands = true,
}
local own_keys = {}
for key in pairs(defaults) do
  own_keys[key] = true
end

local config = nil -- the merged setup() options
local clients = {} -- root directory -> client id
local stopping = {} -- client id -> true: stopped by restart(), perhaps not gone yet
local augroup = nil
local warned = {}

-- ---- small compatibility helpers (0.7 … 0.11) ----

local uv = vim.loop

local function notify(message, level)
  vim.notify('asyncfix: ' .. message, level or vim.log.levels.INFO)
end

local function notify_once(key, message, level)
  if warned[key] then
    return
  end
  warned[key] = true
  notify(message, level)
end

--- Raises "asyncfix: `name` must be a <kind>, not <value>" (vim.validate's signature changed in
--- 0.11, so the plugin checks its few options itself).
local function expect_type(name, value, kind)
  if type(value) ~= kind then
    error(string.format('asyncfix: `%s` must be a %s, not %s', name, kind, vim.inspect(value)), 3)
  end
end

--- The asyncfix clients whose server still runs: those Neovim lists, and those this plugin
--- started that are still initializing (Neovim 0.7 lists only initialized clients, and may list
--- one whose server died while it was initializing).
local function all_clients()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local out, seen = {}, {}
  for _, client in ipairs(get()) do
    if client.name == NAME and not client:is_stopped() then
      table.insert(out, client)
      seen[client.id] = true
    end
  end
  for _, id in pairs(clients) do
    local client = not seen[id] and vim.lsp.get_client_by_id(id)
    if client and not client:is_stopped() then
      table.insert(out, client)
      seen[id] = true
    end
  end
  return out
end

local function is_stopped(client)
  -- A plain function in 0.7 (it ignores its argument), a method from 0.10 on.
  return client:is_stopped()
end

local function request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function request_sync(client, method, params, timeout_ms, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request_sync(method, params, timeout_ms, bufnr)
  end
  return client.request_sync(method, params, timeout_ms, bufnr)
end

local function client_notify(client, method, params)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function buffers_of(client)
  -- client.attached_buffers exists from 0.7 on; vim.lsp.get_buffers_by_client_id is deprecated.
  local out = {}
  for bufnr, attached in pairs(client.attached_buffers or {}) do
    if attached then
      table.insert(out, bufnr)
    end
  end
  table.sort(out)
  return out
end

local function is_dir(path)
  local stat = uv.fs_stat(path)
  return stat ~= nil and stat.type == 'directory'
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

-- ---- roots ----

--- The nearest directory at or above `path` that holds one of `markers`, or nil.
function M.find_root(path, markers)
  local dir = is_dir(path) and path or vim.fn.fnamemodify(path, ':h')
  dir = vim.fn.fnamemodify(dir, ':p'):gsub('/$', '')
  if dir == '' then
    dir = '/'
  end
  while true do
    for _, marker in ipairs(markers) do
      if exists((dir == '/' and '' or dir) .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

--- The root a buffer's client is for, or nil when the buffer gets no client: a buffer that is not
--- a file (a terminal, help, a fugitive:// or scp:// buffer), or has no name yet (Neovim calls
--- every unnamed buffer `file://`, so the server's diagnostics for it would find no buffer).
local function root_for(bufnr)
  if vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' then
    return nil
  end
  if name:match('^%a[%w+.-]*://') and not name:match('^file://') then
    return nil
  end
  local path = vim.fn.fnamemodify(name, ':p')
  local root = M.find_root(path, config.root_markers)
  if root then
    return root
  end
  return config.single_file_support and vim.fn.fnamemodify(path, ':h') or nil
end

-- ---- the client configuration ----

--- The settings as the server reads them under "asyncfix": a table given as
--- `{ asyncfix = {...} }` is unwrapped (the plugin adds that level itself).
local function flat_settings(settings)
  if type(settings.asyncfix) == 'table' then
    return vim.deepcopy(settings.asyncfix)
  end
  return vim.deepcopy(settings)
end

--- A JSON object even when empty (an empty Lua table would be encoded as `[]`).
local function as_object(t)
  return next(t) == nil and vim.empty_dict() or t
end

local function client_config(root)
  local settings = as_object(vim.deepcopy(config.settings))
  local conf = {}
  for key, value in pairs(config) do
    if not own_keys[key] then
      conf[key] = value
    end
  end
  conf.name = NAME
  conf.cmd = config.cmd
  conf.root_dir = root
  conf.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  -- Both shapes the server reads: initializationOptions at startup, and the "asyncfix" section
  -- for workspace/configuration and workspace/didChangeConfiguration.
  conf.init_options = vim.tbl_extend('force', config.init_options or {}, { asyncfix = settings })
  conf.settings = { asyncfix = settings }
  local on_exit = config.on_exit
  conf.on_exit = function(code, signal, client_id)
    stopping[client_id] = nil
    for r, id in pairs(clients) do
      if id == client_id then
        clients[r] = nil
      end
    end
    if code ~= 0 or (signal ~= 0 and signal ~= 15) then
      vim.schedule(function()
        notify(
          string.format('the server for %s exited with code %d, signal %d; :AsyncfixRestart starts it again', root, code, signal),
          vim.log.levels.WARN
        )
      end)
    end
    if on_exit then
      on_exit(code, signal, client_id)
    end
  end
  return conf
end

local function executable_ok()
  local exe = config.cmd[1]
  if type(exe) ~= 'string' or vim.fn.executable(exe) ~= 1 then
    notify_once(
      'cmd:' .. tostring(exe),
      string.format('`%s` is not an executable; install asyncfix-lsp or set cmd in setup()', tostring(exe)),
      vim.log.levels.ERROR
    )
    return false
  end
  return true
end

--- Starts (or reuses) the client for the buffer's root and attaches the buffer. Returns the
--- client id, or nil when the buffer gets no client.
function M.attach(bufnr)
  if not config then
    M.setup({})
  end
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return nil
  end
  local root = root_for(bufnr)
  if not root or not executable_ok() then
    return nil
  end

  local id = clients[root]
  local existing = id and vim.lsp.get_client_by_id(id)
  if existing and not is_stopped(existing) then
    vim.lsp.buf_attach_client(bufnr, id)
    return id
  end

  if vim.lsp.start then
    -- 0.8+: vim.lsp.start reuses a running client with the same name and root.
    vim.api.nvim_buf_call(bufnr, function()
      id = vim.lsp.start(client_config(root), {
        bufnr = bufnr,
        reuse_client = function(client, conf)
          return client.name == conf.name and client.config.root_dir == conf.root_dir and not stopping[client.id]
            and not is_stopped(client)
        end,
      })
    end)
  else
    id = vim.lsp.start_client(client_config(root))
    if id then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  if not id then
    notify('could not start ' .. table.concat(config.cmd, ' '), vim.log.levels.ERROR)
    return nil
  end
  clients[root] = id
  return id
end

--- The initialized asyncfix client attached to a buffer, or nil.
function M.client_for(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  for _, client in ipairs(all_clients()) do
    if client.initialized and vim.lsp.buf_is_attached(bufnr, client.id) and not stopping[client.id] then
      return client
    end
  end
  return nil
end

local function require_client(bufnr)
  local client = M.client_for(bufnr)
  if not client then
    notify('no asyncfix server for this buffer (yet)', vim.log.levels.WARN)
  end
  return client
end

local function report_error(what)
  return function(err)
    if err then
      notify(what .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end
end

-- ---- commands ----

--- Fixes every fixable problem in the buffer (asyncfix.applyAutofix; unsafe fixes only with the
--- unsafeFixes setting). The server sends the edit back through workspace/applyEdit.
function M.fix_all(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = require_client(bufnr)
  if not client then
    return
  end
  -- With the version the server refuses to fix a text it has not seen yet (ContentModified).
  local version = vim.lsp.util.buf_versions and vim.lsp.util.buf_versions[bufnr]
  local argument = version and { uri = vim.uri_from_bufnr(bufnr), version = version } or vim.uri_from_bufnr(bufnr)
  request(client, 'workspace/executeCommand', { command = COMMAND_FIX_FILE, arguments = { argument } },
    report_error('fix all'), bufnr)
end

--- Fixes every Python file under the workspace folders of the buffer's server
--- (asyncfix.fixWorkspace, with progress).
function M.fix_workspace(bufnr)
  local client = require_client(bufnr)
  if not client then
    return
  end
  request(client, 'workspace/executeCommand', { command = COMMAND_FIX_WORKSPACE, arguments = {} },
    report_error('fix workspace'), bufnr)
end

--- Applies source.fixAll.asyncfix (safe fixes only) to the buffer and waits for it, at most
--- `timeout_ms`. Used before a write when fix_on_save is set.
function M.fix_all_sync(bufnr, timeout_ms)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  timeout_ms = timeout_ms or config.fix_on_save_timeout_ms
  local client = M.client_for(bufnr)
  if not client then
    return false
  end
  local line_count = vim.api.nvim_buf_line_count(bufnr)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 0, character = 0 }, ['end'] = { line = line_count, character = 0 } },
    context = { diagnostics = {}, only = { FIX_ALL_KIND } },
  }
  local response, err = request_sync(client, 'textDocument/codeAction', params, timeout_ms, bufnr)
  if not response then
    notify('fix on save: ' .. tostring(err), vim.log.levels.WARN)
    return false
  end
  if response.err then
    notify('fix on save: ' .. (response.err.message or vim.inspect(response.err)), vim.log.levels.WARN)
    return false
  end
  for _, action in ipairs(response.result or {}) do
    if action.kind == FIX_ALL_KIND then
      if not action.edit and action.data then
        local resolved = request_sync(client, 'codeAction/resolve', action, timeout_ms, bufnr)
        action = resolved and not resolved.err and resolved.result or action
      end
      if action.edit then
        vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or 'utf-16')
        return true
      end
    end
  end
  return false
end

local function attach_loaded()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(config.filetypes, vim.bo[bufnr].filetype) then
      M.attach(bufnr)
    end
  end
end

--- Stops every asyncfix client and starts new ones for the loaded buffers of the configured
--- filetypes (also those whose server died).
function M.restart()
  if not config then
    error('asyncfix: call setup() before restart()', 2)
  end
  for _, client in ipairs(all_clients()) do
    -- Stopping a client twice sends a second shutdown, which fails, and Neovim then kills the
    -- server (SIGTERM) in the middle of its clean exit.
    if not stopping[client.id] then
      stopping[client.id] = true
      vim.lsp.stop_client(client.id)
    end
  end
  clients = {}
  attach_loaded()
end

--- Merges `settings` into the current ones and sends them to every running server
--- (workspace/didChangeConfiguration). Keys left out keep their values.
function M.update_settings(settings)
  expect_type('settings', settings, 'table')
  if not config then
    error('asyncfix: call setup() before update_settings()', 2)
  end
  -- Top-level keys replace the old ones: `{ ignore = {} }` clears the list.
  config.settings = vim.tbl_extend('force', config.settings, flat_settings(settings))
  for _, client in ipairs(all_clients()) do
    local section = { asyncfix = as_object(vim.deepcopy(config.settings)) }
    -- Neovim answers workspace/configuration from client.config.settings (0.7) or
    -- client.settings (0.10+).
    client.config.settings = section
    if client.settings ~= nil then
      client.settings = section
    end
    client_notify(client, 'workspace/didChangeConfiguration', { settings = section })
  end
end

--- One line per running client: its id, root and buffers.
function M.info()
  local lines = {}
  for _, client in ipairs(all_clients()) do
    local buffers = buffers_of(client)
    table.insert(lines, string.format('client %d: root %s, %d buffer(s), %s', client.id,
      tostring(client.config.root_dir), #buffers,
      (is_stopped(client) and 'stopped') or (stopping[client.id] and 'stopping') or 'running'))
  end
  if #lines == 0 then
    lines = { 'no asyncfix server is running' }
  end
  return lines
end

local function define_commands()
  local command = vim.api.nvim_create_user_command
  command('AsyncfixFixAll', function()
    M.fix_all(0)
  end, { desc = 'asyncfix: fix all problems in this file' })
  command('AsyncfixFixWorkspace', function()
    M.fix_workspace(0)
  end, { desc = 'asyncfix: fix all problems in the workspace' })
  command('AsyncfixRestart', function()
    M.restart()
  end, { desc = 'asyncfix: restart the server' })
  command('AsyncfixInfo', function()
    notify(table.concat(M.info(), '\n'))
  end, { desc = 'asyncfix: show the running servers' })
end

-- ---- setup ----

local function validate(opts)
  expect_type('cmd', opts.cmd, 'table')
  expect_type('filetypes', opts.filetypes, 'table')
  expect_type('root_markers', opts.root_markers, 'table')
  expect_type('settings', opts.settings, 'table')
  expect_type('single_file_support', opts.single_file_support, 'boolean')
  expect_type('fix_on_save', opts.fix_on_save, 'boolean')
  expect_type('fix_on_save_timeout_ms', opts.fix_on_save_timeout_ms, 'number')
  expect_type('commands', opts.commands, 'boolean')
  if #opts.cmd == 0 or type(opts.cmd[1]) ~= 'string' then
    error('asyncfix: `cmd` must name the server executable, e.g. { "asyncfix-lsp" }', 3)
  end
end

--- Configures the plugin and starts the server for Python buffers (now and on `FileType`).
--- Calling it again replaces the options; running servers keep theirs until :AsyncfixRestart.
function M.setup(opts)
  opts = opts or {}
  expect_type('opts', opts, 'table')
  local merged = vim.tbl_extend('force', vim.deepcopy(defaults), opts)
  validate(merged)
  merged.settings = flat_settings(merged.settings)
  config = merged
  warned = {}

  augroup = vim.api.nvim_create_augroup('asyncfix', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = augroup,
    pattern = config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
    desc = 'asyncfix: start the language server',
  })
  -- An unnamed buffer gets its client when it is first written under a name.
  vim.api.nvim_create_autocmd('BufWritePost', {
    group = augroup,
    callback = function(args)
      if vim.tbl_contains(config.filetypes, vim.bo[args.buf].filetype) and not M.client_for(args.buf) then
        M.attach(args.buf)
      end
    end,
    desc = 'asyncfix: start the language server for a buffer that got a name',
  })
  if config.fix_on_save then
    vim.api.nvim_create_autocmd('BufWritePre', {
      group = augroup,
      callback = function(args)
        if M.client_for(args.buf) then
          M.fix_all_sync(args.buf)
        end
      end,
      desc = 'asyncfix: apply the safe fixes before writing',
    })
  end
  if config.commands then
    define_commands()
  end
  -- Buffers that were already open when setup() ran.
  attach_loaded()
end

--- The merged options (nil before setup).
function M.options()
  return config
end

return M
