package embedredis

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func testSelect(t *testing.T, s *Server, _ int) {
	ctx := ctxT(t)
	last := clientDB(t, s, DefaultDatabases-1)
	if err := last.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET on DB %d: %v", DefaultDatabases-1, err)
	}
	beyond := clientDB(t, s, DefaultDatabases)
	err := beyond.Ping(ctx).Err()
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("DB %d: got %v, want a DB index out of range error", DefaultDatabases, err)
	}
	err = last.Do(ctx, "MOVE", "k", DefaultDatabases).Err()
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("MOVE to DB %d: got %v, want out of range", DefaultDatabases, err)
	}
}

func testConfigGetDatabases(t *testing.T, s *Server, _ int) {
	got, err := clientDB(t, s, 0).ConfigGet(ctxT(t), "databases").Result()
	if err != nil {
		t.Fatalf("CONFIG GET databases: %v", err)
	}
	if got["databases"] != strconv.Itoa(DefaultDatabases) {
		t.Fatalf("CONFIG GET databases = %v, want %d", got, DefaultDatabases)
	}
}

func testSeparateDatabases(t *testing.T, s *Server, db int) {
	ctx := ctxT(t)
	a, b := clientDB(t, s, db), clientDB(t, s, db+100)
	if err := a.HSet(ctx, "context:1", "id", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if n := b.Exists(ctx, "context:1").Val(); n != 0 {
		t.Fatalf("key of DB %d visible in DB %d", db, db+100)
	}
}

func testHashes(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	want := map[string]string{
		"id": "42", "status": "dispatched", "env_vars": `{"A":"ü 🍄"}`,
		"empty": "", "large": strings.Repeat("x", 1<<20),
	}
	if err := c.HSet(ctx, "job:7:42", want).Err(); err != nil {
		t.Fatalf("HSET: %v", err)
	}
	got, err := c.HGetAll(ctx, "job:7:42").Result()
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("HGETALL: err %v, equal %v", err, maps.Equal(got, want))
	}
	if _, err := c.HGet(ctx, "job:7:42", "missing").Result(); !errors.Is(err, redis.Nil) {
		t.Fatalf("HGET of a missing field: %v, want redis.Nil", err)
	}
}

func testSortedSets(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	for i, m := range []string{"c", "a", "b"} {
		c.ZAdd(ctx, "leases", redis.Z{Score: float64(100 + 10*i), Member: m})
	}
	got, err := c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: "leases", ByScore: true, Start: "-inf", Stop: "115", Count: 10}).Result()
	if err != nil || !slices.Equal(got, []string{"c", "a"}) {
		t.Fatalf("ZRANGE BYSCORE LIMIT = %v, %v; want [c a]", got, err)
	}
	if n := c.ZRem(ctx, "leases", "c").Val(); n != 1 {
		t.Fatalf("ZREM = %d", n)
	}
}

func testSetNXEX(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	for i, want := range []string{"OK", ""} {
		got, err := c.SetArgs(ctx, "dedupe:m1", "1", redis.SetArgs{Mode: "NX", TTL: time.Minute}).Result()
		if got != want || (want == "" && !errors.Is(err, redis.Nil)) {
			t.Fatalf("SET NX EX #%d = %q, %v; want %q", i+1, got, err, want)
		}
	}
	if ttl := c.TTL(ctx, "dedupe:m1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("TTL = %v", ttl)
	}
}

func testExpiry(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	c.Set(ctx, "short", "1", 0)
	if !c.PExpire(ctx, "short", 100*time.Millisecond).Val() {
		t.Fatal("PEXPIRE returned false")
	}
	deadline := time.Now().Add(3 * time.Second)
	for c.Exists(ctx, "short").Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatal("key with a 100ms TTL still exists after 3s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func testIncrExpire(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	for want := int64(1); want <= 3; want++ {
		if got := c.Incr(ctx, "seq:job").Val(); got != want {
			t.Fatalf("INCR = %d, want %d", got, want)
		}
	}
	if !c.Expire(ctx, "seq:job", time.Hour).Val() {
		t.Fatal("EXPIRE returned false")
	}
	if ttl := c.TTL(ctx, "seq:job").Val(); ttl <= 0 {
		t.Fatalf("TTL after EXPIRE = %v", ttl)
	}
}

func testScanMatch(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	for i := range 60 {
		c.HSet(ctx, fmt.Sprintf("job:7:%d", i), "id", i)
		c.HSet(ctx, fmt.Sprintf("flow:%d", i), "id", i)
	}
	seen := map[string]bool{}
	iter := c.Scan(ctx, 0, "job:7:*", 10).Iterator()
	for iter.Next(ctx) {
		seen[iter.Val()] = true
	}
	if err := iter.Err(); err != nil || len(seen) != 60 {
		t.Fatalf("SCAN MATCH job:7:* found %d keys (err %v), want 60", len(seen), err)
	}
}
