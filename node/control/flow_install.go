package control

import (
	"context"
	"path/filepath"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// flowFileParams is a flow file sent to the agent: flow.create's, and
// what installing a file's schedule or trigger takes (ScheduleAddParams
// and TriggerAddParams convert to it).
type flowFileParams struct {
	FileContent string
	FileName    string
	BaseDir     string
	Context     uint64
}

// parsedFlow is a flow file the agent read: it parsed, names only types
// some runner knows, and its context (p.Context, when set, overrides the
// file's) is one this agent may use. served are the types a runner that
// is up serves now, for the warnings of flow.create.
type parsedFlow struct {
	f      *flowfile.File
	warns  []flowfile.Warning
	served []string
}

// readFlowFile checks and parses the flow file of p (see parsedFlow).
func (h *Handlers) readFlowFile(ctx context.Context, p flowFileParams) (*parsedFlow, error) {
	if p.FileContent == "" {
		return nil, api.InvalidParams("file_content", "required: the flow file's text")
	}
	if p.BaseDir != "" && !filepath.IsAbs(p.BaseDir) {
		return nil, api.InvalidParams("base_dir", "must be absolute, got %q", p.BaseDir)
	}
	f, warns, err := flowfile.Parse([]byte(p.FileContent), p.FileName, p.BaseDir)
	if err != nil {
		return nil, api.InvalidParams("file_content", "%v", err)
	}
	served, known, err := h.flowTypes(ctx)
	if err != nil {
		return nil, err
	}
	if err := flowfile.UnknownTypes(f, known); err != nil {
		return nil, api.InvalidParams("file_content", "%v", err)
	}
	if p.Context != 0 {
		f.Context = p.Context
	}
	if err := h.checkFlowContext(ctx, f.Context); err != nil {
		return nil, err
	}
	return &parsedFlow{f: f, warns: warns, served: served}, nil
}

// installable is readFlowFile for installing a file's schedule or trigger:
// a file without what has looks for is refused with the error missing.
func (h *Handlers) installable(ctx context.Context, p flowFileParams, has func(*flowfile.File) bool,
	missing error) (*flowfile.File, error) {
	pf, err := h.readFlowFile(ctx, p)
	if err != nil {
		return nil, err
	}
	if !has(pf.f) {
		return nil, api.InvalidParams("file_content", "%v", missing)
	}
	return pf.f, nil
}
