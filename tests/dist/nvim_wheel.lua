-- Neovim with the asyncfix plugin and the server the wheel installed: setup() with no `cmd`, so
-- the plugin starts `asyncfix-lsp` from PATH (the environment's bin), as a user who ran
-- `pip install asyncfix-….whl` into an activated environment gets it. Run by tests/dist/test_wheel.py:
--   nvim --headless --clean -c 'luafile nvim_wheel.lua' FILE
-- with ASYNCFIX_PLUGIN_DIR (editors/nvim). Prints `diagnostics: CODE...` and exits 0, or exits 1.
local plugin = assert(os.getenv('ASYNCFIX_PLUGIN_DIR'), 'ASYNCFIX_PLUGIN_DIR is not set')
vim.opt.runtimepath:prepend(plugin)
vim.cmd('filetype on')
local asyncfix = require('asyncfix')
asyncfix.setup({})
vim.cmd('checkhealth asyncfix')
local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
vim.cmd('bwipeout')
io.stdout:write('health: ' .. (health:match('OK: ([^\n]*asyncfix%-lsp[^\n]*)') or 'no server found') .. '\n')
vim.cmd('edit ' .. vim.fn.fnameescape(vim.fn.argv(0)))
local buf = vim.api.nvim_get_current_buf()
local ok = vim.wait(20000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
local codes = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(codes, tostring(d.code))
end
io.stdout:write('diagnostics: ' .. table.concat(codes, ' ') .. '\n')
vim.cmd(ok and 'qall!' or 'cquit 1')
