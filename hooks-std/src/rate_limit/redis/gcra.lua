-- The GCRA, in one script run atomically by Redis (see `RedisStore`).
--
-- KEYS[1]: the bucket; KEYS[2]: the epoch of its hash tag (same slot).
-- ARGV: the whole microseconds and the remainder (in 1/max us) one call
-- costs, max, per in us, and `acquire` or `release`. Answers {1, 0}
-- (admitted or given back) or {0, wait in us}. A bucket holds
-- "<us> <remainder> <max>"; an epoch "<run id> <us>": the server that
-- wrote it, and when its counts were last lost.
if redis.replicate_commands then redis.replicate_commands() end
local key, epoch_key = KEYS[1], KEYS[2]
local q, r = tonumber(ARGV[1]), tonumber(ARGV[2])
local max, per = tonumber(ARGV[3]), tonumber(ARGV[4])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

-- Counts lost? The epoch names the server process that wrote it. None: the
-- server started empty (a restart without persistence, or a new server), so
-- counts made before it started are gone. Another run id: the data was
-- restored from a snapshot or a replica (RDB, AOF everysec, a failover),
-- and may miss the last calls counted. Either way, until a window has
-- passed since the loss, a bucket is taken to be as spent as it could have
-- been then: no earlier than `lost + per`, the furthest ahead GCRA ever
-- lets a bucket run. Never more than the limit; calls go on at the steady
-- rate (one per per/max), only the burst waits.
local info = redis.call('INFO', 'server')
local run_id = string.match(info, 'run_id:(%x+)')
local epoch = redis.call('GET', epoch_key)
local e_run, e_lost
if epoch then e_run, e_lost = string.match(epoch, '^(%x+) (%d+)$') end
local lost
if e_run and e_run == run_id then
  lost = tonumber(e_lost)
else
  if epoch then
    lost = now
  else
    local uptime = tonumber(string.match(info, 'uptime_in_seconds:(%d+)'))
    lost = now - (uptime + 1) * 1000000
    if lost < 0 then lost = 0 end
  end
  redis.call('SET', epoch_key, string.format('%s %.0f', run_id, lost))
end
local floor = lost + per

local us, frac = now, 0
local stored = redis.call('GET', key)
if stored then
  local s_us, s_frac, s_max = string.match(stored, '^(%d+) (%d+) (%d+)$')
  if not s_us then
    return redis.error_reply('rate-limit bucket ' .. key .. ' holds ' .. stored .. ', not a time')
  end
  us, frac = tonumber(s_us), tonumber(s_frac)
  if tonumber(s_max) ~= max then
    -- Counted under another max: the remainder is in other units. Round up
    -- to the microsecond: the same time, give or take less than 1 us.
    if frac > 0 then us = us + 1 end
    frac = 0
  end
end
local function save()
  -- Full again at us + frac/max, before now + floor((us - now) / 1000) + 1 ms.
  local ttl = math.floor((us - now) / 1000) + 1
  redis.call('SET', key, string.format('%.0f %.0f %.0f', us, frac, max), 'PX', string.format('%.0f', ttl))
end
if ARGV[5] == 'release' then
  if not stored then return {1, 0} end
  us, frac = us - q, frac - r
  if frac < 0 then us, frac = us - 1, frac + max end
  -- A slot taken before a loss is not given back past it.
  if us < floor and floor > now then us, frac = floor, 0 end
  if us < now or (us == now and frac == 0) then
    redis.call('DEL', key)
  else
    save()
  end
  return {1, 0}
end
if us < now then us, frac = now, 0 end
if us < floor then us, frac = floor, 0 end
us, frac = us + q, frac + r
if frac >= max then us, frac = us + 1, frac - max end
local ahead = us - now
if ahead > per or (ahead == per and frac > 0) then
  local wait = ahead - per
  if frac > 0 then wait = wait + 1 end
  return {0, wait}
end
save()
return {1, 0}
