package control

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
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
	api.Register(h.table, "job.fetch", "Bring a job's files to this agent from the agent that ran it, "+
		"checked by sha256, and list them; GET /files/<context>/<key>/<sha256> then streams each.",
		h.jobFetch)
}

// registerFilesHTTP adds GET /files/{context}/{key}/{sha} and POST /files
// (token on TCP).
func (h *Handlers) registerFilesHTTP(srv *api.Server) {
	srv.Handle("GET /files/{context}/{key}/{sha}", http.HandlerFunc(h.serveFile), false)
	srv.Handle("POST /files", http.HandlerFunc(h.serveUpload), false) // job_inputs.go
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

// Files is what the handlers use of files between jobs (node/jobfiles).
type Files interface {
	Uploads // job_inputs.go
	Bring(ctx context.Context, ctxID uint64, key string, j *model.RunnerJob) ([]files.Entry, error)
	OpenBlob(sha string) (io.ReadCloser, error)
	// FileOf is the entry of job key's file with sha256 sha (ok false: none).
	FileOf(ctx context.Context, ctxID uint64, key, sha string) (files.Entry, bool, error)
}

// jobFetch is job.fetch: the job's files into this agent's store, from
// wherever it ran, so that GET /files/... can stream them.
func (h *Handlers) jobFetch(ctx context.Context, p wire.JobRef) (*wire.JobFilesView, error) {
	if _, _, err := store.ParseJobKey(p.Key); err != nil {
		return nil, api.InvalidParams("key", "%v", err)
	}
	j, err := h.Store.Jobs.LoadJobKey(ctx, p.Context, p.Key)
	if err != nil {
		return nil, h.notFound(ctx, err, p.Context, p.Key)
	}
	if h.Files == nil {
		return nil, api.Errorf(api.CodeUnavailable, "this agent does not carry files between jobs")
	}
	if _, err := h.Files.Bring(ctx, p.Context, p.Key, j); err != nil {
		return nil, fmt.Errorf("job %s's files: %w", p.Key, err)
	}
	return h.jobFiles(ctx, p)
}

// serveFile streams one file of a job that job.fetch brought here: GET
// /files/{context}/{key}/{sha256}. Only a blob among the job's files is
// served.
func (h *Handlers) serveFile(w http.ResponseWriter, r *http.Request) {
	ctxID, err := strconv.ParseUint(r.PathValue("context"), 10, 64)
	key, sha := r.PathValue("key"), r.PathValue("sha")
	if err != nil || h.Files == nil {
		http.Error(w, "want /files/<context>/<job key>/<sha256>", http.StatusBadRequest)
		return
	}
	e, ok, err := h.Files.FileOf(r.Context(), ctxID, key, sha) // the job's record, once per batch
	if err != nil {
		http.Error(w, fmt.Sprintf("job %s: %v", key, err), http.StatusNotFound)
		return
	}
	if !ok {
		http.Error(w, fmt.Sprintf("job %s has no file with sha256 %s", key, sha), http.StatusNotFound)
		return
	}
	rc, err := h.Files.OpenBlob(sha)
	if err != nil {
		http.Error(w, fmt.Sprintf("%s: %v (job.fetch brings it here first)", e.Path, err), http.StatusNotFound)
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(e.Size, 10))
	_, _ = io.Copy(w, rc)
}
