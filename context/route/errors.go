package route

import (
	"errors"
	"fmt"
)

// ErrNoRunner is why a job whose runner was left to the agent cannot go
// anywhere: no runner registered in its context runs its script type, and
// this agent does not either. Errors that wrap it say how to register one.
var ErrNoRunner = errors.New("no runner for the job")

// ErrNoContext and ErrNoRecord, wrapped by a Records.Runner error, say that
// the context, or its runner:<id> record, does not exist here.
var (
	ErrNoContext = errors.New("no such context")
	ErrNoRecord  = errors.New("no such runner record")
)

// errNoPeer is an empty peer ID, when Options.PeerID does not check them.
var errNoPeer = errors.New("no peer ID")

// noRunnerError is ErrNoRunner for one context and script type.
type noRunnerError struct {
	ctxID uint64
	typ   string
}

func (e *noRunnerError) Error() string {
	return fmt.Sprintf("no runner registered in context %d runs script type %q, and this agent does not: "+
		"register the agent that should run it (hyphae runner create %d --peer <peer ID> --type %s) "+
		"or name it (--to <peer ID>)", e.ctxID, e.typ, e.ctxID, e.typ)
}

func (e *noRunnerError) Is(target error) bool { return target == ErrNoRunner }

// TargetError is a target that names nobody valid, under OnBad Fail; Msg
// says why, for the caller's "to" field.
type TargetError struct{ Msg string }

func (e *TargetError) Error() string { return e.Msg }

// faultKind is what is wrong with a target.
type faultKind int

const (
	badForm   faultKind = iota // runner:<id> without a positive number
	badPeer                    // not a peer ID
	badLookup                  // its record could not be read
	badPubkey                  // its record's pubkey is no peer ID
)

// fault is a target that names nobody valid.
type fault struct {
	kind   faultKind
	to     string
	id     uint64 // badLookup, badPubkey: the record's id
	err    error  // badPeer, badLookup: why
	pubkey string // badPubkey
}

// bad is what fault f does under Options.OnBad.
func (r *resolver) bad(f fault) (Outcome, error) {
	switch r.o.OnBad {
	case Defer:
		return Outcome{Kind: Open}, nil
	case Wait:
		return Outcome{Kind: Waits, Why: f.waitReason()}, nil
	}
	return Outcome{}, f.failure(r.q.Context)
}

// waitReason is f in the words of the bridge, which waits on it.
func (f fault) waitReason() string {
	switch f.kind {
	case badLookup:
		return fmt.Sprintf("runner:%d: %v", f.id, f.err)
	case badPubkey:
		return fmt.Sprintf("runner:%d has no valid pubkey", f.id)
	}
	return fmt.Sprintf("runner %q is neither a peer ID nor runner:<id>", f.to)
}

// failure is f in the words of job.run, which refuses it; a lookup that
// failed for another reason than a missing record is that error.
func (f fault) failure(ctxID uint64) error {
	var msg string
	switch {
	case f.kind == badForm:
		msg = fmt.Sprintf("%q: want runner:<id>, the id a positive number", f.to)
	case f.kind == badPeer:
		msg = fmt.Sprintf("%q is neither self, any nor a peer ID: %v", f.to, f.err)
	case f.kind == badPubkey:
		msg = fmt.Sprintf("%s names %q, which is not a peer ID", f.to, f.pubkey)
	case errors.Is(f.err, ErrNoContext):
		msg = fmt.Sprintf("%s names a runner record of context %d here, and this agent has no context %d", f.to, ctxID, ctxID)
	case errors.Is(f.err, ErrNoRecord):
		msg = fmt.Sprintf("context %d has no %s (hyphae runner list %d)", ctxID, f.to, ctxID)
	default:
		return f.err
	}
	return &TargetError{Msg: msg}
}
