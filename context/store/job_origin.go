package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Typed reads of the few fields the bridge needs of a hash without loading
// all of it. Each is one HGET (SentJobOf two); a missing hash or field
// reads as "".

// SentJob is where a job sent to another agent went: its job message and
// the peer that message went to ("" for either when it has not gone).
type SentJob struct {
	MessageKey string
	Dst        string
}

// SentJobOf reads where job jobKey of context ctxID was sent: its
// message_key, then that message's dst. A job never sent, or not there,
// is the zero SentJob.
func (s *Jobs) SentJobOf(ctx context.Context, ctxID uint64, jobKey string) (SentJob, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return SentJob{}, fmt.Errorf("store.SentJobOf: %w", err)
	}
	msgKey, err := oneField(ctx, db, jobKey, model.ExtraMessageKey)
	if err != nil || msgKey == "" {
		return SentJob{}, opErr("store.SentJobOf "+jobKey, err)
	}
	dst, err := oneField(ctx, db, msgKey, "dst")
	if err != nil {
		return SentJob{}, opErr("store.SentJobOf "+jobKey, err)
	}
	return SentJob{MessageKey: msgKey, Dst: dst}, nil
}

// JobMessageKey reads the key of the job message that sent job jobKey of
// context ctxID to another agent ("" for a job not sent, or not there).
func (s *Jobs) JobMessageKey(ctx context.Context, ctxID uint64, jobKey string) (string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.JobMessageKey: %w", err)
	}
	k, err := oneField(ctx, db, jobKey, model.ExtraMessageKey)
	return k, opErr("store.JobMessageKey "+jobKey, err)
}

// LoadJobStatus reads the status of job jobKey of context ctxID alone.
func (s *Jobs) LoadJobStatus(ctx context.Context, ctxID uint64, jobKey string) (model.JobStatus, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.LoadJobStatus: %w", err)
	}
	st, err := oneField(ctx, db, jobKey, "status")
	return model.JobStatus(st), opErr("store.LoadJobStatus "+jobKey, err)
}

// FlowNodeState reads the state of node name of flow flowID in context
// ctxID.
func (s *Flows) FlowNodeState(ctx context.Context, ctxID, flowID uint64, name string) (model.NodeState, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.FlowNodeState: %w", err)
	}
	st, err := oneField(ctx, db, FlowNodesKey(flowID), name)
	return model.NodeState(st), opErr("store.FlowNodeState", err)
}

// oneField reads one field of a hash; "" when the field or the hash is
// missing.
func oneField(ctx context.Context, db *redis.Client, key, field string) (string, error) {
	v, err := db.HGet(ctx, key, field).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return v, err
}

// opErr wraps err with the operation; nil stays nil.
func opErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
