package jobfiles

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/files"
)

// Outputs records the files job's outputs match in dir into the store,
// held for the job, and returns them as its files field (executor.Files).
// A bad pattern or name, or a file past the limits, is refused before
// anything is stored; the error says which and why.
func (s *Service) Outputs(ctx context.Context, ctxID uint64, jobKey string, job *model.RunnerJob, dir string) (string, error) {
	outputs, err := job.OutputsErr()
	if err != nil {
		return "", err
	}
	if len(outputs) == 0 {
		return "", nil
	}
	entries, err := files.Build(ctx, dir, outputs, s.cfg.Limits, holdRef(ctxID, jobKey), s.store)
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return "[]", nil // it had outputs, none matched: shown as no files
	}
	return files.EncodeJSON(entries), nil
}
