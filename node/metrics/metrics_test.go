package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/hyphae-run/hyphae/context/model"
)

// A job's duration runs from its start here to its end, not from its
// creation: a job queued for an hour that runs briefly is not an hour
// long, and one that never started has no duration.
func TestJobDurationFromStartToEnd(t *testing.T) {
	m := New()
	m.ServedTypes(func() []string { return []string{"sh"} })
	old := &model.RunnerJob{ID: 7, ScriptType: "sh", Status: model.JobFinished, CreatedAt: time.Now().Add(-time.Hour).Unix()}
	m.JobStarted(1, old)
	m.JobDone(1, old)
	never := &model.RunnerJob{ID: 8, ScriptType: "sh", Status: model.JobError, CreatedAt: time.Now().Unix()}
	m.JobDone(1, never)
	h := m.duration.WithLabelValues("sh")
	pb := histogramOf(t, h)
	if pb.GetSampleCount() != 1 {
		t.Fatalf("observations = %d, want 1 (the job that never started has none)", pb.GetSampleCount())
	}
	if s := pb.GetSampleSum(); s >= 60 {
		t.Fatalf("duration = %vs: measured from creation, not start", s)
	}
	if b := pb.GetBucket()[0]; b.GetUpperBound() >= 0.1 {
		t.Fatalf("first bucket %v: sub-second jobs cannot be told apart", b.GetUpperBound())
	}
}

// A type this agent does not serve is counted as "other": a refused
// `--type perl` adds no series.
func TestJobTypeLabelBounded(t *testing.T) {
	m := New()
	m.ServedTypes(func() []string { return []string{"sh"} })
	m.JobDone(1, &model.RunnerJob{ID: 1, ScriptType: "perl", Status: model.JobError})
	m.JobDone(1, &model.RunnerJob{ID: 2, ScriptType: "sh", Status: model.JobError})
	got := map[string]float64{}
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "hyphae_jobs_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "type" {
					got[l.GetValue()] += s.GetCounter().GetValue()
				}
			}
		}
	}
	if len(got) != 2 || got["other"] != 1 || got["sh"] != 1 {
		t.Fatalf("jobs_total by type = %v, want sh:1 other:1", got)
	}
}

func histogramOf(t *testing.T, o prometheus.Observer) *dto.Histogram {
	t.Helper()
	var pb dto.Metric
	if err := o.(prometheus.Metric).Write(&pb); err != nil {
		t.Fatal(err)
	}
	return pb.GetHistogram()
}
