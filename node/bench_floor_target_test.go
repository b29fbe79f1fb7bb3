package node_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// floorClaimLua authorises, materialises, enqueues and claims a remote job
// in one step. Keys are built from the looked-up actor id, so they are not
// all in KEYS (fine on a single redis-server).
//
//	KEYS[1] actors (pubkey → actor id)  KEYS[2] context:<id>  KEYS[3] msg_in
//	KEYS[4] queue:noop  KEYS[5] processing:floor
//	ARGV[1] sender pubkey  ARGV[2] job id  ARGV[3] message id  ARGV[4] now
//	ARGV[5] m  ARGV[6 .. 5+2m] message fields  ARGV[6+2m ..] job fields
//
// It returns the job key, or an error naming the refusal.
const floorClaimLua = `
local aid = redis.call('HGET', KEYS[1], ARGV[1])
if not aid then return redis.error_reply('unknown actor') end
local ok = false
for _, e in ipairs(cjson.decode(redis.call('HGET', KEYS[2], 'executors') or '[]')) do
  if tostring(e) == aid then ok = true break end
end
if not ok then return redis.error_reply('not an executor of this context') end
local m = tonumber(ARGV[5])
local mkey = 'message:' .. aid .. ':' .. ARGV[3]
local jkey = 'job:' .. aid .. ':' .. ARGV[2]
redis.call('HSET', mkey, 'caller_id', aid, unpack(ARGV, 6, 5 + 2 * m))
redis.call('LPUSH', KEYS[3], mkey)
redis.call('HSET', jkey, 'caller_id', aid, unpack(ARGV, 6 + 2 * m, #ARGV))
redis.call('LPUSH', KEYS[4], jkey)
redis.call('LMOVE', KEYS[4], KEYS[5], 'RIGHT', 'LEFT')
redis.call('HSET', jkey, 'status', 'started', 'updated_at', ARGV[4])
return jkey
`

// floorTarget is bob's side: it serves job envelopes one at a time and
// reports what each cost on done.
type floorTarget struct {
	*floorAgent
	origin peer.ID
	claim  *redis.Script
	done   chan floorTargetSample
}

type floorTargetSample struct {
	lua, crypto time.Duration
	err         error
}

// prepare writes alice's actor record and the context granting her the
// executor role, and loads the script.
func (t *floorTarget) prepare(b *testing.B, ctx context.Context) {
	b.Helper()
	if err := t.rdb.HSet(ctx, "actors", t.origin.String(), floorActorID).Err(); err != nil {
		b.Fatal(err)
	}
	now := time.Now().Unix()
	err := t.rdb.HSet(ctx, "context:1", "id", "1", "admins", "[]", "readers", "[]",
		"executors", "["+floorActorID+"]", "created_at", now, "updated_at", now).Err()
	if err == nil {
		err = t.claim.Load(ctx, t.rdb).Err()
	}
	if err != nil {
		b.Fatal(err)
	}
}

// wait returns bob's report for the round trip that just ended.
func (t *floorTarget) wait(b *testing.B) floorTargetSample {
	b.Helper()
	select {
	case s := <-t.done:
		if s.err != nil {
			b.Fatalf("target: %v", s.err)
		}
		return s
	case <-time.After(floorTimeout):
		b.Fatal("target: no report")
	}
	return floorTargetSample{}
}

// serve handles bob's inbox until ctx ends.
func (t *floorTarget) serve(ctx context.Context) {
	for {
		m, err := t.wire.next(ctx)
		if err != nil {
			return
		}
		s := t.handle(ctx, m)
		select {
		case t.done <- s:
		case <-ctx.Done():
			return
		}
	}
}

// handle is bob's side of one round trip: open, claim, run the no-op, then
// complete it in Redis while sending the result.
func (t *floorTarget) handle(ctx context.Context, m floorMsg) floorTargetSample {
	var s floorTargetSample
	env, pt, d, err := t.open(m)
	s.crypto = d
	var job floorJob
	if err == nil {
		err = json.Unmarshal(pt, &job)
	}
	if err != nil {
		s.err = err
		return s
	}
	t0 := time.Now()
	jkey, err := t.claimJob(ctx, env, job, pt)
	s.lua = time.Since(t0)
	if err != nil {
		s.err = fmt.Errorf("claim: %w", err)
		return s
	}
	started := time.Now().Unix() // the no-op runs here, in no time
	done := make(chan error, 1)
	go func() { done <- t.complete(ctx, env, jkey) }()
	res := floorResult{Ref: job.Ref, Status: "finished", StartedAt: started, FinishedAt: started}
	seal, err := t.reply(ctx, res)
	s.crypto += seal
	s.err = errors.Join(err, <-done)
	return s
}

// claimJob runs floorClaimLua for job, received in env.
func (t *floorTarget) claimJob(ctx context.Context, env *envelope.Envelope, job floorJob, pt []byte) (string, error) {
	now := strconv.FormatInt(time.Now().Unix(), 10)
	n, j := strconv.Itoa(job.Job.ID), job.Job
	msg := []any{"id", n, "context_id", "1", "message_type", "job", "message_format_type", "json",
		"timeout", "60", "timeout_ack", "5", "timeout_result", "60", "job", pt,
		"status", "processed", "src", env.From.String(), "envelope", env.IDString(), "created_at", now}
	args := append([]any{env.From.String(), n, n, now, len(msg) / 2}, msg...)
	args = append(args, "id", n, "context_id", "1", "script", j.Script, "script_type", j.ScriptType,
		"timeout", j.Timeout, "retries", j.Retries, "env_vars", `{"HYPHAE_ORIGIN":"alice"}`, "result", "",
		"prerequisites", "[]", "dependends", "[]", "status", "dispatched", "runner", "floor",
		"attempt", j.Attempt, "created_at", now, "updated_at", now)
	keys := []string{"actors", "context:1", "msg_in", "queue:noop", "processing:floor"}
	return t.claim.Run(ctx, t.rdb, keys, args...).Text()
}

// complete is bob's completion write: job finished, result message, outbox
// entry, processing list cleared; one MULTI.
func (t *floorTarget) complete(ctx context.Context, env *envelope.Envelope, jkey string) error {
	now := strconv.FormatInt(time.Now().Unix(), 10)
	rkey := "message:result:" + env.IDString()
	_, err := t.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, jkey, "status", "finished", "result", "", "updated_at", now)
		p.HSet(ctx, rkey, "id", env.IDString(), "caller_id", floorActorID, "context_id", "1",
			"message_type", "result", "message_format_type", "json", "job", jkey, "status", "dispatched",
			"dst", t.origin.String(), "created_at", now, "updated_at", now)
		p.ZAdd(ctx, "outbox", redis.Z{Score: float64(time.Now().Unix()), Member: rkey})
		p.LRem(ctx, "processing:floor", 1, jkey)
		return nil
	})
	return err
}

// reply encodes, seals and publishes res to the origin.
func (t *floorTarget) reply(ctx context.Context, res floorResult) (time.Duration, error) {
	pt, err := json.Marshal(res)
	if err != nil {
		return 0, err
	}
	return t.send(ctx, t.origin, envelope.TypeResult, pt)
}
