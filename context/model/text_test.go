package model

import "testing"

// PlainText drops control bytes, C1 controls, bidi overrides and broken
// UTF-8, and keeps the rest (other scripts included) as it was.
func TestPlainText(t *testing.T) {
	for in, want := range map[string]string{
		"build-box":                 "build-box",
		"evil\x1b[2Jname":           "evil[2Jname",
		"a\x00b\x07c\td\ne\rf\x7fg": "abcdefg",
		"csi\u009b31mred":           "csi31mred",
		"txt.exe\u202egpj":          "txt.exegpj",
		"iso\u2066late\u2069":       "isolate",
		"bad\xffutf8\xc3":           "badutf8",
		"hôte-日本":                   "hôte-日本",
		"":                          "",
	} {
		if got := PlainText(in); got != want {
			t.Errorf("PlainText(%q) = %q, want %q", in, got, want)
		}
	}
	if l := PlainTexts([]string{"sh\x1b]0;x\x07", "py"}); l[0] != "sh]0;x" || l[1] != "py" {
		t.Errorf("PlainTexts = %q", l)
	}
}
