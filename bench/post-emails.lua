-- wrk script: POST the portal e-mails of a folder (0.eml … N-1.eml) as message/rfc822, each in
-- turn (after the last, the first again), and stop once M answers have come: the milliseconds
-- from the first request to the Mth answer (CLOCK_MONOTONIC, through LuaJIT's ffi) are written
-- to a file, which tells the benchmark to end the run (bench/wrk.ts `until`).
-- Arguments: the folder, N, M, the file to write.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } inmo_timespec;
int clock_gettime(int clock_id, inmo_timespec *tp);
]]
local clock = ffi.new("inmo_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, clock)
  return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
end

local bodies = {}
local count, stop_after, out
local sent, answered, started = 0, 0, nil

function init(args)
  local folder = args[1]
  count = tonumber(args[2])
  stop_after = tonumber(args[3])
  out = args[4]
  for i = 0, count - 1 do
    local file = assert(io.open(folder .. "/" .. i .. ".eml", "rb"))
    bodies[i + 1] = file:read("*a")
    file:close()
  end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "message/rfc822"
end

function request()
  if started == nil then started = now_ms() end
  sent = sent + 1
  return wrk.format(nil, nil, nil, bodies[(sent - 1) % count + 1])
end

function response(status, headers, body)
  answered = answered + 1
  if answered == stop_after then
    local file = assert(io.open(out, "w"))
    file:write(string.format("%.3f\n", now_ms() - started))
    file:close()
    wrk.thread:stop()
  end
end
