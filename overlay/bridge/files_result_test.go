package bridge

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// A result carries its job's files list home, unless the list is too long
// for one message and cannot go apart (no content store): then the result
// is an error saying where the files are, instead of a message that would
// never arrive.
func TestResultFilesListTooLongIsAnError(t *testing.T) {
	small := &model.RunnerJob{ID: 7, CallerID: 1, ContextID: 2, Status: model.JobFinished,
		Extra: model.Hash{model.ExtraFiles: `[{"path":"a","size":1}]`}}
	b := &Bridge{} // no FilesLists: a long list cannot go apart
	p := &payload{}
	b.resultOf(context.Background(), p, small, nil)
	if p.Files == "" || p.FilesRef != "2/job:1:7" || p.Status != string(model.JobFinished) {
		t.Fatalf("a short files list: %+v", p)
	}
	long := &model.RunnerJob{ID: 8, CallerID: 1, ContextID: 2, Status: model.JobFinished,
		Extra: model.Hash{model.ExtraFiles: "[" + strings.Repeat(`{"path":"x"},`, maxResult/10) + `{}]`}}
	p = &payload{}
	b.resultOf(context.Background(), p, long, nil)
	if p.Files != "" || p.Status != string(model.JobError) || !strings.Contains(p.Error, "job 2/job:1:8 there") {
		t.Fatalf("a files list past %d bytes: status %q error %q, %d bytes of files", maxResult, p.Status, p.Error, len(p.Files))
	}
}
