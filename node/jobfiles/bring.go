package jobfiles

import (
	"context"
	"io"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/files"
)

// Bring makes the files of job key (ctxID here) present in this agent's
// store, held for the job: fetched from the agent that ran it when this
// one lacks them (`hyphae job get`). It returns the job's entries.
func (s *Service) Bring(ctx context.Context, ctxID uint64, key string, j *model.RunnerJob) ([]files.Entry, error) {
	es, err := files.DecodeEntries(j.FilesJSON())
	if err != nil || len(es) == 0 {
		return es, err
	}
	in := files.Input{Ref: Ref(ctxID, key), Files: es}
	if on, ref := j.Extra[model.ExtraRanOn], j.Extra[model.ExtraFilesRef]; on != "" && ref != "" {
		in.Peer, in.Ref = on, ref
	}
	return es, s.bring(ctx, in, holdRef(ctxID, key))
}

// OpenBlob opens the bytes of blob sha of this agent's store.
func (s *Service) OpenBlob(sha string) (io.ReadCloser, error) { return s.store.OpenFile(sha) }
