package ui

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"sync"
	"time"
)

// How long a login token and a session last, and how many of each the
// agent keeps: the oldest go first when more are made, so a script that
// asks for tokens in a loop cannot grow the agent's memory.
const (
	LoginTTL    = 2 * time.Minute
	SessionTTL  = 12 * time.Hour
	maxLogins   = 64
	maxSessions = 64
)

// session is one logged-in browser.
type session struct {
	csrf    string // sent back in X-Hyphae-CSRF with every POST
	expires time.Time
}

// sessions holds the login tokens and the sessions in memory (an agent
// restart logs the browsers out), by the SHA-256 of the secret, so a
// heap dump does not hand the cookies out.
type sessions struct {
	mu       sync.Mutex
	logins   map[string]time.Time // guarded by mu
	sessions map[string]*session  // guarded by mu
	now      func() time.Time
}

func newSessions() *sessions {
	return &sessions{logins: map[string]time.Time{}, sessions: map[string]*session{}, now: time.Now}
}

// LoginToken mints a one-time token that LoginTTL later is refused
// (control.LoginTokens).
func (s *sessions) LoginToken() (string, time.Time) {
	tok := secret()
	s.mu.Lock()
	defer s.mu.Unlock()
	exp := s.now().Add(LoginTTL)
	s.sweep()
	evictOldest(s.logins, maxLogins-1, func(t time.Time) time.Time { return t })
	s.logins[digest(tok)] = exp
	return tok, exp
}

// exchange trades a login token, once and before it expires, for a new
// session: its cookie value and CSRF value.
func (s *sessions) exchange(tok string) (id, csrf string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := digest(tok)
	exp, found := s.logins[k]
	delete(s.logins, k) // used, or expired: never again
	if !found || !s.now().Before(exp) {
		return "", "", false
	}
	s.sweep()
	evictOldest(s.sessions, maxSessions-1, func(x *session) time.Time { return x.expires })
	id, csrf = secret(), secret()
	s.sessions[digest(id)] = &session{csrf: csrf, expires: s.now().Add(SessionTTL)}
	return id, csrf, true
}

// lookup returns the live session with cookie value id, or nil.
func (s *sessions) lookup(id string) *session {
	if id == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.sessions[digest(id)]
	if x == nil || !s.now().Before(x.expires) {
		return nil
	}
	return x
}

func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, digest(id))
}

// sweep drops what expired; the caller holds mu.
func (s *sessions) sweep() {
	now := s.now()
	for k, exp := range s.logins {
		if !now.Before(exp) {
			delete(s.logins, k)
		}
	}
	for k, x := range s.sessions {
		if !now.Before(x.expires) {
			delete(s.sessions, k)
		}
	}
}

// evictOldest removes the entries that expire first until m has at most
// keep.
func evictOldest[V any](m map[string]V, keep int, exp func(V) time.Time) {
	for len(m) > keep {
		var oldest string
		for k, v := range m {
			if oldest == "" || exp(v).Before(exp(m[oldest])) {
				oldest = k
			}
		}
		delete(m, oldest)
	}
}

// csrfOK compares a CSRF header with the session's in constant time.
func (x *session) csrfOK(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(x.csrf)) == 1
}

func secret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

func digest(s string) string {
	d := sha256.Sum256([]byte(s))
	return string(d[:])
}
