-- wrk script: POST a lead with a distinct Spanish mobile number per request (one wrk thread).
-- Arguments: "inquiry", "inquiry-idempotent" (each request with an Idempotency-Key of its own) or
-- "ingest", then the run number (phones of different runs differ too).
local kind
local run
local n = 0

function init(args)
  kind = args[1]
  run = tonumber(args[2])
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  n = n + 1
  local phone = string.format("+34 6%02d%06d", run, n)
  local body
  local headers = nil
  if kind == "inquiry-idempotent" then
    -- wrk.format sends only the headers it is given: the key and the content type come along.
    headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    headers["Idempotency-Key"] = string.format("bench-%d-%d", run, n)
  end
  if kind ~= "ingest" then
    body = '{"name":"Cliente Bench","type":"buyer","phone_number_1":"' .. phone ..
      '","source":"bench","sourcePage":"https://bench.example/form","search_preferences":[{"operations":["venta"],' ..
      '"property_types":["apartamento"],"locations":[{"name":"Madrid"}],"apartamento":{"bedrooms_min":2}}]}'
  else
    body = '{"id":"x","createdAt":"2026-11-20T10:00:00Z","source":"bench","sourcePage":"https://bench.example/alquiler",' ..
      '"contact":{"name":"Cliente Bench","phone":"' .. phone .. '"},' ..
      '"search":{"budget":"700-900","habs":"2","location":{"name":"Zaragoza"},"freeText":"hola"}}'
  end
  return wrk.format("POST", nil, headers, body)
end
