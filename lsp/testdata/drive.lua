-- Drives plegvet lsp from a real neovim (0.7.2 on Debian bookworm, and
-- later), headless: open a file, wait for plegvet's diagnostics, take the
-- first quick fix, see the diagnostics go, make an unsaved edit that does
-- not parse, see that reported, stop the server. It writes what it saw as
-- JSON to $LSP_OUT and quits with 0, or 1 with out.error on a failure.
-- It uses only what 0.7 has: start_client and buf_attach_client (no
-- vim.lsp.start), code_action with vim.ui.select answered (no apply=true).
local out = { steps = {} }
local wait_ms = tonumber(os.getenv('LSP_WAIT_MS') or '60000')

local function finish(code)
  local f = assert(io.open(os.getenv('LSP_OUT'), 'w'))
  f:write(vim.json.encode(out))
  f:close()
  vim.cmd(code == 0 and 'qall!' or ('cquit ' .. code))
end

local ok, err = pcall(function()
  vim.ui.select = function(items, _, on_choice) on_choice(items[1], 1) end
  local id = vim.lsp.start_client({
    name = 'plegvet',
    cmd = { os.getenv('LSP_CMD'), 'lsp' },
    root_dir = os.getenv('LSP_ROOT'),
    flags = { debounce_text_changes = 0 },
  })
  assert(id, 'the server did not start')
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('LSP_FILE')))
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.lsp.buf_attach_client(buf, id), 'the buffer was not attached')
  local function diags() return vim.diagnostic.get(buf) end
  local function text() return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') end

  assert(vim.wait(wait_ms, function() return #diags() > 0 end, 50), 'no diagnostics after opening')
  out.opened = diags()
  table.insert(out.steps, 'opened')

  local d = out.opened[1]
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  local before = text()
  vim.lsp.buf.code_action({ only = { 'quickfix' } })
  assert(vim.wait(wait_ms, function() return text() ~= before end, 50), 'the quick fix changed nothing')
  out.fixed = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  assert(vim.wait(wait_ms, function() return #diags() == 0 end, 50), 'diagnostics left after the fix')
  table.insert(out.steps, 'fixed')

  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'const Broken =' })
  assert(vim.wait(wait_ms, function()
    for _, x in ipairs(diags()) do
      if x.severity == vim.diagnostic.severity.ERROR then return true end
    end
    return false
  end, 50), 'no error for an edit that does not parse')
  out.broken = diags()
  out.modified = vim.bo[buf].modified
  table.insert(out.steps, 'broken')

  vim.lsp.stop_client(id)
  assert(vim.wait(wait_ms, function() return vim.lsp.get_client_by_id(id) == nil end, 50), 'the server did not stop')
  table.insert(out.steps, 'stopped')
end)
if not ok then
  out.error = tostring(err)
  finish(1)
else
  finish(0)
end
