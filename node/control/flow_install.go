package control

import (
	"context"
	"path/filepath"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/scheduler"
)

// installParams is what installing a flow file's schedule or trigger
// takes (ScheduleAddParams and TriggerAddParams convert to it).
type installParams struct {
	FileContent string
	FileName    string
	BaseDir     string
	Context     uint64
}

// installable parses the flow file of p for installing, as its schedule
// or its trigger: the file must parse, have what has looks for (else the
// error missing), name only types some runner serves, and a context this
// agent may use (p.Context, when set, overrides the file's).
func (h *Handlers) installable(ctx context.Context, p installParams, has func(*scheduler.File) bool,
	missing error) (*scheduler.File, error) {
	if p.FileContent == "" {
		return nil, api.InvalidParams("file_content", "required: the flow file's text")
	}
	if p.BaseDir != "" && !filepath.IsAbs(p.BaseDir) {
		return nil, api.InvalidParams("base_dir", "must be absolute, got %q", p.BaseDir)
	}
	f, _, err := scheduler.Parse([]byte(p.FileContent), p.FileName, p.BaseDir)
	if err != nil {
		return nil, api.InvalidParams("file_content", "%v", err)
	}
	if !has(f) {
		return nil, api.InvalidParams("file_content", "%v", missing)
	}
	_, known, err := h.flowTypes(ctx)
	if err != nil {
		return nil, err
	}
	if err := scheduler.UnknownTypes(f, known); err != nil {
		return nil, api.InvalidParams("file_content", "%v", err)
	}
	if p.Context != 0 {
		f.Context = p.Context
	}
	if err := h.checkFlowContext(ctx, f.Context); err != nil {
		return nil, err
	}
	return f, nil
}
