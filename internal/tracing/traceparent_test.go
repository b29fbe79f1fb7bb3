package tracing

import (
	"strings"
	"testing"
)

func TestNewIsAValidTraceparent(t *testing.T) {
	a, b := New(), New()
	for _, tp := range []string{a, b} {
		if _, _, ok := Parse(tp); !ok || len(tp) != 55 || !strings.HasPrefix(tp, "00-") || !strings.HasSuffix(tp, "-01") {
			t.Fatalf("New() = %q: not a W3C traceparent", tp)
		}
	}
	if TraceID(a) == TraceID(b) {
		t.Fatalf("two New() share trace id %s", TraceID(a))
	}
}

// A caller's traceparent or bare trace id keeps its trace id, under a span
// id of the submission's own; anything else is refused saying what is
// wanted.
func TestAdoptKeepsTheCallersTraceID(t *testing.T) {
	const caller = "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"
	for _, from := range []string{caller, "0af7651916cd43dd8448eb211c80319c"} {
		tp, err := Adopt(from)
		if err != nil {
			t.Fatalf("Adopt(%q): %v", from, err)
		}
		trace, span, ok := Parse(tp)
		if !ok || trace != "0af7651916cd43dd8448eb211c80319c" || span == "b7ad6b7169203331" {
			t.Fatalf("Adopt(%q) = %q: want the caller's trace id with a new span id", from, tp)
		}
	}
	for _, bad := range []string{"nope", "00-00000000000000000000000000000000-b7ad6b7169203331-01",
		"ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
		"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra"} {
		if _, err := Adopt(bad); err == nil || !strings.Contains(err.Error(), "traceparent") {
			t.Errorf("Adopt(%q): err %v, want a refusal naming the traceparent format", bad, err)
		}
	}
	if tp, err := Adopt(""); err != nil || TraceID(tp) == "" {
		t.Fatalf("Adopt(\"\") = %q, %v: want a new traceparent", tp, err)
	}
}

// A later version may add fields after the flags (W3C); version 00 may not.
func TestParseLaterVersion(t *testing.T) {
	if _, _, ok := Parse("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-more"); !ok {
		t.Fatal("a version 01 traceparent with more fields is refused")
	}
}

func TestEndpointURL(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:4318":                    "http://127.0.0.1:4318/v1/traces",
		"http://collector:4318":             "http://collector:4318/v1/traces",
		"https://c.example/":                "https://c.example/v1/traces",
		"http://collector:4318/custom/path": "http://collector:4318/custom/path",
	} {
		if got, err := endpointURL(in); err != nil || got != want {
			t.Errorf("endpointURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := endpointURL("ftp://x"); err == nil {
		t.Error("an ftp endpoint is accepted")
	}
}

func TestEndpointFromConfigThenEnv(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4318")
	if got := Endpoint("http://cfg:4318"); got != "http://cfg:4318" {
		t.Errorf("configured endpoint: %q", got)
	}
	if got := Endpoint(""); got != "http://env:4318" {
		t.Errorf("from OTEL_EXPORTER_OTLP_ENDPOINT: %q", got)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	if got := Endpoint(""); got != "" {
		t.Errorf("nothing set: %q, want off", got)
	}
}
