package tracing

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
)

// A traceparent is "00-" trace id (32 hex) "-" span id (16 hex) "-01"
// (version 00, flags sampled).
const (
	traceHex = 32
	spanHex  = 16
	tpLen    = 3 + traceHex + 1 + spanHex + 3
)

// New returns a traceparent with a new random trace id and span id.
func New() string { return compose(newHex(traceHex), newHex(spanHex)) }

// Adopt returns the traceparent of a submission whose caller gave from:
// a traceparent or a bare 32-hex trace id. Its trace id is kept and its
// span id is new (the submit span's, a child of the caller's span). An
// empty from gives New(); a malformed one an error saying what is wanted.
func Adopt(from string) (string, error) {
	from = strings.ToLower(strings.TrimSpace(from))
	switch {
	case from == "":
		return New(), nil
	case validHex(from, traceHex):
		return compose(from, newHex(spanHex)), nil
	}
	if trace, _, ok := Parse(from); ok {
		return compose(trace, newHex(spanHex)), nil
	}
	return "", fmt.Errorf("want a W3C traceparent (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>) or a 32-hex trace id, got %q", from)
}

// Parse splits traceparent tp into its trace id and span id. ok is false
// for anything else, for version ff and for all-zero ids (W3C: invalid).
func Parse(tp string) (trace, span string, ok bool) {
	if len(tp) < tpLen || tp[2] != '-' || tp[35] != '-' || tp[52] != '-' || !validHex(tp[:2], 2) ||
		tp[:2] == "ff" || !validHex(tp[53:55], 2) || (tp[:2] == "00" && len(tp) != tpLen) {
		return "", "", false
	}
	trace, span = tp[3:35], tp[36:52]
	if !validHex(trace, traceHex) || !validHex(span, spanHex) {
		return "", "", false
	}
	return trace, span, true
}

// TraceID is the 32-hex trace id of traceparent tp, "" when tp is none.
func TraceID(tp string) string {
	trace, _, _ := Parse(tp)
	return trace
}

func compose(trace, span string) string { return "00-" + trace + "-" + span + "-01" }

// newHex is n hex digits, not all zero. math/rand/v2's global source is
// seeded randomly and safe for concurrent use; trace ids need to be
// unlikely to collide, not unguessable.
func newHex(n int) string {
	b := make([]byte, n/2)
	for {
		for i := 0; i < len(b); i += 8 {
			v := rand.Uint64()
			for k := 0; k < 8 && i+k < len(b); k++ {
				b[i+k] = byte(v >> (8 * k))
			}
		}
		for _, c := range b {
			if c != 0 {
				return hex.EncodeToString(b)
			}
		}
	}
}

// validHex reports whether s is n lowercase hex digits, not all zero
// (all-zero ids are invalid; for the 2-digit fields zero is fine).
func validHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	zero := true
	for i := 0; i < n; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
		default:
			return false
		}
		zero = zero && c == '0'
	}
	return !zero || n == 2
}
