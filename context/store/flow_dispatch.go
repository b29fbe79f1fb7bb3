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

// dispatchFlowJobs runs the dispatches (one round trip when the script is
// loaded) and reports which ones happened.
func (s *core) dispatchFlowJobs(ctx context.Context, ctxID uint64, ds []FlowDispatch) ([]bool, error) {
	_, _, oks, err := s.flows.StepAndDispatch(ctx, ctxID, 0, nil, ds)
	if err != nil {
		return nil, fmt.Errorf("store.DispatchFlowJobs: %w", err)
	}
	return oks, nil
}

// StepAndDispatch applies step (when not nil) to flow flowID and then runs
// the dispatches, in one round trip. The dispatches are guarded by their
// own node states, so those that depend on the step (a node it made ready)
// do nothing when the step's guards failed.
func (s *Flows) StepAndDispatch(ctx context.Context, ctxID, flowID uint64, step *FlowStep,
	ds []FlowDispatch) (applied bool, moved []string, oks []bool, err error) {
	db, err := s.db(ctxID)
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

// dispatchFlowJob: see FlowDispatch (StepAndDispatch runs it). It hands
// one flow job to a runner: guard the node state and the job's attempt,
// write the job, push it on its queue (local) or write the message and
// push it on msg_out (remote), clear old replies and mark the node
// dispatched — atomically, so a job is dispatched exactly once.
// KEYS[1] flow_nodes:<flow>, KEYS[2] job key, KEYS[3] list to push on
// (queue:<type> or msg_out), KEYS[4] message key (the job key when local),
// KEYS[5] reply:<job key>.
// ARGV[1] node name, ARGV[2] allowed node states (space separated),
// ARGV[3] expected job attempt ("" = any), ARGV[4] N, ARGV[5..4+2N] job
// field/value pairs, then message field/value pairs (remote only).
// Returns 1 when dispatched, 0 when a guard failed or the job has ended.
var dispatchFlowJob = newScript("dispatchFlowJob", luaTerminal, luaTimeline, `
local st = redis.call('HGET', KEYS[1], ARGV[1]) or ''
local ok = false
for w in string.gmatch(ARGV[2], '%S+') do if w == st then ok = true end end
if not ok then return 0 end
local cur = redis.call('HMGET', KEYS[2], 'status', 'attempt')
if terminal(cur[1] or '') then return 0 end
if ARGV[3] ~= '' and (cur[2] or '0') ~= ARGV[3] then return 0 end
local n = tonumber(ARGV[4])
redis.call('HSET', KEYS[2], unpack(ARGV, 5, 4 + 2 * n))
if #ARGV > 4 + 2 * n then
  redis.call('HSET', KEYS[4], unpack(ARGV, 5 + 2 * n))
  redis.call('LPUSH', KEYS[3], KEYS[4])
else
  redis.call('LPUSH', KEYS[3], KEYS[2])
end
redis.call('DEL', KEYS[5])
redis.call('HSET', KEYS[1], ARGV[1], 'dispatched')
local sent = ''
if #ARGV > 4 + 2 * n then sent = 'to another agent' end
timeline(KEYS[2], redis.call('HGET', KEYS[2], 'status') or 'dispatched', sent)
return 1
`)

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
