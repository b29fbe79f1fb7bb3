package node

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/overlay/bridge"
)

// LogsView answers job.logs.
type LogsView struct {
	Lines  []string `json:"lines"`
	Next   int64    `json:"next"`
	Status string   `json:"status"`
	Runner string   `json:"runner,omitempty"` // the agent a job sent away went to
	// Source says where the lines of a job sent away come from: "runner"
	// (its runner's agent, which holds the whole log: indexes are its) or
	// "result" (the last lines its result brought home; see Note).
	Source string `json:"source,omitempty"`
	More   bool   `json:"more,omitempty"` // more lines wait after Next: ask again at once
	Note   string `json:"note,omitempty"` // why the runner's agent was not read
	// ResultLines is how many last lines a result brings home (with Note).
	ResultLines int `json:"result_lines,omitempty"`
}

func (n *Node) registerJobMoreMethods() {
	api.Register(n.table, "job.logs", "A job's output lines from index `from` on and its status. "+
		"A job sent to another agent is read there (source runner) while that agent answers, "+
		"else from the last lines its result brought home (source result, with a note why).",
		func(ctx context.Context, p struct {
			JobRef
			From int64 `json:"from,omitempty"`
		}) (*LogsView, error) {
			if _, _, err := store.ParseJobKey(p.Key); err != nil {
				return nil, api.InvalidParams("key", "%v", err)
			}
			if p.From < 0 {
				return nil, api.InvalidParams("from", "must not be negative")
			}
			j, err := n.store.LoadJobKey(ctx, p.Context, p.Key)
			if err != nil {
				return nil, err
			}
			if j.Extra["message_key"] != "" { // sent to another agent
				return n.sentJobLogs(ctx, p.JobRef, j, p.From)
			}
			return n.localLogs(ctx, p.JobRef, j, p.From)
		})
	api.Register(n.table, "job.stop", "Stop a running or queued job, here or on the agent running it.",
		func(ctx context.Context, p JobRef) (map[string]string, error) {
			j, err := n.jobLoad(ctx, p)
			if err != nil {
				return nil, err
			}
			if model.JobStatus(j.Status).Terminal() {
				return nil, api.Errorf(api.CodeConflict, "job %s already ended (%s)", p.Key, j.Status)
			}
			return n.stopJob(ctx, p.Context, p.Key, j.Runner)
		})
}

// localLogs reads job j's lines from this agent's store.
func (n *Node) localLogs(ctx context.Context, p JobRef, j *model.RunnerJob, from int64) (*LogsView, error) {
	lines, err := n.store.ReadLogs(ctx, p.Context, p.Key, from)
	if err != nil {
		return nil, err
	}
	if lines == nil {
		lines = []string{}
	}
	return &LogsView{Lines: lines, Next: from + int64(len(lines)), Status: string(j.Status), Runner: j.Runner}, nil
}

// sentJobLogs reads the lines of job j, sent to another agent, from that
// agent (Bridge.RemoteLogs); when it cannot be read, from the copy the
// job's result brought home, with a note saying why.
func (n *Node) sentJobLogs(ctx context.Context, p JobRef, j *model.RunnerJob, from int64) (*LogsView, error) {
	r, err := n.bridge.RemoteLogs(ctx, p.Context, p.Key, j.Extra["message_key"], from)
	if err == nil {
		if r.Lines == nil {
			r.Lines = []string{}
		}
		return &LogsView{Lines: r.Lines, Next: r.Next, Status: r.Status, Runner: r.Runner, Source: "runner", More: r.More}, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	v, lerr := n.localLogs(ctx, p, j, from)
	if lerr != nil {
		return nil, lerr
	}
	v.Source, v.Note, v.ResultLines = "result", logsNote(err, j.Status), bridge.ResultLogLines
	return v, nil
}

// logsNote says why a sent job (in status) was not read at its runner.
func logsNote(err error, status model.JobStatus) string {
	var refused *bridge.RefusedError
	switch {
	case status == model.JobDispatched && errors.As(err, &refused):
		return "not delivered there yet" // it does not know the job: our message is still on its way
	case errors.Is(err, bridge.ErrNotRouted):
		return "no agent has taken it yet"
	case errors.Is(err, bridge.ErrUnreachable):
		return "not connected"
	case errors.Is(err, bridge.ErrNoAnswer):
		return fmt.Sprintf("no answer within %v", bridge.LogsWait)
	case errors.Is(err, bridge.ErrNotSent):
		return "its message is gone"
	case errors.As(err, &refused):
		return refused.Reason
	}
	return err.Error() // the store failed
}

// stopJob stops a job on this agent's runner, or asks the agent it was
// sent to. A sent job that no agent took yet (sent to any, none up runs
// its type) ends here and its message is withdrawn.
func (n *Node) stopJob(ctx context.Context, ctxID uint64, key, runner string) (map[string]string, error) {
	sent := n.sentMessage(ctx, ctxID, key)
	switch {
	case sent != nil && sent.Dst != "":
		runner = sent.Dst // where it went (a runner:<id> record pointed there)
	case sent != nil:
		if _, err := n.bridge.StopUndelivered(ctx, ctxID, sent, "stopped before any agent took it"); err != nil {
			return nil, err
		}
		return map[string]string{"stopped": key, "where": "outbox", "withdrawn": "true"}, nil
	case runner == "" || runner == n.id.PeerID().String():
		if err := n.stopLocal(ctx, ctxID, key); err != nil {
			return nil, err
		}
		return map[string]string{"stopped": key, "where": "local"}, nil
	}
	dst, err := peer.Decode(runner)
	if err != nil {
		return nil, api.Errorf(api.CodeConflict, "job %s runs on %q, which is not a peer ID", key, runner)
	}
	return n.stopSent(ctx, ctxID, key, dst, sent)
}

// stopSent asks dst, where job key was sent (by message sent, when
// known), to stop it.
func (n *Node) stopSent(ctx context.Context, ctxID uint64, key string, dst peer.ID, sent *model.Message) (map[string]string, error) {
	target, withdrawn := ctxID, false
	if sent != nil {
		target = sent.ContextID
		// Not acknowledged yet (the agent may be away): the job ends here
		// at once, and the outbox withdraws its message instead of sending it.
		var err error
		if withdrawn, err = n.bridge.StopUndelivered(ctx, ctxID, sent, "stopped before "+dst.String()+" acknowledged it"); err != nil {
			return nil, err
		}
	}
	m := &model.Message{CallerID: n.self.ID, ContextID: target, MessageType: model.MsgTypeStop,
		Dst: dst.String(), Timeout: 300, Extra: model.Hash{"origin_job": key}}
	if err := n.store.PushMessage(ctx, ctxID, m, store.MsgOutKey); err != nil {
		return nil, err
	}
	return map[string]string{"stopped": key, "where": dst.String(), "withdrawn": strconv.FormatBool(withdrawn)}, nil
}

// sentMessage is the job message that sent job key away (its target
// context, its status), or nil when it cannot be read.
func (n *Node) sentMessage(ctx context.Context, ctxID uint64, key string) *model.Message {
	f, err := n.store.Fields(ctx, ctxID, key, "message_key")
	if err != nil || f[0] == "" {
		return nil
	}
	m, err := n.store.LoadMessageKey(ctx, ctxID, f[0])
	if err != nil {
		return nil
	}
	return m
}
