package embedredis

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// claimScript is shaped like the store's scripts: it checks and updates a
// hash and a list atomically in the client's database.
var claimScript = redis.NewScript(`
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'dispatched' then
  return redis.error_reply('bad status ' .. tostring(status))
end
redis.call('HSET', KEYS[1], 'status', 'started', 'runner', ARGV[1])
redis.call('LREM', KEYS[2], 0, KEYS[1])
return redis.call('HGETALL', KEYS[1])
`)

func testLuaScripts(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	c.HSet(ctx, "job:1:1", "status", "dispatched")
	c.LPush(ctx, "processing", "job:1:1")
	flat, err := claimScript.Run(ctx, c, []string{"job:1:1", "processing"}, "r1").StringSlice()
	got := pairs(flat) // HGETALL's order differs: insertion order vs sorted
	want := map[string]string{"status": "started", "runner": "r1"}
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("script = %v, %v; want %v", flat, err, want)
	}
	if n := c.LLen(ctx, "processing").Val(); n != 0 {
		t.Fatalf("LREM in script left %d items", n)
	}
	err = claimScript.Run(ctx, c, []string{"job:1:1", "processing"}, "r1").Err()
	if err == nil || !strings.Contains(err.Error(), "bad status started") {
		t.Fatalf("second claim: %v, want the script's error_reply", err)
	}
}

// pairs turns a flat HGETALL reply into a map.
func pairs(flat []string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(flat); i += 2 {
		m[flat[i]] = flat[i+1]
	}
	return m
}

// testLuaCjson uses cjson the portable way (non-empty tables; see the report
// on gaps): decode a JSON map, change it, encode it back.
func testLuaCjson(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	script := redis.NewScript(`
local m = cjson.decode(redis.call('HGET', KEYS[1], 'result'))
m[ARGV[1]] = ARGV[2]
local out = cjson.encode(m)
redis.call('HSET', KEYS[1], 'result', out)
return out`)
	c.HSet(ctx, "flow:1", "result", `{"a.x":"1","b.y":"ü"}`)
	out, err := script.Run(ctx, c, []string{"flow:1"}, "c.z", "3").Text()
	if err != nil {
		t.Fatalf("cjson script: %v", err)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("cjson output %q: %v", out, err)
	}
	want := map[string]string{"a.x": "1", "b.y": "ü", "c.z": "3"}
	if !maps.Equal(got, want) {
		t.Fatalf("cjson round trip = %v, want %v", got, want)
	}
}

func testEvalSha(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	src := `return redis.call('INCRBY', KEYS[1], ARGV[1])`
	sha, err := c.ScriptLoad(ctx, src).Result()
	if err != nil {
		t.Fatalf("SCRIPT LOAD: %v", err)
	}
	if n, err := c.EvalSha(ctx, sha, []string{"n"}, 5).Int(); err != nil || n != 5 {
		t.Fatalf("EVALSHA = %d, %v", n, err)
	}
	err = c.EvalSha(ctx, strings.Repeat("0", 40), []string{"n"}).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "NOSCRIPT") {
		t.Fatalf("EVALSHA of an unknown script: %v, want NOSCRIPT (go-redis falls back on it)", err)
	}
}
