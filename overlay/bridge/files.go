package bridge

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/overlay"
)

// Files between jobs (docs/design.md): a job's outputs and inputs travel
// with it to the agent that runs it, and the files it made come home with
// its result, with its ref there (the blobs stay in that agent's content
// store until a consumer or `job get` fetches them).

// copyFiles gives received job j the outputs and inputs of src.
func copyFiles(j, src *model.RunnerJob) {
	for _, k := range []string{model.ExtraOutputs, model.ExtraInputs} {
		if v := src.Extra[k]; v != "" {
			if j.Extra == nil {
				j.Extra = model.Hash{}
			}
			j.Extra[k] = v
		}
	}
}

// maxResult bounds a result payload with its files list: the overlay's
// message limit (overlay.DefaultMaxMessageSize) less room for the sealed
// envelope (signature, age header and tag, frame).
const maxResult = overlay.DefaultMaxMessageSize - 16<<10

// filesOf puts ended job j's files, and its ref here, on result p. A list
// too long for one message (thousands of files) goes apart, as a blob the
// origin fetches (files_apart.go); where it cannot, the result says so,
// as an error naming where the files are, instead of a message that
// would never arrive.
func (b *Bridge) filesOf(ctx context.Context, p *payload, j *model.RunnerJob) {
	v := j.FilesJSON()
	if v == "" {
		return
	}
	key := store.JobKey(j.CallerID, j.ID)
	ref := strconv.FormatUint(j.ContextID, 10) + "/" + key
	rest := len(p.encode()) + len(ref)
	if rest+len(v) <= maxResult {
		p.Files, p.FilesRef = v, ref
		return
	}
	if b.cfg.FilesLists != nil {
		desc, err := b.cfg.FilesLists.PublishList(ctx, j.ContextID, key, v)
		if err == nil {
			p.FilesList, p.FilesRef = desc, ref
			return
		}
		b.log.Warn("bridge: files list apart", "context", j.ContextID, "job", key, "err", err)
	}
	p.Status = string(model.JobError)
	p.Error = fmt.Sprintf("outputs: the job's files list is %d KiB, past the %d KiB a result carries home; "+
		"the files are on the agent that ran it (job %s there): put them in fewer files (a tar) to send them",
		len(v)>>10, (maxResult-rest)>>10, ref)
}

// filesFields are the fields result p writes onto its origin job.
func filesFields(fields model.Hash, p *payload) {
	if p.Files != "" {
		fields[model.ExtraFiles], fields[model.ExtraFilesRef] = p.Files, p.FilesRef
	}
}
