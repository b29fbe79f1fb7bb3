package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// The dead_letter list of a context records, newest first, the entries
// that could not be processed and why: jobs ClaimJob found unusable (its
// script writes them), flow job ends the scheduler could not read, jobs
// whose fields the runner cannot decode.

// DeadLetterCap bounds the dead_letter list of a context.
const DeadLetterCap = 10000

// DeadLetter is one entry of a context's dead_letter list (JSON).
type DeadLetter struct {
	Key    string `json:"key"`
	Queue  string `json:"queue,omitempty"`
	Reason string `json:"reason"`
	Runner string `json:"runner,omitempty"`
	At     int64  `json:"at"`
	// Class is why, in a word: DeadInvalid (the default), DeadUnusable or
	// DeadFailures (quarantine.go); hyphae_dead_letters_total's reason.
	Class string `json:"class,omitempty"`
}

// PushDeadLetter records an entry that could not be processed.
func (s *Queues) PushDeadLetter(ctx context.Context, ctxID uint64, d DeadLetter) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.PushDeadLetter: %w", err)
	}
	if d.At == 0 {
		d.At = now()
	}
	if d.Class == "" {
		d.Class = DeadInvalid
	}
	b, _ := json.Marshal(d)
	_, err = db.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, DeadLetterKey, b)
		p.LTrim(ctx, DeadLetterKey, 0, DeadLetterCap-1)
		p.HIncrBy(ctx, DeadLetterCountsKey, d.Class, 1)
		return nil
	})
	return wrap("store.PushDeadLetter", err)
}

// DeadLetters returns the newest entries of a context's dead_letter list.
func (s *Queues) DeadLetters(ctx context.Context, ctxID uint64, n int64) ([]DeadLetter, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.DeadLetters: %w", err)
	}
	raw, err := db.LRange(ctx, DeadLetterKey, 0, n-1).Result()
	if err != nil {
		return nil, fmt.Errorf("store.DeadLetters: %w", err)
	}
	out := make([]DeadLetter, 0, len(raw))
	for _, r := range raw {
		var d DeadLetter
		if json.Unmarshal([]byte(r), &d) == nil {
			out = append(out, d)
		}
	}
	return out, nil
}
