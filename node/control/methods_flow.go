package node

import (
	"context"
	"path/filepath"
	"time"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/scheduler"
)

// FlowCreateParams is a flow file sent whole: its text, the name messages
// use and the directory its script_file paths start from (on this agent's
// machine). Context, when set, overrides the file's. Start also starts it.
type FlowCreateParams struct {
	FileContent string `json:"file_content"`
	FileName    string `json:"file_name,omitempty"`
	BaseDir     string `json:"base_dir,omitempty"`
	Context     uint64 `json:"context,omitempty"`
	Start       bool   `json:"start,omitempty"`
}

// FlowRef names a flow.
type FlowRef struct {
	Context uint64 `json:"context"`
	ID      uint64 `json:"id"`
}

// FlowWaitParams: block up to Timeout seconds for the flow to end or, with
// After (a previous view's version), for any change.
type FlowWaitParams struct {
	FlowRef
	Timeout int64  `json:"timeout,omitempty"`
	After   string `json:"after,omitempty"`
}

// FlowView is a flow as the API shows it: status, error, result, jobs
// (name, state, status, runner, attempt, duration, result, error, needs)
// in topological order, progress, version; warnings from flow.create.
type FlowView struct {
	scheduler.Status
	Warnings []string `json:"warnings,omitempty"`
}

// FlowSummary is a row of flow.list: a flow with its job counts.
type FlowSummary = scheduler.Summary

func (n *Node) registerFlowMethods() {
	api.Register(n.table, "flow.create", "Validate and store a flow file (text + base dir); with start, start it too.", n.flowCreate)
	api.Register(n.table, "flow.start", "Start a created flow.", func(ctx context.Context, p FlowRef) (*FlowView, error) {
		return n.flowAct(ctx, p, n.sched.StartFlow)
	})
	api.Register(n.table, "flow.load", "Show a flow with its jobs.", n.flowStatus)
	api.Register(n.table, "flow.status", "A flow's status, jobs and progress.", n.flowStatus)
	api.Register(n.table, "flow.wait", "Block until the flow ends, or changes from version `after`, or timeout seconds pass.", n.flowWait)
	api.Register(n.table, "flow.cancel", "Stop a flow's running jobs and cancel the rest.", func(ctx context.Context, p FlowRef) (*FlowView, error) {
		return n.flowAct(ctx, p, n.sched.Cancel)
	})
	api.Register(n.table, "flow.list", "List a context's flows with progress.", func(ctx context.Context, p struct {
		Context uint64 `json:"context"`
	}) ([]FlowSummary, error) {
		if err := n.checkFlowContext(ctx, p.Context); err != nil {
			return nil, err
		}
		return n.sched.List(ctx, p.Context)
	})
}

func (n *Node) flowCreate(ctx context.Context, p FlowCreateParams) (*FlowView, error) {
	if p.FileContent == "" {
		return nil, api.InvalidParams("file_content", "required: the flow file's text")
	}
	if p.BaseDir != "" && !filepath.IsAbs(p.BaseDir) {
		return nil, api.InvalidParams("base_dir", "must be absolute, got %q", p.BaseDir)
	}
	f, warns, err := scheduler.Parse([]byte(p.FileContent), p.FileName, p.BaseDir)
	if err != nil {
		return nil, api.InvalidParams("file_content", "%v", err)
	}
	served, known, err := n.flowTypes(ctx)
	if err != nil {
		return nil, err
	}
	if err := scheduler.UnknownTypes(f, known); err != nil {
		return nil, api.InvalidParams("file_content", "%v", err)
	}
	if p.Context != 0 {
		f.Context = p.Context
	}
	if err := n.checkFlowContext(ctx, f.Context); err != nil {
		return nil, err
	}
	if n.draining.Load() {
		return nil, api.Errorf(api.CodeUnavailable, "agent is draining: not taking new flows")
	}
	fl, err := n.sched.Create(ctx, f, n.self.ID)
	if err != nil {
		return nil, err
	}
	ref := FlowRef{Context: fl.ContextID, ID: fl.ID}
	if p.Start {
		if err := n.sched.StartFlow(ctx, ref.Context, ref.ID); err != nil {
			return nil, err
		}
	}
	v, err := n.flowStatus(ctx, ref)
	if err != nil {
		return nil, err
	}
	for _, w := range append(warns, scheduler.CheckTypes(f, served)...) {
		v.Warnings = append(v.Warnings, w.String())
	}
	return v, nil
}

// flowAct runs op on the flow and returns its view.
func (n *Node) flowAct(ctx context.Context, p FlowRef, op func(context.Context, uint64, uint64) error) (*FlowView, error) {
	if err := n.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	if err := op(ctx, p.Context, p.ID); err != nil {
		return nil, err
	}
	return n.flowStatus(ctx, p)
}

func (n *Node) flowStatus(ctx context.Context, p FlowRef) (*FlowView, error) {
	if err := n.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	st, err := n.sched.Status(ctx, p.Context, p.ID)
	if err != nil {
		return nil, err
	}
	return &FlowView{Status: *st}, nil
}

func (n *Node) flowWait(ctx context.Context, p FlowWaitParams) (*FlowView, error) {
	if err := n.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	d := time.Duration(p.Timeout) * time.Second
	if d <= 0 || d > time.Hour {
		d = time.Hour
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	st, err := n.sched.Next(wctx, p.Context, p.ID, p.After)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		// The wait ran out (maybe mid-read): answer with the flow as it is
		// now, read under the caller's context, so the caller waits again.
		st, err = n.sched.Status(ctx, p.Context, p.ID)
	}
	if err != nil {
		return nil, err
	}
	return &FlowView{Status: *st}, nil
}

// checkFlowContext refuses context ids this agent cannot serve.
func (n *Node) checkFlowContext(ctx context.Context, id uint64) error {
	if id == 0 {
		return api.InvalidParams("context", "required: the context id (in the file as `context: N`, or given)")
	}
	if err := n.store.CheckContextID(id); err != nil {
		return api.InvalidParams("context", "%v", err)
	}
	if _, err := n.store.LoadContext(ctx, id); err != nil {
		return api.InvalidParams("context", "context %d does not exist on this agent (hyphae context create --id %d)", id, id)
	}
	return nil
}
