package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// FlowDispatch hands one flow job to a runner (see dispatchFlowJob): Job
// is written whole, then pushed on queue:<type> when Msg is nil (a local
// runner) or wrapped in Msg and pushed on msg_out (the bridge delivers it).
// The guards: node Node of flow FlowID must be in one of NodeStates, and
// when Attempt > 0 the stored job must be at that attempt.
type FlowDispatch struct {
	FlowID     uint64
	Node       string
	NodeStates []string
	Attempt    int64
	Job        *model.RunnerJob
	Msg        *model.Message // nil = local; its ID must be allocated
}

// DispatchFlowJobs runs the dispatches (one round trip when the script is
// loaded) and reports which ones happened.
func (s *Store) DispatchFlowJobs(ctx context.Context, ctxID uint64, ds []FlowDispatch) ([]bool, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.DispatchFlowJobs: %w", err)
	}
	if len(ds) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.Cmd, len(ds))
	_, err = db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, d := range ds {
			keys, args := dispatchArgs(d)
			cmds[i] = dispatchFlowJob.EvalSha(ctx, p, keys, args...)
		}
		return nil
	})
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		return s.dispatchOneByOne(ctx, db, ds)
	}
	if err != nil {
		return nil, scriptErr("store.DispatchFlowJobs", err)
	}
	out := make([]bool, len(ds))
	for i, c := range cmds {
		n, _ := c.Int64()
		out[i] = n == 1
	}
	return out, nil
}

// dispatchOneByOne is the path that loads the script (first use, or after
// a server restart).
func (s *Store) dispatchOneByOne(ctx context.Context, db *redis.Client, ds []FlowDispatch) ([]bool, error) {
	out := make([]bool, len(ds))
	for i, d := range ds {
		keys, args := dispatchArgs(d)
		n, err := dispatchFlowJob.Run(ctx, db, keys, args...).Int64()
		if err != nil {
			return out, scriptErr("store.DispatchFlowJobs", err)
		}
		out[i] = n == 1
	}
	return out, nil
}

func dispatchArgs(d FlowDispatch) ([]string, []any) {
	j := d.Job
	key := JobKey(j.CallerID, j.ID)
	stamp(&j.CreatedAt, &j.UpdatedAt)
	list, msgKey := QueueKey(j.ScriptType), key
	if d.Msg != nil {
		stamp(&d.Msg.CreatedAt, &d.Msg.UpdatedAt)
		if d.Msg.Status == "" {
			d.Msg.Status = model.MsgDispatched
		}
		list, msgKey = MsgOutKey, MessageKey(d.Msg.CallerID, d.Msg.ID)
	}
	keys := []string{FlowNodesKey(d.FlowID), key, list, msgKey, ReplyKey(key)}
	att := ""
	if d.Attempt > 0 {
		att = strconv.FormatInt(d.Attempt, 10)
	}
	jf := pairs(j.ToHash())
	args := append([]any{d.Node, strings.Join(d.NodeStates, " "), att, len(jf) / 2}, jf...)
	if d.Msg != nil {
		args = append(args, pairs(d.Msg.ToHash())...)
	}
	return keys, args
}
