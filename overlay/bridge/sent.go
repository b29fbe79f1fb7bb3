package bridge

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// sentJobs remembers two things about messages this agent launched.
//
// Writes under way: launch publishes a message while its record (message
// hash, outbox entry, the job for a submitted one) is being written, so an
// answer can overtake the write; answered waits for it (awaitMessage).
//
// Jobs whose message launch sent, until their results land: the peer
// each went to and its message key, so onResult matches a result without
// reading the origin job back. Memory is only a shortcut: a job it does not
// know (sent before a restart, or not remembered when full) is looked up in
// Redis.
type sentJobs struct {
	mu     sync.Mutex
	jobs   map[string]*sentJob // "<ctx>/<job key>"; guarded by mu
	msgs   map[string]*sentJob // "<ctx>/<message key>", while written or for a job entry; guarded by mu
	pruned time.Time           // last scan for stale entries; guarded by mu
}

type sentJob struct {
	ctxID  uint64
	jobKey string // "" for a message with no job entry
	msgKey string
	at     time.Time
	saved  chan struct{} // closed when the write ended
	ok     bool          // the write succeeded; read after saved is closed
	dst    string        // the peer the job went to; guarded by sentJobs.mu (plan may move the job)
}

// maxSent bounds the entries; when full, those older than staleSent go
// (looked for at most once a second), and while that frees nothing new
// entries are not made (callers cope: the write then happens before the
// send).
const (
	maxSent   = 10000
	staleSent = 10 * time.Minute
)

func newSentJobs() *sentJobs {
	return &sentJobs{jobs: map[string]*sentJob{}, msgs: map[string]*sentJob{}}
}

func sentKey(ctxID uint64, key string) string {
	return strconv.FormatUint(ctxID, 10) + "/" + key
}

// add remembers job jobKey, about to be sent to peer dst with message
// msgKey, and that the write of both is under way; nil when full.
func (s *sentJobs) add(ctxID uint64, jobKey, msgKey, dst string) *sentJob {
	return s.put(&sentJob{ctxID: ctxID, jobKey: jobKey, msgKey: msgKey, dst: dst})
}

// writing notes that message msgKey is being written while it is sent;
// nil when full.
func (s *sentJobs) writing(ctxID uint64, msgKey string) *sentJob {
	return s.put(&sentJob{ctxID: ctxID, msgKey: msgKey})
}

func (s *sentJobs) put(e *sentJob) *sentJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.msgs) >= maxSent && time.Since(s.pruned) > time.Second { // at most one scan a second
		s.pruned = time.Now()
		for _, old := range s.msgs {
			if time.Since(old.at) > staleSent {
				s.drop(old)
			}
		}
	}
	if len(s.msgs) >= maxSent {
		return nil
	}
	e.at, e.saved = time.Now(), make(chan struct{})
	if e.jobKey != "" {
		s.jobs[sentKey(e.ctxID, e.jobKey)] = e
	}
	s.msgs[sentKey(e.ctxID, e.msgKey)] = e
	return e
}

// drop removes e from both indexes; s.mu is held.
func (s *sentJobs) drop(e *sentJob) {
	if e.jobKey != "" && s.jobs[sentKey(e.ctxID, e.jobKey)] == e {
		delete(s.jobs, sentKey(e.ctxID, e.jobKey))
	}
	if s.msgs[sentKey(e.ctxID, e.msgKey)] == e {
		delete(s.msgs, sentKey(e.ctxID, e.msgKey))
	}
}

// written ends e's write. A failed one is forgotten, and so is a message
// with no job entry, which was only remembered while written.
func (s *sentJobs) written(e *sentJob, ok bool) {
	if e == nil {
		return
	}
	e.ok = ok
	close(e.saved)
	if !ok || e.jobKey == "" {
		s.mu.Lock()
		s.drop(e)
		s.mu.Unlock()
	}
}

// lookup returns the peer a remembered job went to and its message key,
// once its write has ended; found is false when memory cannot answer.
func (s *sentJobs) lookup(ctx context.Context, ctxID uint64, jobKey string) (dst, msgKey string, found bool) {
	s.mu.Lock()
	e := s.jobs[sentKey(ctxID, jobKey)]
	s.mu.Unlock()
	if e == nil || !wait(ctx, e) {
		return "", "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return e.dst, e.msgKey, true
}

// awaitMessage waits until the write of message msgKey ended, if one is
// under way (an answer that overtook it), and returns at once otherwise.
func (s *sentJobs) awaitMessage(ctx context.Context, ctxID uint64, msgKey string) {
	s.mu.Lock()
	e := s.msgs[sentKey(ctxID, msgKey)]
	s.mu.Unlock()
	if e != nil {
		wait(ctx, e)
	}
}

// wait reports whether e's write ended well.
func wait(ctx context.Context, e *sentJob) bool {
	select {
	case <-e.saved:
		return e.ok
	case <-ctx.Done():
		return false
	}
}

// moved records the peer a remembered job is being sent to now.
func (s *sentJobs) moved(ctxID uint64, jobKey, dst string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.jobs[sentKey(ctxID, jobKey)]; e != nil {
		e.dst = dst
	}
}

// forget drops a job whose result landed (or that ended otherwise).
func (s *sentJobs) forget(ctxID uint64, jobKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.jobs[sentKey(ctxID, jobKey)]; e != nil {
		s.drop(e)
	}
}
