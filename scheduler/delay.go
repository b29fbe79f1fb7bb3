package scheduler

import (
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// fDelay is a flow job's delay in seconds (job hash field): its first
// attempt gets run_at = the time it is dispatched + delay.
const fDelay = "delay"

// delayFields adds a job spec's run_at and delay to its job hash's extra
// fields h.
func delayFields(spec *flowfile.JobSpec, h model.Hash) model.Hash {
	if !spec.RunAt.IsZero() {
		h[store.RunAtField] = store.FormatRunAt(spec.RunAt)
	}
	if spec.Delay > 0 {
		h[fDelay] = seconds(spec.Delay)
	}
	return h
}

// startAt sets the run_at of a flow job's first attempt with a delay: the
// delay counts from when the job is ready (its needs done), and retries
// do not wait again. The runner's claim holds the job back until run_at
// (store.TimersKey).
func startAt(j *model.RunnerJob, now time.Time) {
	d := atoi(j.Extra[fDelay])
	if d <= 0 || j.Attempt != 1 {
		return
	}
	j.Extra[store.RunAtField] = store.FormatRunAt(now.Add(time.Duration(d) * time.Second))
}
