package store_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/store"
)

// A KeyWatch wakes the channel of the (DB, key) pushed onto, not others,
// calls a glob's callback with the DB, and after the server restarts (it
// forgot CONFIG SET) turns the notifications back on and wakes everyone.
func TestKeyWatchWakesOnWritesAndAfterARestart(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	w, err := s.Bus.WatchKeys(ctx, "lz", []string{store.MsgOutKey, "watched:*"},
		append(append([]string{}, store.ListPushEvents...), store.SortedSetAddEvents...))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mine, other := w.Wake(2, store.MsgOutKey), w.Wake(3, store.MsgOutKey)
	var globDB, anyDB atomic.Int64
	w.OnWrite("watched:*", func(db uint64) {
		if db == store.AnyDB {
			anyDB.Add(1)
		} else {
			globDB.Store(int64(db))
		}
	})
	if err := srv.Client(t, 2).LPush(ctx, store.MsgOutKey, "m").Err(); err != nil {
		t.Fatal(err)
	}
	waitWake(t, mine, "a push onto msg_out in DB 2")
	select {
	case <-other:
		t.Fatal("a push in DB 2 woke DB 3's channel")
	default:
	}
	if err := srv.Client(t, 4).ZAdd(ctx, "watched:x", redis.Z{Score: 1, Member: "m"}).Err(); err != nil {
		t.Fatal(err)
	}
	ctEventually(t, "the glob's callback with DB 4", func() bool { return globDB.Load() == 4 })
	if got, err := s.Bus.MoveNext(ctx, 2, store.MsgOutKey, "proc"); got != "m" || err != nil {
		t.Fatalf("MoveNext = %q, %v; want m", got, err)
	}

	srv.Restart(t)
	waitWake(t, other, "every channel woken after the restart")
	ctEventually(t, "the callbacks told of a possible loss", func() bool { return anyDB.Load() > 0 })
	select { // woken with the others: only a push may wake it now
	case <-mine:
	default:
	}
	ctEventually(t, "a push after the restart waking DB 2", func() bool {
		_ = srv.Client(t, 2).LPush(ctx, store.MsgOutKey, "n").Err()
		select {
		case <-mine:
			return true
		case <-time.After(100 * time.Millisecond):
			return false
		}
	})
}

func waitWake(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}
