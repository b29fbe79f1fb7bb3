package control

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// Files shipped with a job (job run --input FILE[:NAME]): uploaded to this
// agent first (POST /files), then named by job.run's inputs; the job,
// wherever it runs, finds them under in/.

// Uploads is what the handlers use of the uploads (node/jobfiles).
type Uploads interface {
	Upload(ctx context.Context, r io.Reader) (string, files.Sum, error)
	UploadedEntry(sha, path string, mode uint32) (files.Entry, error)
	Adopt(ctxID uint64, key string, shas, tokens []string) error
}

// serveUpload is POST /files: the body into the content store, answered
// with its token and sum.
func (h *Handlers) serveUpload(w http.ResponseWriter, r *http.Request) {
	if h.Files == nil {
		http.Error(w, "this agent does not carry files between jobs", http.StatusServiceUnavailable)
		return
	}
	token, sum, err := h.Files.Upload(r.Context(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	writeJSONStatus(w, http.StatusOK, wire.UploadView{Token: token, SHA256: sum.SHA256, Size: sum.Size})
}

// inputsOf checks job.run's inputs and returns the job's input set, as
// its inputs field ("" for none).
func (h *Handlers) inputsOf(ps []wire.InputParam) (string, error) {
	if len(ps) == 0 {
		return "", nil
	}
	if h.Files == nil {
		return "", api.InvalidParams("inputs", "this agent does not carry files between jobs")
	}
	var es []files.Entry
	seen := map[string]bool{}
	for _, p := range ps {
		switch {
		case files.CheckPath(p.Name) != nil:
			return "", api.InvalidParams("inputs", "name %q: want a relative path such as db.sql or conf/app.toml, without ..", p.Name)
		case seen[p.Name]:
			return "", api.InvalidParams("inputs", "name %q given twice", p.Name)
		case !files.IsDigest(p.SHA256) || p.Token == "":
			return "", api.InvalidParams("inputs", "%q: want the sha256 and token POST /files answered", p.Name)
		}
		seen[p.Name] = true
		mode := p.Mode
		if mode == 0 {
			mode = 0o644
		}
		e, err := h.Files.UploadedEntry(p.SHA256, p.Name, mode)
		if err != nil {
			return "", api.InvalidParams("inputs", "%v", err)
		}
		es = append(es, e)
	}
	in := files.Input{Peer: h.ID.PeerID().String(), Files: es}
	return files.EncodeJSON([]files.Input{in}), nil
}

// adoptInputs makes the recorded job hold its uploads.
func (h *Handlers) adoptInputs(v *wire.JobView, ps []wire.InputParam) error {
	if len(ps) == 0 || v == nil {
		return nil
	}
	var shas, tokens []string
	for _, p := range ps {
		shas, tokens = append(shas, p.SHA256), append(tokens, p.Token)
	}
	if err := h.Files.Adopt(v.ContextID, v.Key, shas, tokens); err != nil {
		return fmt.Errorf("job %s's inputs: %w", v.Key, err)
	}
	return nil
}

// withoutTokens is inputs without their upload tokens: what the content
// of a submission is, for its idempotency digest.
func withoutTokens(ps []wire.InputParam) []wire.InputParam {
	if len(ps) == 0 {
		return ps
	}
	out := make([]wire.InputParam, len(ps))
	for i, p := range ps {
		p.Token = ""
		out[i] = p
	}
	return out
}

// dropUploads releases the uploads of a submission that made no job (a
// duplicate of an earlier one).
func (h *Handlers) dropUploads(ps []wire.InputParam) {
	if len(ps) == 0 || h.Files == nil {
		return
	}
	var tokens []string
	for _, p := range ps {
		tokens = append(tokens, p.Token)
	}
	_ = h.Files.Adopt(0, "", nil, tokens)
}
