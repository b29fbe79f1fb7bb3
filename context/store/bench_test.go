package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// The benchmarks come in pairs: the store's operation and the same work done
// with a raw go-redis client on the same server, so the store's overhead is
// the ratio of the two (target: at most 1.3×).
//
//	go test -run '^$' -bench . -benchtime=2000x -count=3 ./context/store/

const ctBenchCtx = 1

func ctBenchJob(id uint64) *model.RunnerJob {
	return &model.RunnerJob{
		ID: id, CallerID: 7, ContextID: ctBenchCtx, Name: "bench", Script: "echo hello world",
		ScriptType: "sh", Timeout: 60, Retries: 1,
		EnvVars:       map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/tmp"},
		Result:        map[string]string{},
		Prerequisites: []string{"1", "2"}, Dependends: []uint64{},
		Status: model.JobDispatched, Attempt: 1, CreatedAt: 1700000000, UpdatedAt: 1700000000,
	}
}

func ctBenchRaw(b *testing.B, url string) *redis.Client {
	opts, err := redis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	opts.DB = ctBenchCtx
	c := redis.NewClient(opts)
	b.Cleanup(func() { _ = c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil { // dial before timing
		b.Fatal(err)
	}
	return c
}

func ctPairs(h model.Hash) []any {
	out := make([]any, 0, 2*len(h))
	for k, v := range h {
		out = append(out, k, v)
	}
	return out
}

// BenchmarkStoreSaveLoadJob: store.SaveJob then store.LoadJob of one job
// (encode, HSET, HGETALL, decode).
func BenchmarkStoreSaveLoadJob(b *testing.B) {
	s, _ := ctOpen(b)
	ctx := context.Background()
	j := ctBenchJob(1)
	if err := s.Jobs.SaveJob(ctx, j); err != nil { // warm the DB client
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := s.Jobs.SaveJob(ctx, j); err != nil {
			b.Fatal(err)
		}
		got, err := s.Jobs.LoadJob(ctx, ctBenchCtx, 7, 1)
		if err != nil || got.ID != 1 {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawSaveLoadJob: HSET of the same fields (encoded once, up front)
// then HGETALL, with a plain go-redis client.
func BenchmarkRawSaveLoadJob(b *testing.B) {
	_, srv := ctOpen(b)
	c := ctBenchRaw(b, srv.URL)
	ctx := context.Background()
	key := store.JobKey(7, 1)
	args := ctPairs(ctBenchJob(1).ToHash())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := c.HSet(ctx, key, args...).Err(); err != nil {
			b.Fatal(err)
		}
		h, err := c.HGetAll(ctx, key).Result()
		if err != nil || h["id"] != "1" {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreEnqueueDequeue: store.EnqueueJob (one Lua call: HSET +
// LPUSH) then a raw BRPOP of queue:sh, as a runner would.
func BenchmarkStoreEnqueueDequeue(b *testing.B) {
	s, srv := ctOpen(b)
	c := ctBenchRaw(b, srv.URL)
	ctx := context.Background()
	if err := s.Jobs.EnqueueJob(ctx, ctBenchJob(1<<40)); err != nil { // load the script
		b.Fatal(err)
	}
	c.Del(ctx, store.QueueKey("sh"))
	id := uint64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		id++
		if err := s.Jobs.EnqueueJob(ctx, ctBenchJob(id)); err != nil {
			b.Fatal(err)
		}
		if _, err := c.BRPop(ctx, time.Second, store.QueueKey("sh")).Result(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawEnqueueDequeue: HSET job:<c>:<id> then LPUSH queue:sh then
// BRPOP — what a plain client does per docs/design.md, "Redis layout" — with the job's fields
// encoded once, up front.
func BenchmarkRawEnqueueDequeue(b *testing.B) {
	_, srv := ctOpen(b)
	c := ctBenchRaw(b, srv.URL)
	ctx := context.Background()
	args := ctPairs(ctBenchJob(1).ToHash())
	id := uint64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		id++
		key := store.JobKey(7, id)
		if err := c.HSet(ctx, key, args...).Err(); err != nil {
			b.Fatal(err)
		}
		if err := c.LPush(ctx, store.QueueKey("sh"), key).Err(); err != nil {
			b.Fatal(err)
		}
		if _, err := c.BRPop(ctx, time.Second, store.QueueKey("sh")).Result(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawEnqueueDequeuePipelined is the strictest baseline: HSET and
// LPUSH sent in one MULTI/EXEC round trip (atomic, like the store's Lua
// script), then BRPOP.
func BenchmarkRawEnqueueDequeuePipelined(b *testing.B) {
	_, srv := ctOpen(b)
	c := ctBenchRaw(b, srv.URL)
	ctx := context.Background()
	args := ctPairs(ctBenchJob(1).ToHash())
	id := uint64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		id++
		key := store.JobKey(7, id)
		if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, key, args...)
			p.LPush(ctx, store.QueueKey("sh"), key)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.BRPop(ctx, time.Second, store.QueueKey("sh")).Result(); err != nil {
			b.Fatal(err)
		}
	}
}

// The interleaved benchmarks run the store's operation and the raw baseline
// alternately in one loop, on one server, and report both times and their
// ratio. On a shared, busy machine this is the fairer comparison: load
// spikes hit both sides alike instead of whichever benchmark ran then.

func ctInterleave(b *testing.B, storeOp, rawOp func(i uint64)) {
	var st, rt time.Duration
	var i uint64
	b.ReportAllocs()
	for b.Loop() {
		i++
		t0 := time.Now()
		storeOp(i)
		t1 := time.Now()
		rawOp(i)
		rt += time.Since(t1)
		st += t1.Sub(t0)
	}
	n := float64(i)
	b.ReportMetric(float64(st.Nanoseconds())/n, "store-ns/op")
	b.ReportMetric(float64(rt.Nanoseconds())/n, "raw-ns/op")
	b.ReportMetric(float64(st)/float64(rt), "store/raw")
}

// BenchmarkSaveLoadJobInterleaved: store.SaveJob+LoadJob against raw
// HSET+HGETALL of the same fields.
func BenchmarkSaveLoadJobInterleaved(b *testing.B) {
	s, srv := ctOpen(b)
	c := ctBenchRaw(b, srv.URL)
	ctx := context.Background()
	j := ctBenchJob(1)
	if err := s.Jobs.SaveJob(ctx, j); err != nil {
		b.Fatal(err)
	}
	rawKey := store.JobKey(8, 1)
	args := ctPairs(ctBenchJob(1).ToHash())
	ctInterleave(b, func(uint64) {
		if err := s.Jobs.SaveJob(ctx, j); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Jobs.LoadJob(ctx, ctBenchCtx, 7, 1); err != nil {
			b.Fatal(err)
		}
	}, func(uint64) {
		if err := c.HSet(ctx, rawKey, args...).Err(); err != nil {
			b.Fatal(err)
		}
		if err := c.HGetAll(ctx, rawKey).Err(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkEnqueueDequeueInterleaved: store.EnqueueJob+BRPOP against raw
// HSET+LPUSH+BRPOP, on separate queues.
func BenchmarkEnqueueDequeueInterleaved(b *testing.B) {
	s, srv := ctOpen(b)
	c := ctBenchRaw(b, srv.URL)
	ctx := context.Background()
	if err := s.Jobs.EnqueueJob(ctx, ctBenchJob(1<<40)); err != nil {
		b.Fatal(err)
	}
	c.Del(ctx, store.QueueKey("sh"))
	args := ctPairs(ctBenchJob(1).ToHash())
	ctInterleave(b, func(i uint64) {
		if err := s.Jobs.EnqueueJob(ctx, ctBenchJob(i)); err != nil {
			b.Fatal(err)
		}
		if _, err := c.BRPop(ctx, time.Second, store.QueueKey("sh")).Result(); err != nil {
			b.Fatal(err)
		}
	}, func(i uint64) {
		key := store.JobKey(8, i)
		if err := c.HSet(ctx, key, args...).Err(); err != nil {
			b.Fatal(err)
		}
		if err := c.LPush(ctx, store.QueueKey("raw"), key).Err(); err != nil {
			b.Fatal(err)
		}
		if _, err := c.BRPop(ctx, time.Second, store.QueueKey("raw")).Result(); err != nil {
			b.Fatal(err)
		}
	})
}
