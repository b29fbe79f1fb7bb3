package retention

import (
	"context"

	"github.com/hyphae-run/hyphae/context/jobdir"
	"github.com/hyphae-run/hyphae/context/store"
)

// maxBatchJobs bounds the jobs of flows one PruneFlows call takes (four
// keys each), whatever Batch says.
const maxBatchJobs = 250

// msgInPage is how many dangling msg_in entries one TrimMsgIn call looks
// at.
const msgInPage = 1000

// sweep prunes context id by r: ended flows first (their jobs go with
// them), then jobs, messages and msg_in, then the job directories whose
// job is gone. It stops at the first error, reporting what it did so far.
func (j *Janitor) sweep(ctx context.Context, id uint64, r rules) (ContextReport, error) {
	rep := ContextReport{Context: id}
	dirs, err := readJobDirs(jobdir.JobsDir(j.cfg.DataDir, id))
	if err != nil {
		return rep, err
	}
	steps := []func() error{
		func() error { return j.sweepFlows(ctx, id, r, dirs, &rep) },
		func() error { return j.sweepJobs(ctx, id, r, dirs, &rep) },
		func() error { return j.sweepMessages(ctx, id, r, &rep) },
		func() error { return j.sweepOrphans(ctx, id, r, dirs, &rep) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func (j *Janitor) sweepFlows(ctx context.Context, id uint64, r rules, dirs *jobDirs, rep *ContextReport) error {
	flows, err := j.st.Flows.EndedFlows(ctx, id)
	if err != nil {
		return err
	}
	for _, b := range batches(pick(flows, j.cfg.MaxFlows, r.cutoff), j.cfg.Batch, maxBatchJobs) {
		p, err := j.st.Flows.PruneFlows(ctx, id, b, r.dry)
		if err != nil {
			return err
		}
		rep.Flows += len(p.Keys)
		j.prunedJobs(p, r, dirs, rep)
	}
	return nil
}

// sweepJobs prunes context id's ended jobs by r and, unless dry, restarts
// the count of ended jobs that brings its next early sweep.
func (j *Janitor) sweepJobs(ctx context.Context, id uint64, r rules, dirs *jobDirs, rep *ContextReport) error {
	if !r.dry {
		j.listing(id)
	}
	jobs, err := j.st.Jobs.EndedJobs(ctx, id)
	if err != nil {
		return err
	}
	removed := rep.Jobs
	for _, b := range batches(pick(jobs, j.cfg.MaxJobs, r.cutoff), j.cfg.Batch, maxBatchJobs) {
		p, err := j.st.Jobs.PruneJobs(ctx, id, b, r.dry)
		if err != nil {
			return err
		}
		j.prunedJobs(p, r, dirs, rep)
	}
	if !r.dry {
		j.swept(id, len(jobs)-(rep.Jobs-removed))
	}
	return nil
}

// prunedJobs counts what a PruneJobs or PruneFlows removed and removes
// the directories of its jobs.
func (j *Janitor) prunedJobs(p store.Pruned, r rules, dirs *jobDirs, rep *ContextReport) {
	rep.Jobs += len(p.Jobs)
	rep.RedisBytes += p.Bytes
	for _, k := range p.Jobs {
		n, size := dirs.remove(k, r.dry, j.log)
		rep.Dirs += n
		rep.DiskBytes += size
	}
	if !r.dry && len(p.Jobs) > 0 && j.cfg.OnPruned != nil {
		j.cfg.OnPruned(rep.Context, p.Jobs)
	}
}

func (j *Janitor) sweepMessages(ctx context.Context, id uint64, r rules, rep *ContextReport) error {
	msgs, err := j.st.Bus.EndedMessages(ctx, id)
	if err != nil {
		return err
	}
	for _, b := range batches(pick(msgs, j.cfg.MaxMessages, r.cutoff), j.cfg.Batch, maxBatchJobs) {
		p, err := j.st.Bus.PruneMessages(ctx, id, b, r.dry)
		if err != nil {
			return err
		}
		rep.Messages += len(p.Keys)
		rep.RedisBytes += p.Bytes
	}
	for {
		n, err := j.st.Bus.TrimMsgIn(ctx, id, int64(j.cfg.MaxMessages), msgInPage, r.dry)
		if err != nil {
			return err
		}
		rep.MsgIn += n
		if r.dry || n == 0 || ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
