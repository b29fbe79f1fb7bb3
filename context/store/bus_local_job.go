package store

import (
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// QueueLocalJob hands the job of a message taken from msg_out (now on the
// processing list) to this agent's own runner: the job key goes on
// queue:<type>, the message ends processed and leaves the processing
// list, in one step, so a crash between them loses or doubles nothing.
// It reports false (nothing written) when the job has ended already.
func (s *Bus) QueueLocalJob(ctx context.Context, ctxID uint64, processing, msgKey, jobKey, scriptType string) (bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, fmt.Errorf("store.QueueLocalJob: %w", err)
	}
	keys := []string{msgKey, processing, jobKey, QueueKey(scriptType)}
	n, err := queueLocalJob.Run(ctx, db, keys, string(model.MsgProcessed), now()).Int()
	if err != nil {
		return false, scriptErr("store.QueueLocalJob", err)
	}
	return n == 1, nil
}

// queueLocalJob: see QueueLocalJob.
// KEYS[1] message key, KEYS[2] the processing list, KEYS[3] job key,
// KEYS[4] queue:<type>. ARGV[1] processed, ARGV[2] now (unix s).
// Returns 1 when queued, 0 when the job has ended (the message is still
// settled).
var queueLocalJob = newScript("queueLocalJob", luaTerminal, `
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated_at', ARGV[2])
redis.call('LREM', KEYS[2], 1, KEYS[1])
if terminal(redis.call('HGET', KEYS[3], 'status') or '') then return 0 end
redis.call('LPUSH', KEYS[4], KEYS[3])
return 1
`)
