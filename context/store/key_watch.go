package store

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// KeyWatch wakes loops that wait for a key of a context DB to be written
// (a push onto a list, an add to a sorted set), from one pub/sub
// connection carrying the keyspace notifications of a few key names in
// every DB: N contexts' loops cost N channels, not N blocked connections
// or N polls. Each (DB, key) has one wake channel, buffered 1, so a write
// between a loop's last look and its wait is not missed.
//
// Notifications are lost while the connection is down, and a restarted
// server forgets CONFIG SET: when go-redis has resubscribed, and when a
// re-check (every KeyWatchRecheck) has had to turn the notifications back
// on, every channel is woken, so each loop looks again.
type KeyWatch struct {
	s       *core
	op      string
	classes string          // keyspace event classes, e.g. "l" or "lz"
	events  map[string]bool // the events that wake (lpush, zadd, …)
	ps      *redis.PubSub
	done    chan struct{}
	stop    context.CancelFunc

	mu    sync.Mutex
	chans map[watchedKey]chan struct{}
	fns   map[string][]func(db uint64)
}

// AnyDB is the DB OnWrite's callback is given when notifications may have
// been lost: look at every DB.
const AnyDB = ^uint64(0)

type watchedKey struct {
	db  uint64
	key string
}

// KeyWatchRecheck is how often a KeyWatch checks that the server still
// publishes its notifications.
const KeyWatchRecheck = time.Minute

// ListPushEvents are the keyspace events of a push onto a list (LMOVE and
// BLMOVE publish lpush or rpush on their destination).
var ListPushEvents = []string{"lpush", "rpush", "linsert"}

// SortedSetAddEvents are the keyspace events of an add to (or a score
// change in) a sorted set.
var SortedSetAddEvents = []string{"zadd", "zincr"}

// WatchKeys turns on the keyspace event classes (letters, as
// notify-keyspace-events spells them: "l" lists, "z" sorted sets) and
// subscribes to the notifications of keys (names, or globs) in every DB,
// waking on the given events (every event when none is given). It returns once the server has confirmed the
// subscription, so a write after it wakes. An error (the server refuses
// CONFIG, or the subscription) means callers must poll.
func (s *core) WatchKeys(ctx context.Context, classes string, keys, events []string) (*KeyWatch, error) {
	const op = "store.WatchKeys"
	if _, err := s.enableKeyspaceSet(ctx, op, classes); err != nil {
		return nil, err
	}
	pats := make([]string, len(keys))
	for i, k := range keys {
		pats[i] = "__keyspace@*__:" + k
	}
	ps := s.global.PSubscribe(ctx, pats...)
	for range pats {
		if _, err := ps.Receive(ctx); err != nil {
			ps.Close()
			return nil, fmt.Errorf("%s: psubscribe: %w", op, err)
		}
	}
	w := &KeyWatch{s: s, op: op, classes: classes, events: map[string]bool{}, ps: ps,
		done: make(chan struct{}), chans: map[watchedKey]chan struct{}{}, fns: map[string][]func(uint64){}}
	for _, e := range events {
		w.events[e] = true
	}
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	w.stop = stop
	go w.read()
	go w.recheck(rctx)
	return w, nil
}

// Wake returns the channel that is signalled when key of DB db is written.
func (w *KeyWatch) Wake(db uint64, key string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := watchedKey{db, key}
	ch, ok := w.chans[k]
	if !ok {
		ch = make(chan struct{}, 1)
		w.chans[k] = ch
	}
	return ch
}

// OnWrite has fn called with the DB each time key (or a key it matches,
// as a glob such as context:*) is written in one (or
// with AnyDB when writes may have been missed), on the connection's reader
// goroutine: fn must not block.
func (w *KeyWatch) OnWrite(key string, fn func(db uint64)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fns[key] = append(w.fns[key], fn)
}

// Close ends the subscription and waits until no channel is signalled.
func (w *KeyWatch) Close() error {
	w.stop()
	err := w.ps.Close()
	<-w.done
	return err
}

func (w *KeyWatch) signal(k watchedKey) {
	w.mu.Lock()
	ch, fns := w.chans[k], w.fns[k.key]
	for pat, f := range w.fns {
		if ok, _ := path.Match(pat, k.key); ok && pat != k.key {
			fns = append(slices.Clip(fns), f...)
		}
	}
	w.mu.Unlock()
	if ch != nil {
		notify(ch)
	}
	for _, fn := range fns {
		fn(k.db)
	}
}

// wakeAll signals every channel: notifications may have been lost.
func (w *KeyWatch) wakeAll() {
	w.mu.Lock()
	var fns []func(uint64)
	for _, ch := range w.chans {
		notify(ch)
	}
	for _, f := range w.fns {
		fns = append(fns, f...)
	}
	w.mu.Unlock()
	for _, fn := range fns { // called holding no lock
		fn(AnyDB)
	}
}

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// read reads the connection until Close. WatchKeys has taken the first
// confirmations, so a subscription confirmed here means go-redis
// reconnected: wake everyone.
func (w *KeyWatch) read() {
	defer close(w.done)
	for {
		m, err := w.ps.Receive(context.Background())
		if errors.Is(err, redis.ErrClosed) {
			return
		}
		if err != nil {
			time.Sleep(100 * time.Millisecond) // the next receive reconnects
			continue
		}
		switch m := m.(type) {
		case *redis.Subscription:
			w.reconnected()
		case *redis.Message:
			if k, ok := parseKeyEvent(m.Channel); ok && (len(w.events) == 0 || w.events[m.Payload]) {
				w.signal(k)
			}
		}
	}
}

// reconnected: the server may be a restarted one, which forgot CONFIG
// SET. Turn the notifications on (for every part of this process) before
// everyone looks.
func (w *KeyWatch) reconnected() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, _ = w.s.enableKeyspaceSet(ctx, w.op, w.classes)
	cancel()
	w.wakeAll()
}

// recheck turns the notifications back on when the server has lost them
// (a restart), waking everyone then, as writes meanwhile published none.
func (w *KeyWatch) recheck(ctx context.Context) {
	t := time.NewTicker(KeyWatchRecheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.done: // the client was closed under it
			return
		case <-t.C:
		}
		set, err := w.s.enableKeyspaceSet(ctx, w.op, w.classes)
		if set || err != nil {
			w.wakeAll()
		}
	}
}

// parseKeyEvent reads __keyspace@<db>__:<key>.
func parseKeyEvent(channel string) (watchedKey, bool) {
	rest, ok := strings.CutPrefix(channel, "__keyspace@")
	if !ok {
		return watchedKey{}, false
	}
	num, key, ok := strings.Cut(rest, "__:")
	if !ok {
		return watchedKey{}, false
	}
	db, err := strconv.ParseUint(num, 10, 64)
	return watchedKey{db, key}, err == nil
}

// enableKeyspaceSet turns on K and each of classes (enableKeyspace, one
// class at a time) and reports whether any was off: a server that had
// lost them published nothing meanwhile.
func (s *core) enableKeyspaceSet(ctx context.Context, op, classes string) (bool, error) {
	res, err := s.global.ConfigGet(ctx, "notify-keyspace-events").Result()
	if err != nil {
		return false, fmt.Errorf("%s: config get: %w", op, err)
	}
	cur := res["notify-keyspace-events"]
	off := !strings.Contains(cur, "K")
	for _, c := range classes {
		if !strings.ContainsAny(cur, string(c)+"A") {
			off = true
		}
	}
	if !off && s.asked(classes) {
		return false, nil // on, and remembered for whoever re-checks
	}
	for _, c := range classes {
		if _, err := s.enableKeyspace(ctx, op, string(c)); err != nil {
			return off, err
		}
	}
	return off, nil
}

// asked reports whether every class has been asked for (enableKeyspace
// remembers them).
func (s *core) asked(classes string) bool {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	for _, c := range classes {
		if !strings.ContainsRune(s.notifyWant, c) {
			return false
		}
	}
	return true
}
