package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// Ordering per key: the claim's gate and the release at every job end are
// Lua (the claim's keyed gate, claimgate_keyed.go, and announceEnd in
// queue_keyed_lua.go). The keys, per context DB:

// KeyedRunningKey is keyed_running:<key>, the SET of job keys holding a
// place of concurrency key k: running, or put at the head of their queue
// to run next, or waiting to be retried.
func KeyedRunningKey(k string) string { return "keyed_running:" + k }

// KeyedParkedKey is keyed:<key>, the LIST of parked jobs of concurrency
// key k, oldest first: JSON ["queue:<type>", "<job key>"] entries.
func KeyedParkedKey(k string) string { return "keyed:" + k }

// KeyedWaitingKey is the SET of concurrency keys that have parked jobs,
// which KeyedRepair looks at.
const KeyedWaitingKey = "keyed_waiting"

// KeyedState is what a concurrency key holds in a context.
type KeyedState struct {
	Running []string // job keys holding a place
	Parked  []string // job keys parked, oldest first
}

// KeyedStateOf reads concurrency key k's places and parked jobs.
func (s *Queues) KeyedStateOf(ctx context.Context, ctxID uint64, k string) (KeyedState, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return KeyedState{}, fmt.Errorf("store.KeyedStateOf: %w", err)
	}
	run, err := db.SMembers(ctx, KeyedRunningKey(k)).Result()
	if err != nil {
		return KeyedState{}, fmt.Errorf("store.KeyedStateOf %s: %w", k, err)
	}
	raw, err := db.LRange(ctx, KeyedParkedKey(k), 0, -1).Result()
	if err != nil {
		return KeyedState{}, fmt.Errorf("store.KeyedStateOf %s: %w", k, err)
	}
	st := KeyedState{Running: run, Parked: make([]string, 0, len(raw))}
	for _, e := range raw {
		var qj []string
		if json.Unmarshal([]byte(e), &qj) == nil && len(qj) == 2 {
			st.Parked = append(st.Parked, qj[1])
		}
	}
	return st, nil
}

// KeyedRepairBatch bounds the keys one KeyedRepair looks at.
const KeyedRepairBatch = 100

// KeyedRepair drops the places of jobs that ended without giving them
// back (a plain client ended them, or deleted them) and promotes the
// parked jobs that then fit, for up to KeyedRepairBatch keys with parked
// jobs. It returns how many keys it looked at. Cheap when nothing is
// parked: one SRANDMEMBER.
func (s *Queues) KeyedRepair(ctx context.Context, ctxID uint64) (int, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.KeyedRepair: %w", err)
	}
	n, err := keyedRepair.Run(ctx, db, []string{KeyedWaitingKey}, KeyedRepairBatch).Int()
	if err != nil {
		return 0, scriptErr("store.KeyedRepair", err)
	}
	return n, nil
}

// keyedRepair: see KeyedRepair.
// KEYS[1] keyed_waiting. ARGV[1] how many keys at most.
// Also reads and writes keyed:<key>, keyed_running:<key>, the parked
// jobs' hashes and stop markers and their queues, named only inside.
// Returns the number of keys looked at.
var keyedRepair = newScript("keyedRepair", luaKeyedRelease, `
local ks = redis.call('SRANDMEMBER', KEYS[1], tonumber(ARGV[1]))
for _, k in ipairs(ks) do keyedPromote(k) end
return #ks
`)
