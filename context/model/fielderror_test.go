package model_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// requireFieldError asserts err is a *model.FieldError for key and field
// whose message names both.
func requireFieldError(t *testing.T, err error, key, field string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s %s: no error for garbage", key, field)
		return
	}
	var fe *model.FieldError
	if !errors.As(err, &fe) {
		t.Errorf("%s %s: error %T %v is not a *model.FieldError", key, field, err, err)
		return
	}
	if fe.Key != key || fe.Field != field {
		t.Errorf("FieldError names %q/%q, want %q/%q (%v)", fe.Key, fe.Field, key, field, err)
	}
	if !errors.Is(err, model.ErrBadField) {
		t.Errorf("%v does not match model.ErrBadField", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, key) || !strings.Contains(msg, `"`+field+`"`) {
		t.Errorf("message %q does not name key %q and field %q", msg, key, field)
	}
}

// garbage lists, per field kind, values that must be refused.
var (
	badUint  = []string{"x", "-1", "1.5", "0x10", " 1", "18446744073709551616", "1e3", "+1", "١"}
	badInt   = []string{"x", "1.5", "9223372036854775808", "--1", "1 ", "NaN", "0x1"}
	badIDs   = []string{"x", "[", `{"a":1}`, `[-1]`, `["x"]`, `[1.5]`, `"1"`, `[null]`}
	badNames = []string{"x", "[", `{"a":1}`, `[-1]`, `[1.5]`, `"1"`, `[null]`} // badIDs but ["x"]: names
	badMap   = []string{"x", "[", `[1,2]`, `"s"`, `1`, `{"a":}`, `{'a':'b'}`}
	badList  = []string{"x", "[", `{"a":"b"}`, `[1]`, `"s"`, `[["a"]]`, `[null, 1]`}
	badBool  = []string{"yes", "no", "TRUE", "True", "2", "t", "on"}
	badJobs  = []string{"x", `{}`, `[1]`, `["job:1:1"]`, `[{"id":"x"}]`, `[{"status":"nope"}]`, `[{"timeout":-1}]`}
	badEnum  = []string{"nope", "FINISHED", "Finished ", "done"}
	badNonNe = []string{"-1", "-9223372036854775808"}
	badCores = []string{"x", "-0.5", "NaN", "Inf", "-Inf", "1e400", "0.5 ", "½", "1,5", "50%"}
)

type fieldCase struct {
	field string
	bad   []string
}

var garbageCases = map[string][]fieldCase{
	"Actor": {
		{"id", badUint}, {"address", badList}, {"created_at", badInt}, {"updated_at", badInt},
	},
	"Context": {
		{"id", badUint}, {"admins", badIDs}, {"readers", badIDs}, {"executors", badIDs},
		{"created_at", badInt}, {"updated_at", badInt},
	},
	"Flow": {
		{"id", badUint}, {"caller_id", badUint}, {"context_id", badUint}, {"jobs", badIDs},
		{"env_vars", badMap}, {"result", badMap}, {"status", append(badEnum, "waiting_for_prerequisites")},
		{"created_at", badInt}, {"updated_at", badInt},
	},
	"Runner": {
		{"id", badUint}, {"local", badBool}, {"script_types", badList},
		{"created_at", badInt}, {"updated_at", badInt},
	},
	"RunnerJob": {
		{"id", badUint}, {"caller_id", badUint}, {"context_id", badUint}, {"flow_id", badUint},
		{"timeout", append(badInt, badNonNe...)}, {"retries", append(badInt, badNonNe...)},
		{"memory_mb", append(badInt, badNonNe...)}, {"cpu", badCores},
		{"env_vars", badMap}, {"result", badMap}, {"prerequisites", badNames}, {"dependends", badIDs},
		{"status", append(badEnum, "acknowledged")}, {"attempt", badInt},
		{"created_at", badInt}, {"updated_at", badInt},
	},
	"Message": {
		{"id", badUint}, {"caller_id", badUint}, {"context_id", badUint},
		{"message_type", badEnum}, {"timeout", badInt}, {"timeout_ack", badInt}, {"timeout_result", badInt},
		{"logs", badList}, {"status", append(badEnum, "finished")},
		{"created_at", badInt}, {"updated_at", badInt},
	},
	"Peer": {
		{"addrs", badList}, {"roles", badList}, {"script_types", badList},
		{"capacity", badInt}, {"load", badInt}, {"uptime", badInt}, {"last_seen", badInt},
	},
}

func TestGarbageFieldsGiveFieldError(t *testing.T) {
	for _, c := range codecs {
		cases, ok := garbageCases[c.name]
		if !ok {
			t.Fatalf("no garbage cases for %s", c.name)
		}
		t.Run(c.name, func(t *testing.T) {
			for _, fc := range cases {
				for _, bad := range fc.bad {
					h := c.enc(c.full())
					if _, ok := h[fc.field]; !ok {
						t.Fatalf("%s has no field %q", c.name, fc.field)
					}
					h[fc.field] = bad
					func() {
						defer func() {
							if p := recover(); p != nil {
								t.Errorf("%s=%q panicked: %v", fc.field, bad, p)
							}
						}()
						_, err := c.dec(c.key, h)
						requireFieldError(t, err, c.key, fc.field)
					}()
				}
			}
		})
	}
}

func TestGarbageEmbeddedJob(t *testing.T) {
	for _, bad := range badJobs {
		h := fullMessage().ToHash()
		h["job"] = bad
		_, err := model.MessageFromHash("message:7:11", h)
		var fe *model.FieldError
		if !errors.As(err, &fe) {
			t.Errorf("job=%s: want *FieldError, got %v", bad, err)
			continue
		}
		if !strings.HasPrefix(fe.Key, "message:7:11") || !strings.Contains(err.Error(), "message:7:11") {
			t.Errorf("job=%s: error %q does not name the message key", bad, err)
		}
	}
	// A bad field inside an embedded job names that inner field.
	h := model.Hash{"job": `[{"id":"1"},{"id":"2","retries":"many"}]`}
	_, err := model.MessageFromHash("message:1:1", h)
	requireFieldError(t, err, "message:1:1 job", "retries")
}

func TestFieldErrorMessage(t *testing.T) {
	// Long and multi-byte values are shortened without breaking the message.
	val := strings.Repeat("é", 100)
	_, err := model.JobFromHash("job:1:2", model.Hash{"timeout": val})
	requireFieldError(t, err, "job:1:2", "timeout")
	if len(err.Error()) > 300 {
		t.Errorf("message not shortened: %d bytes", len(err.Error()))
	}
	var fe *model.FieldError
	errors.As(err, &fe)
	if fe.Value != val {
		t.Error("FieldError.Value should hold the full offending value")
	}
	// The first bad field is reported; decoding continues without panicking.
	_, err = model.JobFromHash("job:1:2", model.Hash{"id": "x", "timeout": "y"})
	requireFieldError(t, err, "job:1:2", "id")
}

func TestDecodeNeverPanicsOnOddHashes(t *testing.T) {
	odd := []model.Hash{
		nil,
		{},
		{"": ""},
		{"id": ""},
		{"\x00": "\xff\xfe"},
		{"env_vars": "{}", "result": `{"a":null,"b":{"c":[1,{"d":2}]},"e":true}`},
		{"job": "null"},
		{"job": "[]"},
		{"job": "[null]"},
		{"job": `[{"":""}]`},
		{"script": "\xff"},
	}
	for _, h := range odd {
		for _, c := range codecs {
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s %v panicked: %v", c.name, h, p)
					}
				}()
				v, err := c.dec(c.key, maps.Clone(h))
				if err == nil {
					c.enc(v)
				}
			}()
		}
	}
	// Nested JSON values in a map field are kept as their JSON text.
	j, err := model.JobFromHash("job:1:1", model.Hash{"result": `{"a":null,"b":{"c":[1]},"e":true}`})
	if err != nil {
		t.Fatal(err)
	}
	if j.Result["a"] != "" || j.Result["b"] != `{"c":[1]}` || j.Result["e"] != "true" {
		t.Fatalf("result = %v", j.Result)
	}
	// null is an empty string whether or not the other values are strings.
	j, err = model.JobFromHash("job:1:1", model.Hash{"result": `{"a":null,"b":"x"}`})
	if v, ok := j.Result["a"]; err != nil || !ok || v != "" || j.Result["b"] != "x" {
		t.Fatalf("result = %v, %v", j.Result, err)
	}
}

func TestBooleansAndIntegersEncoding(t *testing.T) {
	for in, want := range map[string]bool{"true": true, "false": false, "1": true, "0": false, "": false} {
		r, err := model.RunnerFromHash("runner:1", model.Hash{"local": in})
		if err != nil || r.Local != want {
			t.Errorf("local=%q: %v %v", in, r.Local, err)
		}
	}
	if h := (&model.Runner{Local: true}).ToHash(); h["local"] != "true" {
		t.Errorf("local encoded as %q", h["local"])
	}
	if h := (&model.Runner{}).ToHash(); h["local"] != "false" {
		t.Errorf("local encoded as %q", h["local"])
	}
	j, err := model.JobFromHash("job:1:1", model.Hash{"id": "007", "timeout": "0", "created_at": "-5"})
	if err != nil || j.ID != 7 || j.CreatedAt != -5 {
		t.Fatalf("%+v %v", j, err)
	}
}
