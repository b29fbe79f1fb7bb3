package store

import (
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// Caller-chosen ids. The seed lets a caller pick an object's id (a
// RunnerJob's id is "provided by the caller"); the agent's own ids come
// from the counter seq:<kind> of the DB, partly through blocks reserved
// in memory (ids.go). A caller's id N must never be handed out later, so
// creating it raises seq:<kind> to at least N in the same script that
// writes the object (every later INCR or INCRBY answers above N), and the
// store's floor for that kind skips N in any block reserved before — even
// one whose INCRBY was in flight while the caller's script ran.
//
// Agents that share one Redis DB each hold their own blocks: a caller's
// id below the counter may sit in another agent's block, which this
// agent cannot see. Ids above the counter (a fresh context, or ids chosen
// beyond the agent's) are safe everywhere.

// CreateJob writes a new job, with its caller's id when j.ID is set;
// ErrExists when job:<caller>:<id> exists. It is not queued.
func (s *Jobs) CreateJob(ctx context.Context, j *model.RunnerJob) error {
	return s.createObject(ctx, "store.CreateJob", j.ContextID, "job", &j.ID,
		func() string { return JobKey(j.CallerID, j.ID) },
		func() model.Hash { stamp(&j.CreatedAt, &j.UpdatedAt); return j.ToHash() }, "")
}

// CreateQueuedJob is CreateJob for a job to run now: status dispatched,
// attempt 1, and its key pushed on queue:<script_type> in the same step
// (as EnqueueJob does).
func (s *Jobs) CreateQueuedJob(ctx context.Context, j *model.RunnerJob) error {
	j.Status = model.JobDispatched
	if j.Attempt == 0 {
		j.Attempt = 1
	}
	return s.createObject(ctx, "store.CreateQueuedJob", j.ContextID, "job", &j.ID,
		func() string { return JobKey(j.CallerID, j.ID) },
		func() model.Hash { stamp(&j.CreatedAt, &j.UpdatedAt); return j.ToHash() }, QueueKey(j.ScriptType))
}

// CreateFlow writes a new flow hash (status as given), with the caller's
// id when f.ID is set; ErrExists when flow:<id> exists.
func (s *Flows) CreateFlow(ctx context.Context, f *model.Flow) error {
	return s.createObject(ctx, "store.CreateFlow", f.ContextID, "flow", &f.ID,
		func() string { return FlowKey(f.ID) },
		func() model.Hash { stamp(&f.CreatedAt, &f.UpdatedAt); return f.ToHash() }, "")
}

// CreateRunner writes a new runner record in context ctxID, with the
// caller's id when r.ID is set; ErrExists when runner:<id> exists.
func (s *Registry) CreateRunner(ctx context.Context, ctxID uint64, r *model.Runner) error {
	return s.createObject(ctx, "store.CreateRunner", ctxID, "runner", &r.ID,
		func() string { return RunnerKey(r.ID) },
		func() model.Hash { stamp(&r.CreatedAt, &r.UpdatedAt); return r.ToHash() }, "")
}

// CreateMessage writes a new message in context ctxID's DB and pushes its
// key on list (MsgOutKey to send it; "" for none), atomically, with the
// caller's id when m.ID is set; ErrExists when the key exists.
func (s *Bus) CreateMessage(ctx context.Context, ctxID uint64, m *model.Message, list string) error {
	if m.Status == "" {
		m.Status = model.MsgDispatched
	}
	return s.createObject(ctx, "store.CreateMessage", ctxID, "message", &m.ID,
		func() string { return MessageKey(m.CallerID, m.ID) },
		func() model.Hash { stamp(&m.CreatedAt, &m.UpdatedAt); return m.ToHash() }, list)
}

// ClaimActorID raises DB 0's actor counter to at least id, so the agent
// never gives another actor that id (SaveActor then writes the actor).
func (s *Registry) ClaimActorID(ctx context.Context, id uint64) error {
	err := raiseSeq.Run(ctx, s.global, []string{SeqKey("actor")}, u(id)).Err()
	return wrap("store.ClaimActorID", err)
}

// createObject writes one object of kind: with *id 0, under a new id from
// the counter; else under *id, refused when key() exists, the counter
// raised to *id in the same script and the floor raised in memory.
func (s *core) createObject(ctx context.Context, op string, ctxID uint64, kind string, id *uint64,
	key func() string, hash func() model.Hash, list string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	chosen := *id != 0
	if !chosen {
		if *id, err = NextID(ctx, db, kind); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	keys := []string{SeqKey(kind), key(), list}
	args := append([]any{u(*id), map[bool]string{true: "1", false: "0"}[chosen]}, pairs(hash())...)
	err = createWithID.Run(ctx, db, keys, args...).Err()
	if chosen {
		// Even when the write failed the counter may have moved: keep
		// the floor with it.
		s.ids.raiseFloor(idKind{ctxID, kind}, *id)
	}
	return scriptErr(op, err)
}

// createWithID: see createObject.
// KEYS[1] seq:<kind>, KEYS[2] the object's key, KEYS[3] a list to LPUSH
// the key on ("" key: none). ARGV[1] the id, ARGV[2] "1" when the caller
// chose it (raise the counter), ARGV[3..] field, value pairs.
// Returns 1, or an error "exists: <key>" (nothing written).
var createWithID = newScript("createWithID", luaTimeline, luaJobIndex, `
if redis.call('EXISTS', KEYS[2]) == 1 then
  return redis.error_reply('exists: ' .. KEYS[2])
end
if ARGV[2] == '1' then
  local cur = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
  if cur < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
if KEYS[3] ~= '' then redis.call('LPUSH', KEYS[3], KEYS[2]) end
if KEYS[1] == 'seq:job' then indexJob(KEYS[2]) end -- jobs_index.go
return 1
`)

// raiseSeq: see ClaimActorID. KEYS[1] seq:<kind>, ARGV[1] an id.
// Returns the counter after.
var raiseSeq = newScript("raiseSeq", `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if cur < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
  return tonumber(ARGV[1])
end
return cur
`)

// raiseFloor makes k's blocks skip every id up to id: those reserved
// already, and (through the floor) those an INCRBY in flight brings.
func (b *idBlocks) raiseFloor(k idKind, id uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.state(k)
	st.floor = max(st.floor, id)
	st.skipFloor()
}

// putAbove is put for a block that may lie under the floor: it returns
// the block's first id above the floor (false: none is).
func (b *idBlocks) putAbove(k idKind, last uint64) (uint64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.state(k)
	st.cur = blockOf(last, b.size)
	return st.next()
}

// skipFloor moves both blocks past the floor; mu is held.
func (st *idState) skipFloor() {
	for _, r := range []*idRange{&st.cur, &st.spare} {
		if r.next <= st.floor {
			r.next = min(st.floor+1, r.end)
		}
	}
}
