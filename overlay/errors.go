package overlay

import "errors"

// Sentinel errors; match with errors.Is.
var (
	// ErrSelfSend: Send to the agent's own peer ID. The overlay never loops a
	// message back to its own inbox; the caller handles local delivery.
	ErrSelfSend = errors.New("overlay: send to self")
	// ErrTooLarge: the payload does not fit in MaxMessageSize with its frame.
	ErrTooLarge = errors.New("overlay: message too large")
	// ErrNoRoute: no direct or relay topic peer appeared before the deadline.
	ErrNoRoute = errors.New("overlay: no route to peer")
	// ErrClosed: the overlay is not started or already shut down.
	ErrClosed = errors.New("overlay: closed")
)
