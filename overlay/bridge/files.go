package bridge

import (
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
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

// filesOf puts ended job j's files, and its ref here, on result p.
func filesOf(p *payload, j *model.RunnerJob) {
	if v := j.FilesJSON(); v != "" {
		p.Files = v
		p.FilesRef = strconv.FormatUint(j.ContextID, 10) + "/" + store.JobKey(j.CallerID, j.ID)
	}
}

// filesFields are the fields result p writes onto its origin job.
func filesFields(fields model.Hash, p *payload) {
	if p.Files != "" {
		fields[model.ExtraFiles], fields[model.ExtraFilesRef] = p.Files, p.FilesRef
	}
}
