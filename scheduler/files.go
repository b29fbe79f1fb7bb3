package scheduler

import (
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/files"
)

// Files between jobs (docs/design.md): a job that needs a producer with
// files finds them under in/<producer>/ before it starts. The scheduler
// writes, on each attempt it dispatches, the input sets of the producers
// it needs (model.ExtraInputs): their entries, the agent whose content
// store has the blobs and the job ref they are asked for there; the runner
// fetches and places them (node/jobfiles).

// madeFiles records producer j's files as the input set of the jobs that
// need it (caller holds r.mu).
func (r *flowRun) madeFiles(name string, j *model.RunnerJob) {
	if in, ok := inputOf(r.key.ctx, name, j); ok {
		if r.made == nil {
			r.made = map[string]files.Input{}
		}
		r.made[name] = in
	}
}

// loadMade records the files of the flow's finished jobs, as the store
// holds them (a flow run loaded again after a restart or an eviction).
func (r *flowRun) loadMade(jobs []*model.RunnerJob) {
	for _, j := range jobs {
		if j != nil && j.Status == model.JobFinished {
			r.madeFiles(j.Name, j)
		}
	}
}

// inputOf is the input set of job j's files, false when it has none: at
// the agent it ran on (with its ref there), else here (Peer "").
func inputOf(ctxID uint64, name string, j *model.RunnerJob) (files.Input, bool) {
	es, err := files.DecodeEntries(j.FilesJSON())
	if err != nil || len(es) == 0 || files.CheckName(name) != nil {
		return files.Input{}, false
	}
	in := files.Input{Name: name, Ref: strconv.FormatUint(ctxID, 10) + "/" + store.JobKey(j.CallerID, j.ID), Files: es}
	if on := j.Extra[model.ExtraRanOn]; on != "" && j.Extra[model.ExtraFilesRef] != "" {
		in.Peer, in.Ref = on, j.Extra[model.ExtraFilesRef]
	}
	return in, true
}

// withInputs sets job j's inputs from the producers node n needs, and
// drops files an earlier attempt left on it (caller holds r.mu). A
// producer that ran here is asked for through the consuming job's own
// ref: the agent it is sent to is the one the trust rule lets have it. A
// producer that ran on a third agent is asked for through a grant this
// agent, its origin, signs for the consumer's agent (to).
func (s *Scheduler) withInputs(r *flowRun, n *node, j *model.RunnerJob, to string) {
	self := s.cfg.Self
	var ins []files.Input
	for _, need := range n.needs {
		in, ok := r.made[need]
		if !ok {
			continue
		}
		switch {
		case in.Peer == "" || in.Peer == self:
			in.Peer, in.Ref = self, strconv.FormatUint(r.key.ctx, 10)+"/"+n.key
		case to != "" && to != self && to != in.Peer && s.cfg.GrantFiles != nil:
			if g, err := s.cfg.GrantFiles(in.Ref, to); err == nil {
				in.Ref = g
			}
		}
		ins = append(ins, in)
	}
	j.SetInputsJSON(files.EncodeJSON(ins))
	j.SetFilesJSON("")
	delete(j.Extra, model.ExtraFilesRef)
}

// reuseFiles gives a rerun's reused job the files of the job it reuses,
// and where they are: the jobs that run again find them under in/. The
// blobs stay held by that earlier job, until it is pruned.
func reuseFiles(j, old *model.RunnerJob) {
	for _, k := range []string{model.ExtraFiles, model.ExtraFilesRef, model.ExtraRanOn} {
		if v := old.Extra[k]; v != "" {
			j.Extra[k] = v
		}
	}
}
