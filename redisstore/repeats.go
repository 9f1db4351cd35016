package redisstore

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/mcpguard/mcpguard/core/limit"
)

// The Store is also a limit.RepeatStore, for the repeated-failure guard
// of both fronts and the proxy (limit.WithRepeatStore), so that replicas
// share a caller's counts with the same meaning as in process. A caller's
// counts are one hash under the store's prefix, "guard:" and the hex of
// the SHA-256 of the caller's key (so at most the prefix plus 70 bytes),
// holding the fingerprint of the caller's credentials and one field per
// failed call (the hex of its digest): its count, its last failure and
// when it may run again. Each operation is one atomic script on Redis's
// own clock. The hash expires a window after the caller's last failure;
// a success deletes it, new credentials empty it, and a caller holds at
// most limit.RepeatMaxPerCaller calls, its oldest evicted first.
var _ limit.RepeatStore = (*Store)(nil)

// repeatEntry reads one call's entry: KEYS[1] the caller's hash; ARGV the
// credential, the call's field, the window in ms. It returns {known} or
// {1, n, wait ms, failure JSON}.
const repeatEntry = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cred = redis.call('HGET', KEYS[1], 'cred')
if not cred then return {0} end
if cred ~= ARGV[1] then redis.call('DEL', KEYS[1]) return {0} end
local v = redis.call('HGET', KEYS[1], ARGV[2])
if not v then return {1} end
local e = cjson.decode(v)
if now - e.at >= tonumber(ARGV[3]) then redis.call('HDEL', KEYS[1], ARGV[2]) return {1} end
return {1, e.n, e.u - now, e.f}
`

// repeatFail records one failure: KEYS[1] the caller's hash; ARGV the
// credential, the call's field, the window, N, the backoff and its cap
// (ms), the most calls a caller holds, the failure as JSON. It returns
// {n, wait ms}.
const repeatFail = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window, need = tonumber(ARGV[3]), tonumber(ARGV[4])
local backoff, cap, most = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local cred = redis.call('HGET', KEYS[1], 'cred')
if cred and cred ~= ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('HSET', KEYS[1], 'cred', ARGV[1])
local n = 0
local v = redis.call('HGET', KEYS[1], ARGV[2])
if v then
  local e = cjson.decode(v)
  if now - e.at < window then n = e.n end
elseif redis.call('HLEN', KEYS[1]) > most then
  local all = redis.call('HGETALL', KEYS[1])
  local oldest, at = nil, nil
  for i = 1, #all, 2 do
    if all[i] ~= 'cred' then
      local e = cjson.decode(all[i + 1])
      if not at or e.at < at then oldest, at = all[i], e.at end
    end
  end
  if oldest then redis.call('HDEL', KEYS[1], oldest) end
end
n = n + 1
local hold = 0
if n >= need then
  hold = backoff
  for i = need + 1, n do
    if hold >= cap then break end
    hold = hold * 2
  end
  hold = math.min(hold, cap)
end
redis.call('HSET', KEYS[1], ARGV[2], cjson.encode({n = n, at = now, u = now + hold, f = ARGV[8]}))
redis.call('PEXPIRE', KEYS[1], window)
return {n, hold}
`

var (
	repeatEntrySHA1 = scriptSHA1(repeatEntry)
	repeatFailSHA1  = scriptSHA1(repeatFail)
)

func scriptSHA1(script string) string {
	sum := sha1.Sum([]byte(script))
	return hex.EncodeToString(sum[:])
}

func (s *Store) callerKey(caller string) string {
	sum := sha256.Sum256([]byte(caller))
	return s.prefix + "guard:" + hex.EncodeToString(sum[:])
}

// eval runs script by its SHA-1, loading it when Redis does not have it.
func (s *Store) eval(script, sha, key string, args ...string) rueidis.RedisResult {
	ctx := context.Background()
	c := s.client
	resp := c.Do(ctx, c.B().Evalsha().Sha1(sha).Numkeys(1).Key(key).Arg(args...).Build())
	if e, ok := rueidis.IsRedisErr(resp.Error()); ok && e.IsNoScript() {
		resp = c.Do(ctx, c.B().Eval().Script(script).Numkeys(1).Key(key).Arg(args...).Build())
	}
	return resp
}

func ms(d time.Duration) string { return itoa(max(1, d.Milliseconds())) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// RepeatEntry implements limit.RepeatStore: one round trip. It returns by
// ctx's deadline.
func (s *Store) RepeatEntry(ctx context.Context, caller, credential, digest string, p limit.RepeatPolicy) (limit.RepeatEntry, bool, error) {
	key, field := s.callerKey(caller), hex.EncodeToString([]byte(digest))
	c := calls.Get().(*call)
	c.fn = func() verdict {
		vals, err := s.eval(repeatEntry, repeatEntrySHA1, key, credential, field, ms(p.Window)).ToArray()
		if err != nil {
			return verdict{err: err}
		}
		if len(vals) == 0 {
			return verdict{err: ErrAnswer}
		}
		known, _ := vals[0].AsInt64()
		if len(vals) < 4 {
			return verdict{ok: known == 1}
		}
		n, err1 := vals[1].AsInt64()
		wait, err2 := vals[2].AsInt64()
		if err1 != nil || err2 != nil {
			return verdict{err: ErrAnswer}
		}
		var f limit.Failure
		if b, err := vals[3].ToString(); err == nil {
			_ = json.Unmarshal([]byte(b), &f) // a failure without its text still counts
		}
		return verdict{ok: true, n: int(n), wait: time.Duration(wait) * time.Millisecond, failure: f}
	}
	v := s.send(ctx, c)
	return limit.RepeatEntry{N: v.n, Last: v.failure, Wait: v.wait}, v.ok, v.err
}

// RepeatFail implements limit.RepeatStore: one round trip. It returns by
// ctx's deadline.
func (s *Store) RepeatFail(ctx context.Context, caller, credential, digest string, f limit.Failure, p limit.RepeatPolicy) (limit.RepeatEntry, error) {
	body, err := json.Marshal(f)
	if err != nil {
		return limit.RepeatEntry{}, err
	}
	key, field := s.callerKey(caller), hex.EncodeToString([]byte(digest))
	args := []string{credential, field, ms(p.Window), itoa(int64(p.N)), ms(p.Backoff), ms(p.MaxBackoff), itoa(limit.RepeatMaxPerCaller), string(body)}
	c := calls.Get().(*call)
	c.fn = func() verdict {
		vals, err := s.eval(repeatFail, repeatFailSHA1, key, args...).AsIntSlice()
		if err != nil {
			return verdict{err: err}
		}
		if len(vals) != 2 {
			return verdict{err: ErrAnswer}
		}
		return verdict{n: int(vals[0]), wait: time.Duration(vals[1]) * time.Millisecond}
	}
	v := s.send(ctx, c)
	return limit.RepeatEntry{N: v.n, Last: f, Wait: v.wait}, v.err
}

// RepeatRelease implements limit.RepeatStore: one DEL. It returns by
// ctx's deadline.
func (s *Store) RepeatRelease(ctx context.Context, caller string) error {
	key := s.callerKey(caller)
	c := calls.Get().(*call)
	c.fn = func() verdict {
		return verdict{err: s.client.Do(context.Background(), s.client.B().Del().Key(key).Build()).Error()}
	}
	return s.send(ctx, c).err
}
