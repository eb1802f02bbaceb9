-- wrk script: GET <path><id> over random ids of a list. Arguments: path prefix, then the ids.
local prefix
local ids = {}

function init(args)
  prefix = args[1]
  for i = 2, #args do ids[#ids + 1] = args[i] end
  math.randomseed(7)
end

function request()
  return wrk.format("GET", prefix .. ids[math.random(#ids)])
end
