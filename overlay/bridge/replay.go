package bridge

import (
	"context"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// replays answers the validator's "seen this envelope before?" mostly from
// memory, so the check usually costs no round trip.
//
// An envelope passes the skew check only while |now − its time| ≤ Skew.
// While the bridge runs it keeps a horizon in Redis a minute ahead of
// the clock (store.ReplayHorizonKey), so no run ever accepted an envelope
// after the horizon it left behind. An envelope stamped later than that
// horizon + Skew therefore cannot have been accepted by an earlier run:
// for it the memory of this run is the whole truth. For older ones Redis
// (seen:<sender>/<id>) decides, as it always did. Every accepted id is
// still written to Redis — in the background, batched — for the next run.
// This assumes the wall clock does not jump back across a restart by more
// than the horizon's lead.
type replays struct {
	skew time.Duration
	ttl  time.Duration // how long Redis keeps an id

	mu      sync.Mutex
	horizon time.Time            // the previous runs' horizon; guarded by mu
	lead    time.Time            // the horizon this run last wrote; guarded by mu
	seen    map[string]time.Time // replay key → when to forget it; guarded by mu

	persist chan string // ids to write to Redis
}

// horizonLead is how far ahead of the clock the horizon is kept; it is
// renewed every horizonEvery (three commands), so an idle agent writes it
// three times a minute, with 40 s to spare when a write fails. The price
// of the long lead: after a restart Redis decides for the envelopes of
// up to a minute (and Skew) more, as it did before this memory existed.
const (
	horizonLead  = time.Minute
	horizonEvery = 20 * time.Second
)

// replayMemoryMax bounds the memory: past it, keys go to Redis only.
const replayMemoryMax = 1 << 20

// newReplays starts with a horizon far in the future: Redis decides until
// setHorizon says where the previous runs stopped.
func newReplays(skew, ttl time.Duration) *replays {
	return &replays{skew: skew, ttl: ttl, horizon: time.Now().Add(100 * 365 * 24 * time.Hour),
		seen: map[string]time.Time{}, persist: make(chan string, 4096)}
}

// setHorizon records where earlier runs stopped accepting envelopes.
func (r *replays) setHorizon(t time.Time) {
	r.mu.Lock()
	r.horizon = t
	r.mu.Unlock()
}

// wrote records that the horizon in Redis is now t.
func (r *replays) wrote(t time.Time) {
	r.mu.Lock()
	r.lead = t
	r.mu.Unlock()
}

// fresh reports whether env was never seen before, recording it. ok is
// false when memory cannot tell: the caller asks Redis (and then calls
// remember).
func (r *replays) fresh(env *envelope.Envelope) (fresh, ok bool) {
	k := env.ReplayKey()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.seen[k]; dup {
		return false, true
	}
	// Memory decides only for envelopes no earlier run can have seen, and
	// only while the horizon in Redis is still ahead of the clock (if it
	// were not, a crash now would leave a horizon before what we accept).
	if !env.Time.After(r.horizon.Add(r.skew)) || !time.Now().Before(r.lead) || len(r.seen) >= replayMemoryMax {
		return false, false
	}
	r.seen[k] = env.Time.Add(r.skew + time.Minute)
	select {
	case r.persist <- k:
	default: // the writer is behind: the next run falls back to the inbound dedupe
	}
	return true, true
}

// remember records a key Redis has just accepted.
func (r *replays) remember(env *envelope.Envelope) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.seen) < replayMemoryMax {
		r.seen[env.ReplayKey()] = env.Time.Add(r.skew + time.Minute)
	}
}

// sweep forgets keys whose envelopes the skew check now rejects anyway.
func (r *replays) sweep(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, until := range r.seen {
		if now.After(until) {
			delete(r.seen, k)
		}
	}
}

// horizonStore is what replays needs of the store.
type horizonStore interface {
	ReplayHorizon(context.Context) (time.Time, error)
	SetReplayHorizon(context.Context, time.Time) error
	RecordSeen(context.Context, []string, time.Duration) error
}

// start reads the previous runs' horizon and moves it ahead of now, so
// that memory may decide for envelopes past it. On failure Redis keeps
// deciding every check (correct, one round trip each).
func (r *replays) start(ctx context.Context, st horizonStore) error {
	prev, err := st.ReplayHorizon(ctx)
	if err != nil {
		return err
	}
	lead := time.Now().Add(horizonLead)
	if err := st.SetReplayHorizon(ctx, lead); err != nil {
		return err
	}
	r.setHorizon(prev)
	r.wrote(lead)
	return nil
}

// run keeps the horizon ahead of the clock, writes accepted ids to Redis
// in batches and sweeps the memory, until ctx ends.
func (r *replays) run(ctx context.Context, st horizonStore, warn func(string, error)) {
	beat, sweep := time.NewTicker(horizonEvery), time.NewTicker(time.Minute)
	defer beat.Stop()
	defer sweep.Stop()
	batch := make([]string, 0, 256)
	for {
		select {
		case <-ctx.Done():
			r.flush(st, batch, warn)
			return
		case <-beat.C:
			lead := time.Now().Add(horizonLead)
			if err := st.SetReplayHorizon(ctx, lead); err != nil {
				if ctx.Err() == nil {
					warn("bridge: replay horizon", err)
				}
				continue // memory stops deciding once the last lead passes
			}
			r.wrote(lead)
		case <-sweep.C:
			r.sweep(time.Now())
		case k := <-r.persist:
			r.writeSeen(st, append(batch[:0], k), warn)
		}
	}
}

// seenWriteTimeout bounds one write of accepted ids. The writes do not
// end with the bridge's context: ids taken off the queue as the bridge
// stops must still reach Redis.
const seenWriteTimeout = 2 * time.Second

// flush writes the accepted ids still waiting to be written, as the bridge
// stops: the next run lets Redis decide for envelopes this run may have
// seen, so those ids must be there.
func (r *replays) flush(st horizonStore, batch []string, warn func(string, error)) {
	for r.writeSeen(st, batch[:0], warn) {
	}
}

// writeSeen tops batch up with the accepted ids waiting to be written (to
// its capacity) and writes them; false when there was nothing to write or
// the write failed.
func (r *replays) writeSeen(st horizonStore, batch []string, warn func(string, error)) bool {
	for len(batch) < cap(batch) && len(r.persist) > 0 {
		batch = append(batch, <-r.persist)
	}
	if len(batch) == 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), seenWriteTimeout)
	defer cancel()
	if err := st.RecordSeen(ctx, batch, r.ttl); err != nil {
		warn("bridge: recording envelope ids", err)
		return false
	}
	return true
}
