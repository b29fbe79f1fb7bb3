package model_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

func benchJobM() *model.RunnerJob {
	return &model.RunnerJob{
		ID: 1, CallerID: 7, ContextID: 1, Name: "bench", Script: "echo hello world",
		ScriptType: "sh", Timeout: 60, Retries: 1,
		EnvVars:       map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/tmp"},
		Result:        map[string]string{},
		Prerequisites: []string{"1", "2"}, Dependends: []uint64{},
		Status: model.JobDispatched, Attempt: 1, CreatedAt: 1700000000, UpdatedAt: 1700000000,
	}
}

func BenchmarkJobToHash(b *testing.B) {
	j := benchJobM()
	b.ReportAllocs()
	for b.Loop() {
		_ = j.ToHash()
	}
}

func BenchmarkJobFromHash(b *testing.B) {
	h := benchJobM().ToHash()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := model.JobFromHash("job:7:1", h); err != nil {
			b.Fatal(err)
		}
	}
}
