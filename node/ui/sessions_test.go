package ui

import (
	"testing"
	"time"
)

func TestLoginTokenWorksOnceAndNotAfterItExpires(t *testing.T) {
	s := newSessions()
	now := time.Unix(1_000_000, 0)
	s.now = func() time.Time { return now }
	tok, exp := s.LoginToken()
	if !exp.Equal(now.Add(LoginTTL)) {
		t.Fatalf("expires %v, want %v", exp, now.Add(LoginTTL))
	}
	id, csrf, ok := s.exchange(tok)
	if !ok || id == "" || csrf == "" || id == csrf {
		t.Fatalf("first exchange: %q %q %v", id, csrf, ok)
	}
	if s.lookup(id) == nil || !s.lookup(id).csrfOK(csrf) || s.lookup(id).csrfOK("") {
		t.Fatal("the new session is not found, or its CSRF check is wrong")
	}
	if _, _, ok := s.exchange(tok); ok {
		t.Fatal("a used login token was taken again")
	}
	late, _ := s.LoginToken()
	now = now.Add(LoginTTL)
	if _, _, ok := s.exchange(late); ok {
		t.Fatal("an expired login token was taken")
	}
	now = now.Add(SessionTTL)
	if s.lookup(id) != nil {
		t.Fatal("an expired session still counts")
	}
}

func TestSessionsAreBounded(t *testing.T) {
	s := newSessions()
	var first string
	for i := range maxSessions + 5 {
		tok, _ := s.LoginToken()
		id, _, ok := s.exchange(tok)
		if !ok {
			t.Fatal("exchange refused")
		}
		if i == 0 {
			first = id
		}
	}
	for range maxLogins + 5 {
		s.LoginToken()
	}
	if len(s.sessions) > maxSessions || len(s.logins) > maxLogins {
		t.Fatalf("%d sessions, %d login tokens kept; bounds %d, %d", len(s.sessions), len(s.logins), maxSessions, maxLogins)
	}
	if s.lookup(first) != nil {
		t.Fatal("the oldest session was not the one dropped")
	}
}
