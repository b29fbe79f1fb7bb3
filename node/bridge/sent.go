package bridge

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// sentJobs remembers the jobs Submit sent, until their results land: the
// peer each went to and its message key, so onResult matches a result
// without reading the origin job back. An entry exists before the job is
// written, because Submit publishes while the write is under way; a
// result that overtakes the write waits for it (saved).
//
// Memory is only a shortcut: a job it does not know (sent before a
// restart, from msg_out, or forgotten when full) is looked up in Redis.
type sentJobs struct {
	mu   sync.Mutex
	jobs map[string]*sentJob // "<ctx>/<job key>"; guarded by mu
	msgs map[string]*sentJob // "<ctx>/<message key>"; guarded by mu
}

type sentJob struct {
	jobKey string
	msgKey string
	at     time.Time
	saved  chan struct{} // closed when the write ended
	ok     bool          // the write succeeded; read after saved is closed
	runner string        // guarded by sentJobs.mu (record may move the job)
}

// maxSent bounds the entries; when full, those older than staleSent go,
// and if that frees nothing new jobs are not remembered.
const (
	maxSent   = 10000
	staleSent = 10 * time.Minute
)

func newSentJobs() *sentJobs {
	return &sentJobs{jobs: map[string]*sentJob{}, msgs: map[string]*sentJob{}}
}

func sentKey(ctxID uint64, jobKey string) string {
	return strconv.FormatUint(ctxID, 10) + "/" + jobKey
}

// add remembers a job about to be sent to runner; nil when full.
func (s *sentJobs) add(ctxID uint64, jobKey, msgKey, runner string) *sentJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.jobs) >= maxSent {
		for k, e := range s.jobs {
			if time.Since(e.at) > staleSent {
				delete(s.jobs, k)
				delete(s.msgs, sentKey(ctxID, e.msgKey))
			}
		}
		if len(s.jobs) >= maxSent {
			return nil
		}
	}
	e := &sentJob{jobKey: jobKey, msgKey: msgKey, runner: runner, at: time.Now(), saved: make(chan struct{})}
	s.jobs[sentKey(ctxID, jobKey)] = e
	s.msgs[sentKey(ctxID, msgKey)] = e
	return e
}

// written ends e's write; a failed one is forgotten.
func (s *sentJobs) written(ctxID uint64, e *sentJob, ok bool) {
	if e == nil {
		return
	}
	e.ok = ok
	close(e.saved)
	if !ok {
		s.forget(ctxID, e.jobKey)
	}
}

// lookup returns the runner and message key of a remembered job, once its
// write has ended; found is false when memory cannot answer.
func (s *sentJobs) lookup(ctx context.Context, ctxID uint64, jobKey string) (runner, msgKey string, found bool) {
	s.mu.Lock()
	e := s.jobs[sentKey(ctxID, jobKey)]
	s.mu.Unlock()
	if e == nil {
		return "", "", false
	}
	select {
	case <-e.saved:
	case <-ctx.Done():
		return "", "", false
	}
	if !e.ok {
		return "", "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return e.runner, e.msgKey, true
}

// awaitMessage waits until the write of a remembered job's message key
// ended (an answer that overtook it), and returns at once for others.
func (s *sentJobs) awaitMessage(ctx context.Context, ctxID uint64, msgKey string) {
	s.mu.Lock()
	e := s.msgs[sentKey(ctxID, msgKey)]
	s.mu.Unlock()
	if e != nil {
		select {
		case <-e.saved:
		case <-ctx.Done():
		}
	}
}

// moved records that a remembered job was sent to another runner.
func (s *sentJobs) moved(ctxID uint64, jobKey, runner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.jobs[sentKey(ctxID, jobKey)]; e != nil {
		e.runner = runner
	}
}

// forget drops a job whose result landed (or that ended otherwise).
func (s *sentJobs) forget(ctxID uint64, jobKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.jobs[sentKey(ctxID, jobKey)]; e != nil {
		delete(s.jobs, sentKey(ctxID, jobKey))
		delete(s.msgs, sentKey(ctxID, e.msgKey))
	}
}
