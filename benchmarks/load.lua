-- wrk's script for benchmarks/load.py: wrk -t N -c N -s load.lua URL -- SCENARIO DATAFILE DRILL ANSWER
-- One connection per thread, each thread one student (the DATAFILE's line of its number:
-- "token<TAB>cookie<TAB>variant id"), so a start's response tells its thread which variant to
-- submit to. done() prints one JSON line that load.py reads.
local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("id", next_id)
  table.insert(threads, thread)
end

function init(args)
  scenario, drill, answer = args[1], args[3], args[4]
  local students = {}
  for line in io.lines(args[2]) do
    local token, cookie, variant = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)$")
    table.insert(students, {token = token, cookie = cookie, variant = variant})
  end
  student = students[(id - 1) % #students + 1]
  bearer = {Authorization = "Bearer " .. student.token, ["Content-Type"] = "application/json"}
  non2xx, submitted, pending, last = 0, 0, nil, nil
end

function request()
  if scenario == "ping" then
    return wrk.format("GET", "/ping")
  elseif scenario == "progress" then
    return wrk.format("GET", "/api/progress", bearer)
  elseif scenario == "page" then
    return wrk.format("GET", "/variants/" .. student.variant, {Cookie = student.cookie})
  elseif scenario == "start" or pending == nil then
    last = "start"
    return wrk.format("POST", "/api/drills/" .. drill .. "/variants", bearer, "{}")
  end
  last = "submit"
  local variant = pending
  pending = nil
  return wrk.format("POST", "/api/variants/" .. variant .. "/submissions", bearer,
    '{"answer": "' .. answer .. '"}')
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
  if scenario == "pair" then
    if last == "start" and status == 201 then
      pending = (headers["Location"] or ""):match("(%d+)$")
    elseif last == "submit" and status == 201 then
      submitted = submitted + 1
    end
  end
end

function done(summary, latency, requests)
  local bad, acknowledged = 0, 0
  for _, thread in ipairs(threads) do
    bad = bad + thread:get("non2xx")
    acknowledged = acknowledged + thread:get("submitted")
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "non2xx": %d, ' ..
    '"submitted": %d, "socket_errors": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    bad, acknowledged, e.connect + e.read + e.write + e.timeout))
end
