package bridge

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// check is the validator's replay check, as seenBefore does it.
func check(t *testing.T, r *replays, st *store.Store, env *envelope.Envelope) (fresh, fromMemory bool) {
	t.Helper()
	if fresh, ok := r.fresh(env); ok {
		return fresh, true
	}
	fresh, err := st.Bus.MarkSeen(context.Background(), env.ReplayKey(), r.ttl)
	if err != nil {
		t.Fatal(err)
	}
	if fresh {
		r.remember(env)
	}
	return fresh, false
}

func envelopeAt(t *testing.T, at time.Time) *envelope.Envelope {
	t.Helper()
	id, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return &envelope.Envelope{ID: envelope.NewID(), From: id.PeerID(), Time: at}
}

// A replay is rejected whether memory or Redis decides, and across a
// restart: ids accepted from memory reach Redis, and a new run lets Redis
// decide for anything an earlier run could have seen.
func TestReplaysAcrossRestart(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv := testredis.Start(t)
	st, err := store.Open(ctx, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const skew = time.Minute
	first := newReplays(skew, time.Hour)
	if err := first.start(ctx, st.Bus); err != nil {
		t.Fatal(err)
	}
	runDone := make(chan struct{})
	go func() { defer close(runDone); first.run(ctx, st.Bus, func(string, error) {}) }()

	env := envelopeAt(t, time.Now())
	if fresh, mem := check(t, first, st, env); !fresh || !mem {
		t.Fatalf("first sight on a fresh store: fresh=%v fromMemory=%v, want true, true", fresh, mem)
	}
	if fresh, _ := check(t, first, st, env); fresh {
		t.Fatal("a replay in the same run was accepted")
	}
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer raw.Close()
	deadline := time.Now().Add(30 * time.Second)
	for raw.Exists(ctx, store.SeenKey(env.ReplayKey())).Val() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the id accepted from memory never reached Redis")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-runDone

	second := newReplays(skew, time.Hour)
	if err := second.start(context.Background(), st.Bus); err != nil {
		t.Fatal(err)
	}
	if fresh, mem := check(t, second, st, env); fresh || mem {
		t.Fatalf("replay after a restart: fresh=%v fromMemory=%v, want false, false (Redis decides)", fresh, mem)
	}
	late := envelopeAt(t, time.Now().Add(2*horizonLead+skew))
	if fresh, mem := check(t, second, st, late); !fresh || !mem {
		t.Fatalf("an envelope past the old horizon: fresh=%v fromMemory=%v, want true, true", fresh, mem)
	}
}

// Ids accepted from memory just before the bridge stops are written as it
// stops, so the next run's Redis check rejects their replays.
func TestReplayIDsWrittenAtStop(t *testing.T) {
	srv := testredis.Start(t)
	st, err := store.Open(t.Context(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := newReplays(time.Minute, time.Hour)
	if err := r.start(t.Context(), st.Bus); err != nil {
		t.Fatal(err)
	}
	var envs []*envelope.Envelope
	for range 50 {
		env := envelopeAt(t, time.Now())
		if fresh, mem := check(t, r, st, env); !fresh || !mem {
			t.Fatalf("first sight: fresh=%v fromMemory=%v, want true, true", fresh, mem)
		}
		envs = append(envs, env)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the bridge stops before its writer got to the ids
	r.run(ctx, st.Bus, func(msg string, err error) { t.Errorf("%s: %v", msg, err) })

	next := newReplays(time.Minute, time.Hour)
	if err := next.start(t.Context(), st.Bus); err != nil {
		t.Fatal(err)
	}
	for i, env := range envs {
		if fresh, _ := check(t, next, st, env); fresh {
			t.Fatalf("envelope %d, accepted just before the stop, was accepted again after it", i)
		}
	}
}
