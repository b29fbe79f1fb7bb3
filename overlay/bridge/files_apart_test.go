package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// memLists stands in for the content stores of both sides: a list
// published by one is fetched by the other, after fail failures.
type memLists struct {
	mu      sync.Mutex
	blobs   map[string]string // guarded by mu
	fail    int               // fetches that fail before one succeeds; guarded by mu
	refuse  bool              // every fetch is refused; guarded by mu
	fetches int               // guarded by mu
}

func (m *memLists) PublishList(_ context.Context, ctxID uint64, key, list string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.blobs == nil {
		m.blobs = map[string]string{}
	}
	desc := fmt.Sprintf(`{"list":"%d/%s"}`, ctxID, key)
	m.blobs[desc] = list
	return desc, nil
}

func (m *memLists) FetchList(_ context.Context, _ peer.ID, _, desc string, _ uint64, _ string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fetches++
	switch {
	case m.refuse:
		return "", fmt.Errorf("%w: the holder says no", ErrListRefused)
	case m.fail > 0:
		m.fail--
		return "", errors.New("stream reset")
	}
	v, ok := m.blobs[desc]
	if !ok {
		return "", fmt.Errorf("%w: no list %s", ErrListRefused, desc)
	}
	return v, nil
}

func (m *memLists) FetchInputsList(ctx context.Context, p peer.ID, ref, desc string) (string, error) {
	return m.FetchList(ctx, p, ref, desc, 0, "")
}

// longList is a files list past what one result carries.
func longList() string {
	return "[" + strings.Repeat(`{"path":"x"},`, maxResult/10) + `{}]`
}

// finishWithFiles ends received job key as its runner would, with files
// list list.
func (s *side) finishWithFiles(t *testing.T, ctxID uint64, key, list string) {
	t.Helper()
	err := s.st.Jobs.CompleteJob(context.Background(), ctxID, key, 0, model.JobFinished,
		model.Hash{"result": "{}", model.ExtraFiles: list})
	if err != nil {
		t.Fatalf("finish %s: %v", key, err)
	}
}

// runApart sends a job from a to b, ends it on b with a files list past one
// message, and returns the origin's job once it has ended.
func runApart(t *testing.T, lists *memLists) *model.RunnerJob {
	t.Helper()
	n := newFakeNet()
	tweak := func(c *Config) { c.FilesLists, c.TimeoutAck = lists, 200*time.Millisecond }
	a, b := newSide(t, n, tweak), newSide(t, n, tweak)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	j := a.submit(t, 1, 2, b.name(), "make", 0)
	remote := b.onlyJob(t, 2)
	b.finishWithFiles(t, 2, jobKey(remote), longList())
	return a.waitEnded(t, 1, jobKey(j))
}

// A files list too long for one message goes apart and the origin's job
// ends with all of it, as if it had come in the result.
func TestLongFilesListComesHomeApart(t *testing.T) {
	t.Parallel()
	got := runApart(t, &memLists{})
	if got.Status != model.JobFinished || got.FilesJSON() != longList() {
		t.Fatalf("origin job %s (%q), %d bytes of files list, want finished with %d", got.Status, got.Error,
			len(got.FilesJSON()), len(longList()))
	}
	if got.Extra[model.ExtraFilesRef] == "" {
		t.Fatal("no files_ref on the origin's job: its files could not be asked for")
	}
}

// A fetch cut twice is tried again when the runner resends the result.
func TestLongFilesListFetchTriedAgain(t *testing.T) {
	t.Parallel()
	lists := &memLists{fail: maxListTries - 1}
	got := runApart(t, lists)
	if got.Status != model.JobFinished || got.FilesJSON() != longList() {
		t.Fatalf("origin job %s (%q) after %d failed fetches, want finished with its list", got.Status, got.Error, maxListTries-1)
	}
	lists.mu.Lock()
	defer lists.mu.Unlock()
	if lists.fetches != maxListTries {
		t.Fatalf("%d fetches, want %d", lists.fetches, maxListTries)
	}
}

// A list its holder refuses ends the origin's job with the reason, not
// waiting for ever.
func TestLongFilesListRefusedEndsTheJob(t *testing.T) {
	t.Parallel()
	got := runApart(t, &memLists{refuse: true})
	if got.Status != model.JobError || !strings.Contains(got.Error, "the holder says no") || got.FilesJSON() != "" {
		t.Fatalf("origin job %s (%q), %d bytes of files list, want error with the holder's reason", got.Status,
			got.Error, len(got.FilesJSON()))
	}
}

// runInputsApart sends a job whose inputs list is past one message from a
// to b, and returns the origin's job and b's copy (nil when none was made)
// once the origin's job has ended: b ends its copy at once, as a runner would.
func runInputsApart(t *testing.T, lists *memLists) (origin, remote *model.RunnerJob) {
	t.Helper()
	a, b, j := submitLongInputs(t, lists)
	done := make(chan *model.RunnerJob, 1)
	go func() {
		for i := 0; i < 200; i++ {
			if js := b.jobs(t, 2); len(js) == 1 {
				b.finish(t, 2, jobKey(js[0]), nil)
				done <- js[0]
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		done <- nil
	}()
	origin = a.waitEnded(t, 1, jobKey(j))
	return origin, <-done
}

// A job whose inputs list is too long for one message reaches its runner
// with the whole list (fetched apart from the origin) and runs there.
func TestLongInputsListReachesTheRunner(t *testing.T) {
	t.Parallel()
	origin, remote := runInputsApart(t, &memLists{fail: 1})
	if remote == nil || remote.InputsJSON() != longList() {
		n := 0
		if remote != nil {
			n = len(remote.InputsJSON())
		}
		t.Fatalf("the runner's job has %d bytes of inputs list, want %d", n, len(longList()))
	}
	if origin.Status != model.JobFinished {
		t.Fatalf("origin job %s (%q), want finished", origin.Status, origin.Error)
	}
}

// An inputs list the origin will not give ends the origin's job with the
// reason, and the runner makes no job.
func TestLongInputsListRefusedEndsTheJob(t *testing.T) {
	t.Parallel()
	origin, remote := runInputsApart(t, &memLists{refuse: true})
	if origin.Status != model.JobError || !strings.Contains(origin.Error, "inputs list") ||
		!strings.Contains(origin.Error, "the holder says no") {
		t.Fatalf("origin job %s (%q), want error with the reason", origin.Status, origin.Error)
	}
	if remote != nil {
		t.Fatalf("the runner made job %s of a job whose inputs it could not have", jobKey(remote))
	}
}

// Where the inputs list cannot go apart (no content store here), a job
// message too large to send ends its job at once with the reason.
func TestLongInputsListWithoutAStoreEndsTheJob(t *testing.T) {
	t.Parallel()
	a, _, j := submitLongInputs(t, nil)
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobError || !strings.Contains(got.Error, "fewer input files") {
		t.Fatalf("origin job %s (%q), want error saying to give it fewer input files", got.Status, got.Error)
	}
}

// submitLongInputs submits from a to b a job whose inputs list is past
// one message; lists nil: neither side has a content store.
func submitLongInputs(t *testing.T, lists *memLists) (a, b *side, j *model.RunnerJob) {
	t.Helper()
	n := newFakeNet()
	tweak := func(c *Config) { c.TimeoutAck = 200 * time.Millisecond }
	if lists != nil {
		tweak = func(c *Config) { c.FilesLists, c.TimeoutAck = lists, 200*time.Millisecond }
	}
	a, b = newSide(t, n, tweak), newSide(t, n, tweak)
	a.context(t, 1)
	b.grant(t, 2, a.name(), model.RoleExecutor)
	j = &model.RunnerJob{CallerID: 1, Script: "consume", ScriptType: "sh", Status: model.JobDispatched, Attempt: 1,
		Runner: b.name(), Extra: model.Hash{model.ExtraInputs: longList()}}
	if _, err := a.b.Submit(context.Background(), 1, 2, b.name(), j, 0, false); err != nil {
		t.Fatal(err)
	}
	return a, b, j
}
