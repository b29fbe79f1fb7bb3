package model_test

import (
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// bigScript is a 1 MiB script with multi-byte runes, quotes, newlines and
// NULs, the kind of value a hash field must carry unchanged.
var bigScript = func() string {
	var b strings.Builder
	line := "echo 'héllo \"wörld\" 🍄' \\ \t$HOME\x00\n"
	for b.Len() < 1<<20 {
		b.WriteString(line)
	}
	return b.String()[:1<<20]
}()

const uni = "Grüße, 世界 🍄 — \u202ertl\u202c \u0000 end"

func fullActor() *model.Actor {
	return &model.Actor{
		ID:        18446744073709551615, // max uint64
		Pubkey:    "12D3KooWGzh7X8m7dE8vXUyq4zqJ7vUP6pGBqG6zVvH8pRj3yP6Q",
		Address:   []string{"/ip4/127.0.0.1/tcp/4001", "/ip6/::1/udp/4001/quic-v1", uni},
		CreatedAt: -62135596800, // year 1, negative is allowed for timestamps
		UpdatedAt: 1735689600,
		Extra:     model.Hash{"nickname": uni, "empty_extra": ""},
	}
}

func fullContext() *model.Context {
	return &model.Context{
		ID:        63,
		Name:      "team " + uni,
		Admins:    []uint64{1},
		Readers:   []uint64{2, 3, 18446744073709551615},
		Executors: []uint64{4, 1},
		CreatedAt: 1,
		UpdatedAt: 9223372036854775807,
		Extra:     model.Hash{"owner_note": "x"},
	}
}

func fullFlow() *model.Flow {
	return &model.Flow{
		ID:        7,
		CallerID:  8,
		ContextID: 9,
		Name:      "nightly " + uni,
		Jobs:      []uint64{10, 11, 12},
		EnvVars:   map[string]string{"A": "1", uni: uni, "EMPTY": "", "JSON": `{"nested":[1,2]}`},
		Result:    map[string]string{"out": "ok\n", "big": strings.Repeat("é", 4096)},
		Status:    model.FlowStarted,
		CreatedAt: 100,
		UpdatedAt: 200,
		Extra:     model.Hash{"x-trace": "abc"},
	}
}

func fullRunner() *model.Runner {
	return &model.Runner{
		ID:          5,
		Pubkey:      "12D3KooWRunner",
		Address:     "/ip4/10.0.0.1/tcp/4001",
		Topic:       "hyphae/runner/" + uni,
		Local:       true,
		ScriptTypes: []string{"sh", "bash", "python"},
		CreatedAt:   1,
		UpdatedAt:   2,
		Extra:       model.Hash{"zone": "eu"},
	}
}

func fullJob() *model.RunnerJob {
	return &model.RunnerJob{
		ID:            42,
		CallerID:      7,
		ContextID:     3,
		Name:          "build " + uni,
		FlowID:        99,
		Script:        bigScript,
		ScriptType:    model.ScriptPython,
		Timeout:       3600,
		Retries:       2,
		MemoryMB:      512,
		CPU:           1.5,
		EnvVars:       map[string]string{"PATH": "/bin", "UNI": uni, "E": ""},
		Result:        map[string]string{"stdout": "done\n", "code": "0"},
		Prerequisites: []string{"40", "41"},
		Dependends:    []uint64{43},
		Status:        model.JobStarted,
		Runner:        "12D3KooWPeer",
		Error:         "exit status 1: " + uni,
		Attempt:       3,
		CreatedAt:     1700000000,
		UpdatedAt:     1700000001,
		Extra:         model.Hash{"priority": "high", "seed_custom": `{"a":1}`},
	}
}

func smallJob(id uint64) *model.RunnerJob {
	return &model.RunnerJob{
		ID:            id,
		CallerID:      7,
		ContextID:     3,
		Name:          "n",
		FlowID:        1,
		Script:        "echo " + uni,
		ScriptType:    "sh",
		Timeout:       5,
		Retries:       1,
		EnvVars:       map[string]string{"K": "v"},
		Result:        map[string]string{"r": "1"},
		Prerequisites: []string{"1"},
		Dependends:    []uint64{2},
		Status:        model.JobFinished,
		Runner:        "r",
		Error:         "e",
		Attempt:       1,
		CreatedAt:     10,
		UpdatedAt:     11,
		Extra:         model.Hash{"inner_extra": "kept"},
	}
}

func fullMessage() *model.Message {
	return &model.Message{
		ID:                11,
		CallerID:          7,
		ContextID:         3,
		Message:           "hello " + uni,
		MessageType:       model.MsgTypeJob,
		MessageFormatType: "json",
		Timeout:           60,
		TimeoutAck:        5,
		TimeoutResult:     600,
		Job:               []*model.RunnerJob{smallJob(1), smallJob(2)},
		Logs:              []string{"line 1", uni, ""},
		Status:            model.MsgAcknowledged,
		Dst:               "12D3KooWDst",
		Error:             "none " + uni,
		CreatedAt:         1,
		UpdatedAt:         2,
		Extra:             model.Hash{"hop": "2"},
	}
}

func fullPeer() *model.Peer {
	return &model.Peer{
		PeerID:      "12D3KooWPeer",
		State:       model.PeerUp,
		Addrs:       []string{"/ip4/1.2.3.4/tcp/1"},
		Roles:       []string{"supervisor", "runner"},
		ScriptTypes: []string{"sh"},
		Capacity:    8,
		Load:        3,
		Version:     "0.1.0-" + uni,
		Uptime:      12345,
		FoundVia:    "mdns",
		LastSeen:    1700000000,
		Extra:       model.Hash{"region": "eu"},
	}
}

// requireAllSet fails when a field of the fixture is the zero value, so a
// field added to a model later cannot silently escape the round-trip test.
func requireAllSet(t *testing.T, v any) {
	t.Helper()
	rv := reflect.ValueOf(v).Elem()
	for i := 0; i < rv.NumField(); i++ {
		if rv.Field(i).IsZero() {
			t.Errorf("fixture %s leaves field %s unset; set it so its round trip is tested",
				rv.Type().Name(), rv.Type().Field(i).Name)
		}
	}
}

type codec struct {
	name string
	key  string
	full func() any
	enc  func(any) model.Hash
	dec  func(string, model.Hash) (any, error)
}

var codecs = []codec{
	{"Actor", "actor:1", func() any { return fullActor() },
		func(v any) model.Hash { return v.(*model.Actor).ToHash() },
		func(k string, h model.Hash) (any, error) { return model.ActorFromHash(k, h) }},
	{"Context", "context:63", func() any { return fullContext() },
		func(v any) model.Hash { return v.(*model.Context).ToHash() },
		func(k string, h model.Hash) (any, error) { return model.ContextFromHash(k, h) }},
	{"Flow", "flow:7", func() any { return fullFlow() },
		func(v any) model.Hash { return v.(*model.Flow).ToHash() },
		func(k string, h model.Hash) (any, error) { return model.FlowFromHash(k, h) }},
	{"Runner", "runner:5", func() any { return fullRunner() },
		func(v any) model.Hash { return v.(*model.Runner).ToHash() },
		func(k string, h model.Hash) (any, error) { return model.RunnerFromHash(k, h) }},
	{"RunnerJob", "job:7:42", func() any { return fullJob() },
		func(v any) model.Hash { return v.(*model.RunnerJob).ToHash() },
		func(k string, h model.Hash) (any, error) { return model.JobFromHash(k, h) }},
	{"Message", "message:7:11", func() any { return fullMessage() },
		func(v any) model.Hash { return v.(*model.Message).ToHash() },
		func(k string, h model.Hash) (any, error) { return model.MessageFromHash(k, h) }},
	{"Peer", "peer:12D3KooWPeer", func() any { return fullPeer() },
		func(v any) model.Hash { return v.(*model.Peer).ToHash() },
		func(k string, h model.Hash) (any, error) { return model.PeerFromHash(k, h) }},
}

func TestRoundTripEveryField(t *testing.T) {
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			in := c.full()
			requireAllSet(t, in)
			h := c.enc(in)
			out, err := c.dec(c.key, maps.Clone(h))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(in, out) {
				t.Fatalf("round trip changed the object:\n in: %s\nout: %s", short(in), short(out))
			}
			if h2 := c.enc(out); !maps.Equal(h, h2) {
				t.Fatalf("re-encoding differs:\n%v\n%v", h, h2)
			}
		})
	}
}

func TestRoundTripLargeScript(t *testing.T) {
	j := fullJob()
	h := j.ToHash()
	if len(h["script"]) != 1<<20 || h["script"] != bigScript {
		t.Fatalf("script stored with %d bytes, want the 1 MiB script unchanged", len(h["script"]))
	}
	got, err := model.JobFromHash("job:7:42", h)
	if err != nil {
		t.Fatal(err)
	}
	if got.Script != bigScript {
		t.Fatal("1 MiB script changed in a round trip")
	}
	// The same script inside a message's embedded job.
	m := &model.Message{ID: 1, Job: []*model.RunnerJob{j}}
	gm, err := model.MessageFromHash("message:0:1", m.ToHash())
	if err != nil {
		t.Fatal(err)
	}
	if len(gm.Job) != 1 || gm.Job[0].Script != bigScript {
		t.Fatal("1 MiB script changed inside an embedded job")
	}
}

// short renders v for failure messages without printing 1 MiB scripts.
func short(v any) string {
	return strings.ReplaceAll(fmt.Sprintf("%+v", v), bigScript, "<1MiB script>")
}

func TestEmptyValuesRoundTrip(t *testing.T) {
	// Zero-value objects: every field empty. Lists and maps are written as
	// empty JSON ([] / {}), integers as "0", strings as "".
	j := &model.RunnerJob{}
	h := j.ToHash()
	want := model.Hash{
		"id": "0", "caller_id": "0", "context_id": "0", "script": "", "script_type": "",
		"timeout": "0", "retries": "0", "env_vars": "{}", "result": "{}",
		"prerequisites": "[]", "dependends": "[]", "status": "", "runner": "",
		"error": "", "attempt": "0", "created_at": "0", "updated_at": "0",
	}
	if !maps.Equal(h, want) {
		t.Fatalf("empty job hash:\n got %v\nwant %v", h, want)
	}
	got, err := model.JobFromHash("job:0:0", h)
	if err != nil {
		t.Fatal(err)
	}
	if got.Extra != nil || got.Name != "" || got.FlowID != 0 || got.Status != "" {
		t.Fatalf("empty job decoded with values: %+v", got)
	}
	if len(got.EnvVars) != 0 || len(got.Result) != 0 || len(got.Prerequisites) != 0 || len(got.Dependends) != 0 {
		t.Fatalf("empty lists/maps decoded non-empty: %+v", got)
	}

	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			zero := reflect.New(reflect.TypeOf(c.full()).Elem()).Interface()
			h := c.enc(zero)
			out, err := c.dec(c.key, h)
			if err != nil {
				t.Fatalf("zero value does not decode: %v", err)
			}
			if h2 := c.enc(out); !maps.Equal(h, h2) {
				t.Fatalf("zero value re-encodes differently:\n%v\n%v", h, h2)
			}
		})
	}
}

func TestNilAndEmptyCollections(t *testing.T) {
	// nil and empty lists/maps both encode as empty JSON and both decode to
	// an empty collection; an absent field decodes to nil.
	for _, j := range []*model.RunnerJob{
		{EnvVars: nil, Result: nil, Prerequisites: nil, Dependends: nil},
		{EnvVars: map[string]string{}, Result: map[string]string{}, Prerequisites: []string{}, Dependends: []uint64{}},
	} {
		h := j.ToHash()
		for f, want := range map[string]string{"env_vars": "{}", "result": "{}", "prerequisites": "[]", "dependends": "[]"} {
			if h[f] != want {
				t.Errorf("%s = %q, want %q", f, h[f], want)
			}
		}
		got, err := model.JobFromHash("job:1:1", h)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.EnvVars)+len(got.Result)+len(got.Prerequisites)+len(got.Dependends) != 0 {
			t.Errorf("decoded non-empty: %+v", got)
		}
	}
	got, err := model.JobFromHash("job:1:1", model.Hash{"id": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got.EnvVars != nil || got.Prerequisites != nil {
		t.Errorf("absent fields decoded to non-nil: %+v", got)
	}
	// JSON null is treated like an empty value.
	got, err = model.JobFromHash("job:1:1", model.Hash{"env_vars": "null", "prerequisites": "null", "result": "null"})
	if err != nil {
		t.Fatalf("null lists/maps: %v", err)
	}
	if len(got.EnvVars)+len(got.Prerequisites)+len(got.Result) != 0 {
		t.Errorf("null decoded non-empty: %+v", got)
	}

	m := &model.Message{Logs: nil, Job: nil}
	h := m.ToHash()
	if h["logs"] != "[]" || h["job"] != "[]" {
		t.Errorf("nil logs/job encoded as %q / %q, want []", h["logs"], h["job"])
	}
	a := &model.Actor{}
	if h := a.ToHash(); h["address"] != "[]" {
		t.Errorf("nil address = %q", h["address"])
	}
	c := &model.Context{}
	if h := c.ToHash(); h["admins"] != "[]" || h["readers"] != "[]" || h["executors"] != "[]" {
		t.Errorf("nil role lists = %v", h)
	}
	// Optional additions are left out when empty, so a seed-only reader
	// sees only seed fields.
	if _, ok := c.ToHash()["name"]; ok {
		t.Error("empty context name written")
	}
	if h := (&model.RunnerJob{}).ToHash(); h["name"] != "" || h["flow_id"] != "" {
		t.Errorf("empty job name/flow_id written: %v", h)
	}
}

func TestUnknownFieldsPreserved(t *testing.T) {
	extra := model.Hash{"zz_custom": "1", "note": uni, "blank": "", "json_blob": `{"a":[1,2]}`}
	for _, c := range codecs {
		t.Run(c.name, func(t *testing.T) {
			h := c.enc(c.full())
			maps.Copy(h, extra)
			v, err := c.dec(c.key, h)
			if err != nil {
				t.Fatal(err)
			}
			got := reflect.ValueOf(v).Elem().FieldByName("Extra").Interface().(model.Hash)
			for k, want := range extra {
				if got[k] != want {
					t.Errorf("Extra[%q] = %q, want %q", k, got[k], want)
				}
			}
			h2 := c.enc(v)
			for k, want := range extra {
				if g, ok := h2[k]; !ok || g != want {
					t.Errorf("re-encoded hash lost %q (got %q, %v)", k, g, ok)
				}
			}
		})
	}
	// Extra fields of a job embedded in a message survive too.
	m := &model.Message{ID: 1, Job: []*model.RunnerJob{{ID: 2, Extra: model.Hash{"inner": "v"}}}}
	gm, err := model.MessageFromHash("message:0:1", m.ToHash())
	if err != nil {
		t.Fatal(err)
	}
	if gm.Job[0].Extra["inner"] != "v" {
		t.Fatalf("embedded job extra lost: %v", gm.Job[0].Extra)
	}
}

func TestMissingOptionalFields(t *testing.T) {
	// What a seed client writes by hand: no additions, few fields.
	j, err := model.JobFromHash("job:1:2", model.Hash{"id": "2", "caller_id": "1", "script": "echo hi", "script_type": "sh"})
	if err != nil {
		t.Fatal(err)
	}
	if j.ID != 2 || j.CallerID != 1 || j.Script != "echo hi" || j.Status != "" || j.Attempt != 0 || j.Extra != nil {
		t.Fatalf("got %+v", j)
	}
	m, err := model.MessageFromHash("message:1:2", model.Hash{"id": "2", "message_type": "chat", "message": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if m.MessageType != model.MsgTypeChat || m.Job != nil || m.Dst != "" {
		t.Fatalf("got %+v", m)
	}
	if _, err := model.ActorFromHash("actor:1", model.Hash{}); err != nil {
		t.Fatalf("empty hash: %v", err)
	}
}

func TestMessageEmbeddedJobs(t *testing.T) {
	m := fullMessage()
	h := m.ToHash()
	// The job field is a JSON list of objects whose values are the job's
	// hash fields as strings.
	if !strings.HasPrefix(h["job"], `[{`) || !strings.Contains(h["job"], `"script_type":"sh"`) ||
		!strings.Contains(h["job"], `"prerequisites":"[1]"`) {
		t.Fatalf("job field not a JSON list of hash-shaped objects: %s", h["job"])
	}
	got, err := model.MessageFromHash("message:7:11", h)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Job, m.Job) {
		t.Fatalf("embedded jobs changed:\n%+v\n%+v", got.Job[0], m.Job[0])
	}

	// A third-party writer may put plain JSON values in the job objects.
	h["job"] = `[{"id": 5, "caller_id": "7", "timeout": 30, "env_vars": {"A": "b", "N": 1},
		"prerequisites": [1, "2"], "status": "dispatched", "local_note": true, "skip": null}]`
	got, err = model.MessageFromHash("message:7:11", h)
	if err != nil {
		t.Fatal(err)
	}
	j := got.Job[0]
	if j.ID != 5 || j.CallerID != 7 || j.Timeout != 30 || j.EnvVars["A"] != "b" || j.EnvVars["N"] != "1" ||
		!reflect.DeepEqual(j.Prerequisites, []string{"1", "2"}) || j.Status != model.JobDispatched ||
		j.Extra["local_note"] != "true" {
		t.Fatalf("plain-JSON job decoded as %+v", j)
	}
	if _, ok := j.Extra["skip"]; ok {
		t.Error("null value kept as a field")
	}
}

func TestJSONNumbersKeptExactly(t *testing.T) {
	// Large integers written as JSON numbers by another client must not be
	// rounded through float64.
	const big = "12345678901234567891"
	j, err := model.JobFromHash("job:1:1", model.Hash{"result": `{"n":` + big + `,"f":0.5,"e":1e400}`})
	if err != nil {
		t.Fatal(err)
	}
	if j.Result["n"] != big || j.Result["f"] != "0.5" {
		t.Fatalf("result = %v, want n=%s f=0.5", j.Result, big)
	}
	m, err := model.MessageFromHash("message:1:1", model.Hash{"job": `[{"id":9007199254740993,"result":{"n":` + big + `}}]`})
	if err != nil {
		t.Fatal(err)
	}
	if m.Job[0].ID != 9007199254740993 || m.Job[0].Result["n"] != big {
		t.Fatalf("embedded job id %d result %v: precision lost", m.Job[0].ID, m.Job[0].Result)
	}
}

func TestIDListsAcceptNumbersAndStrings(t *testing.T) {
	for in, want := range map[string][]uint64{
		`[1,2]`:                    {1, 2},
		`["1","2"]`:                {1, 2},
		`[1,"2"]`:                  {1, 2},
		` [ 3 , "4" ] `:            {3, 4},
		`[]`:                       {},
		`["18446744073709551615"]`: {18446744073709551615},
	} {
		c, err := model.ContextFromHash("context:1", model.Hash{"admins": in})
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if !reflect.DeepEqual(c.Admins, want) {
			t.Errorf("%s decoded as %v, want %v", in, c.Admins, want)
		}
		if got := c.ToHash()["admins"]; got != mustJSONIDs(want) {
			t.Errorf("%s re-encoded as %s", in, got)
		}
	}
	for _, bad := range []string{`[-1]`, `["a"]`, `[1.5]`, `{"a":1}`, `[null]`, `[[1]]`, `1`, `"1"`, `[`,
		`["18446744073709551616"]`, `[""]`, `[true]`} {
		_, err := model.ContextFromHash("context:1", model.Hash{"readers": bad})
		requireFieldError(t, err, "context:1", "readers")
	}
}

func mustJSONIDs(v []uint64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatUint(x, 10)
	}
	return "[" + strings.Join(s, ",") + "]"
}
