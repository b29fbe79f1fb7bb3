package model

import (
	"strings"
	"unicode/utf8"
)

// PlainText is s without what a terminal or a page would act on rather
// than show: C0 control bytes (ESC, BEL, CR, LF, TAB, NUL, …), DEL, C1
// controls (U+0080–U+009F, CSI among them), the Unicode bidi overrides,
// embeddings, isolates and marks (which reorder what follows them), and
// bytes that are not UTF-8. Strings another agent announces (presence:
// host name, version, roles, types) pass through it before they are kept,
// so `hyphae peers` prints them as text.
func PlainText(s string) string {
	var b *strings.Builder // nil until something is dropped
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		drop := (r == utf8.RuneError && n == 1) || unprintable(r)
		if drop && b == nil {
			b = &strings.Builder{}
			b.Grow(len(s))
			b.WriteString(s[:i])
		}
		if !drop && b != nil {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	if b == nil {
		return s
	}
	return b.String()
}

// PlainTexts is PlainText of each of list, in place (list returned).
func PlainTexts(list []string) []string {
	for i, s := range list {
		list[i] = PlainText(s)
	}
	return list
}

// unprintable: C0, DEL, C1, and the bidi formatting characters.
func unprintable(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, // ALM, LRM, RLM
		r >= 0x202a && r <= 0x202e, // LRE, RLE, PDF, LRO, RLO
		r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
		return true
	}
	return false
}
