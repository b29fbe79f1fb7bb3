package envelope

import "errors"

// Sentinel errors. Every error from Unmarshal, Verifier.Check and
// Verifier.Open wraps exactly one of these; Reason names it.
var (
	ErrMalformed      = errors.New("malformed envelope")
	ErrOversized      = errors.New("envelope too large")
	ErrBadVersion     = errors.New("unsupported envelope version")
	ErrUnknownType    = errors.New("unknown message type")
	ErrBadSignature   = errors.New("bad envelope signature")
	ErrAuthorMismatch = errors.New("sender is not the pubsub author")
	ErrSkew           = errors.New("timestamp outside the clock-skew window")
	ErrNotForMe       = errors.New("envelope addressed to another peer")
	ErrDecrypt        = errors.New("payload decryption failed")
)

// reasons pairs each sentinel with its metrics label.
var reasons = []struct {
	err    error
	reason string
}{
	{ErrMalformed, "malformed"},
	{ErrOversized, "oversized"},
	{ErrBadVersion, "bad_version"},
	{ErrUnknownType, "unknown_type"},
	{ErrBadSignature, "bad_signature"},
	{ErrAuthorMismatch, "author_mismatch"},
	{ErrSkew, "skew"},
	{ErrNotForMe, "not_for_me"},
	{ErrDecrypt, "decrypt"},
}

// Reason returns a short, stable label for err, for metrics counters: one of
// "malformed", "oversized", "bad_version", "unknown_type", "bad_signature",
// "author_mismatch", "skew", "not_for_me", "decrypt"; "" for nil and
// "internal" for any other error.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return r.reason
		}
	}
	return "internal"
}
