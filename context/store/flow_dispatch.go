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
	_, _, oks, err := s.StepAndDispatch(ctx, ctxID, 0, nil, ds)
	if err != nil {
		return nil, fmt.Errorf("store.DispatchFlowJobs: %w", err)
	}
	return oks, nil
}

// StepAndDispatch applies step (when not nil) to flow flowID and then runs
// the dispatches, in one round trip. The dispatches are guarded by their
// own node states, so those that depend on the step (a node it made ready)
// do nothing when the step's guards failed.
func (s *Store) StepAndDispatch(ctx context.Context, ctxID, flowID uint64, step *FlowStep,
	ds []FlowDispatch) (applied bool, moved []string, oks []bool, err error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return false, nil, nil, fmt.Errorf("store.StepAndDispatch: %w", err)
	}
	stepCmd, cmds, err := runStepAndDispatch(ctx, db, flowID, step, ds)
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		if err = loadFlowScripts(ctx, db); err == nil {
			stepCmd, cmds, err = runStepAndDispatch(ctx, db, flowID, step, ds)
		}
	}
	if err != nil {
		return false, nil, nil, scriptErr("store.StepAndDispatch", err)
	}
	applied, moved = true, nil
	if stepCmd != nil {
		if applied, moved, err = stepReply(stepCmd); err != nil {
			return false, nil, nil, fmt.Errorf("store.StepAndDispatch: %w", err)
		}
	}
	oks = make([]bool, len(cmds))
	for i, c := range cmds {
		n, _ := c.Int64()
		oks[i] = n == 1
	}
	return applied, moved, oks, nil
}

func runStepAndDispatch(ctx context.Context, db *redis.Client, flowID uint64, step *FlowStep,
	ds []FlowDispatch) (*redis.Cmd, []*redis.Cmd, error) {
	var stepCmd *redis.Cmd
	cmds := make([]*redis.Cmd, len(ds))
	_, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		if step != nil {
			keys, arg := stepArgs(flowID, *step)
			stepCmd = flowStep.EvalSha(ctx, p, keys, arg)
		}
		for i, d := range ds {
			keys, args := dispatchArgs(d)
			cmds[i] = dispatchFlowJob.EvalSha(ctx, p, keys, args...)
		}
		return nil
	})
	return stepCmd, cmds, err
}

func loadFlowScripts(ctx context.Context, db *redis.Client) error {
	for _, sc := range []*redis.Script{flowStep, dispatchFlowJob} {
		if err := sc.Load(ctx, db).Err(); err != nil {
			return err
		}
	}
	return nil
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
