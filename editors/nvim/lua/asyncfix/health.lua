-- :checkhealth asyncfix — is the server there, which version, what runs.
local M = {}

-- vim.health.start/ok/... from 0.9 (0.8: vim.health.report_*), require('health') in 0.7.
local function reporter()
  local h = vim.health
  if h and h.start then
    return h
  end
  local old = (h and h.report_start) and h or require('health')
  return {
    start = old.report_start,
    ok = old.report_ok,
    info = old.report_info,
    warn = old.report_warn,
    error = old.report_error,
  }
end

function M.check()
  local health = reporter()
  local asyncfix = require('asyncfix')
  local options = asyncfix.options()
  health.start('asyncfix')
  if not options then
    health.warn('setup() has not been called', { "require('asyncfix').setup({}) in your configuration" })
    return
  end
  local exe = options.cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    health.error(string.format('`%s` is not an executable', exe),
      { 'install the asyncfix wheel into an environment and activate it (pip install asyncfix-<version>-<tags>.whl),'
        .. ' or build asyncfix (cmake --build --preset release) and put build/release/lsp on PATH, or set cmd' })
  else
    local output = vim.fn.system({ exe, '--version' })
    if vim.v.shell_error == 0 then
      health.ok(string.format('%s: %s', vim.fn.exepath(exe), vim.trim(output)))
    else
      health.error(string.format('`%s --version` failed: %s', exe, vim.trim(output)))
    end
  end
  local settings = vim.inspect(options.settings, { newline = ' ', indent = '' })
  health.info('settings: ' .. settings)
  for _, line in ipairs(asyncfix.info()) do
    health.info(line)
  end
end

return M
