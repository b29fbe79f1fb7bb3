package embedredis

import (
	"errors"
	"fmt"
)

// State is the kind of an Event.
type State string

// States of a managed child reported through Options.OnEvent.
const (
	// StateDown: the child died on its own; restarts begin (unless off).
	StateDown State = "down"
	// StateUp: a restarted child answers PING again.
	StateUp State = "up"
	// StateFailed: no restart brought it back; Failed is closed.
	StateFailed State = "failed"
)

// Event is a change of the embedded store's health.
type Event struct {
	State State
	// Err says why for StateDown and StateFailed; nil for StateUp.
	Err error
}

// ErrStopped is Health's answer after Shutdown.
var ErrStopped = errors.New("embedded redis is stopped")

// Healthy reports whether the server answers commands: true from Start
// until the child dies, false until a restarted child answers PING again,
// false for good once it gave up or after Shutdown. The in-process server
// cannot die and is healthy until Shutdown.
func (s *Server) Healthy() bool { return s.Health() == nil }

// Health is nil while the server is healthy, otherwise why not: the child's
// death and that it is restarting, the reason it gave up, or ErrStopped.
func (s *Server) Health() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.health
}

// Failed is closed when the managed child died and could not be brought
// back; Err then says why. The agent should exit non-zero so that its own
// supervisor (systemd) restarts it. Never closed by Shutdown.
func (s *Server) Failed() <-chan struct{} { return s.failed }

// setHealth records what Health answers.
func (s *Server) setHealth(err error) {
	s.mu.Lock()
	s.health = err
	s.mu.Unlock()
}

// emit reports a change to Options.OnEvent.
func (s *Server) emit(e Event) {
	if s.onEvent != nil {
		s.onEvent(e)
	}
}

// restarting is Health while a dead child is being restarted.
func restarting(died error, attempt, of int) error {
	return fmt.Errorf("%w; restarting (attempt %d of %d)", died, attempt, of)
}
