-- tests/test_neovim.py's hands on a real Neovim: after the documented init.lua has run, open
-- a file, take the steps of the plan as a user would (hover, pick a code action, save) and write
-- what the editor then holds to a JSON file, for the test to judge. Written for Neovim 0.7's
-- API, which later releases keep. Every wait has a timeout; any error is recorded and ends it.

local plan = vim.fn.json_decode(os.getenv("TVMLINT_NVIM_PLAN"))
local out = os.getenv("TVMLINT_NVIM_RESULT")
local WAIT = plan.wait_ms
local version = vim.version()
local report = { version = { version.major, version.minor, version.patch }, steps = {} }

-- the API of the release at hand: 0.10 renamed what 0.7 has, and 0.12 drops the old names
local clients_of = vim.lsp.get_clients and function(buf) return vim.lsp.get_clients({ bufnr = buf }) end
  or vim.lsp.buf_get_clients
local all_clients = vim.lsp.get_clients or vim.lsp.get_active_clients
local function sent_version(buf) -- the version of the buffer the client last sent the server
  local versions = vim.lsp.util.buf_versions
  local sent = versions and versions[buf]
  if sent == nil then
    sent = vim.api.nvim_buf_get_changedtick(buf)
  end
  return sent
end

local function save_report()
  local file = assert(io.open(out, "w"))
  file:write(vim.fn.json_encode(report))
  file:close()
end

local function wait_for(what, condition)
  if not vim.wait(WAIT, condition, 20) then
    error("timed out after " .. WAIT .. " ms waiting for " .. what)
  end
end

-- the version of each buffer's last published diagnostics, from the client's own handler
local published = {}
local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  publish(err, result, ctx, config)
  if result then
    published[result.uri] = result.version or "none"
  end
end

local function tvmlint_client(buf)
  for _, client in pairs(clients_of(buf)) do
    if client.name == "tvmlint" then
      return client
    end
  end
end

-- diagnostics for the buffer as it is now: published for the version the client last sent
local function settle(buf)
  local uri = vim.uri_from_bufnr(buf)
  wait_for("diagnostics of version " .. tostring(sent_version(buf)), function()
    return published[uri] ~= nil and published[uri] == sent_version(buf)
  end)
end

local function snapshot(buf)
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(diagnostics, {
      line = d.lnum, col = d.col, end_col = d.end_col, code = d.code or lsp.code,
      source = d.source, severity = d.severity, message = d.message,
    })
  end
  table.sort(diagnostics, function(a, b)
    return a.line < b.line or (a.line == b.line and a.col < b.col)
  end)
  return { diagnostics = diagnostics, lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false) }
end

local function hover(buf, step)
  vim.api.nvim_win_set_cursor(0, { step.line + 1, step.col })
  local params = vim.lsp.util.make_position_params(0, tvmlint_client(buf).offset_encoding)
  local replies, err = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, WAIT)
  if not replies then
    error("hover: " .. tostring(err))
  end
  for _, reply in pairs(replies) do
    if reply.result and reply.result.contents then
      local contents = reply.result.contents
      return { hover = contents.value or contents, range = reply.result.range }
    end
  end
  return { hover = vim.NIL }
end

-- the user asks for code actions at the cursor and picks the one whose title holds `pick`
local function code_action(buf, step)
  vim.api.nvim_win_set_cursor(0, { step.line + 1, step.col })
  local offered
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    vim.ui.select = select
    offered = {}
    local chosen
    for _, item in ipairs(items) do
      local action = item.action or item[2] -- 0.8+: {action=, ctx=}; 0.7: {client_id, action}
      table.insert(offered, action.title)
      if not chosen and string.find(action.title, step.pick, 1, true) then
        chosen = item
      end
    end
    on_choice(chosen)
  end
  vim.lsp.buf.code_action()
  wait_for("the code action menu", function() return offered ~= nil end)
  wait_for("the edit of '" .. step.pick .. "'", function()
    return vim.api.nvim_buf_get_changedtick(buf) ~= tick
  end)
  settle(buf)
  local state = snapshot(buf)
  state.offered = offered
  return state
end

local function run()
  vim.cmd("edit " .. vim.fn.fnameescape(plan.file))
  local buf = vim.api.nvim_get_current_buf()
  report.filetype = vim.bo[buf].filetype
  wait_for("the tvmlint client to attach", function() return tvmlint_client(buf) ~= nil end)
  settle(buf)
  for _, step in ipairs(plan.steps) do
    local record
    if step["do"] == "diagnostics" then
      record = snapshot(buf)
    elseif step["do"] == "hover" then
      record = hover(buf, step)
    elseif step["do"] == "action" then
      record = code_action(buf, step)
    elseif step["do"] == "write" then
      vim.cmd("write")
      record = {}
    else
      error("unknown step " .. tostring(step["do"]))
    end
    record["do"] = step["do"]
    table.insert(report.steps, record)
    save_report()
  end
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  report.error = tostring(err)
end
save_report()
-- let the server go the way an editor's exit does (shutdown, exit), then quit
vim.lsp.stop_client(all_clients())
vim.wait(10000, function() return #all_clients() == 0 end, 50)
vim.cmd("qa!")
