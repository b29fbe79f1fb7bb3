package control

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// Files between jobs (docs/design.md): a job's outputs at submission, its
// files in its view and in job.files.

func (h *Handlers) registerFilesMethods() {
	api.Register(h.table, "job.files", "List a job's files (path, size, sha256, mode), "+
		"which its outputs matched when it finished, and the agent that holds them (ran_on).",
		h.jobFiles)
}

// jobFiles is job.files.
func (h *Handlers) jobFiles(ctx context.Context, p wire.JobRef) (*wire.JobFilesView, error) {
	v, err := h.jobLoad(ctx, p)
	if err != nil {
		return nil, err
	}
	fs := v.Files
	if fs == nil {
		fs = []wire.FileView{}
	}
	return &wire.JobFilesView{Context: v.ContextID, Key: v.Key, Status: v.Status, Files: fs, RanOn: v.RanOn}, nil
}

// checkOutputs refuses output patterns the runner would refuse.
func checkOutputs(outputs []string) error {
	for _, o := range outputs {
		if err := files.CheckPattern(o); err != nil {
			return api.InvalidParams("outputs", "%v: want a path or glob relative to the job's directory, such as out/*.tar.gz", err)
		}
	}
	return nil
}

// filesView is what a job's view shows of its files.
func filesView(j *model.RunnerJob, v *wire.JobView) {
	v.Outputs = j.Outputs()
	v.RanOn = j.Extra[model.ExtraRanOn]
	es, err := files.DecodeEntries(j.FilesJSON())
	if err != nil {
		return // a record no agent of this version wrote: shown without files
	}
	for _, e := range es {
		v.Files = append(v.Files, wire.FileView{Path: e.Path, Size: e.Size, SHA256: e.SHA256, Mode: e.Mode})
	}
}
