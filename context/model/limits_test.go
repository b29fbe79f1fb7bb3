package model_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// A job's memory_mb and cpu limits are written only when set (a job
// without them keeps the seed's field set), and a client may write them by
// hand: cpu as any decimal, also as a JSON number inside a message's job.
func TestJobLimitsFields(t *testing.T) {
	h := (&model.RunnerJob{ID: 1}).ToHash()
	if _, ok := h["memory_mb"]; ok {
		t.Errorf("memory_mb written for a job without a limit: %v", h)
	}
	if _, ok := h["cpu"]; ok {
		t.Errorf("cpu written for a job without a limit: %v", h)
	}
	h = (&model.RunnerJob{ID: 1, MemoryMB: 50, CPU: 0.25}).ToHash()
	if h["memory_mb"] != "50" || h["cpu"] != "0.25" {
		t.Fatalf("limits encoded as memory_mb=%q cpu=%q", h["memory_mb"], h["cpu"])
	}
	j, err := model.JobFromHash("job:1:1", model.Hash{"memory_mb": "256", "cpu": "2"})
	if err != nil || j.MemoryMB != 256 || j.CPU != 2 || j.Extra != nil {
		t.Fatalf("hand-written limits: %+v %v", j, err)
	}
	m, err := model.MessageFromHash("message:1:1", model.Hash{"job": `[{"id":1,"memory_mb":64,"cpu":0.5}]`})
	if err != nil || m.Job[0].MemoryMB != 64 || m.Job[0].CPU != 0.5 {
		t.Fatalf("limits in a message's job: %+v %v", m, err)
	}
}
