-- asyncfix-lsp for Neovim 0.11+ (`:help lsp-config`). With this directory on 'runtimepath':
--
--   vim.lsp.config('asyncfix', { settings = { asyncfix = { targetVersion = 'py36' } } }) -- optional
--   vim.lsp.enable('asyncfix')
--
-- Neovim sends `settings` to the server with workspace/didChangeConfiguration when the client
-- starts and answers workspace/configuration from it; `init_options` is the initializationOptions.
-- The server reads both, flat or under an "asyncfix" key (docs/language-server.md: Settings).
-- Older Neovim: require('asyncfix').setup{} (lua/asyncfix/init.lua) does the same.
return {
  cmd = { 'asyncfix-lsp' },
  filetypes = { 'python' },
  -- The configuration files the server reads, then other marks of a Python project, then the
  -- repository. Keep in sync with root_markers in lua/asyncfix/init.lua (the Neovim test checks).
  root_markers = { '.asyncfix.toml', 'asyncfix.toml', 'pyproject.toml', 'setup.cfg', 'setup.py', '.git' },
  workspace_required = false,
  init_options = { asyncfix = {} },
  settings = { asyncfix = {} },
}
