package model_test

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// The fuzz input is a hash written one field per line as "field=value" (the
// first '=' splits), the way a third-party client could have written it with
// HSET. Lines without '=' are fields with an empty value.
func parseHash(data string) model.Hash {
	h := model.Hash{}
	for _, line := range strings.Split(data, "\n") {
		if line == "" {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		h[k] = v
	}
	return h
}

func hashLines(h model.Hash) string {
	var b strings.Builder
	for k, v := range h {
		b.WriteString(k + "=" + v + "\n")
	}
	return b.String()
}

// checkDecoded is the property every decoder must have: never panic; an
// error is a *FieldError naming the key (keyPrefix) and a field; a success
// re-encodes to a hash that decodes to the same hash again (a fixed point)
// and keeps every unknown field.
func checkDecoded[T any](t *testing.T, key string, h model.Hash, v *T, err error,
	enc func(*T) model.Hash, dec func(string, model.Hash) (*T, error), known map[string]bool) {
	t.Helper()
	if err != nil {
		var fe *model.FieldError
		if !errors.As(err, &fe) {
			t.Fatalf("error is %T, not *model.FieldError: %v", err, err)
		}
		if !strings.HasPrefix(fe.Key, key) || fe.Field == "" {
			t.Fatalf("FieldError names key %q field %q; want key %q and a field", fe.Key, fe.Field, key)
		}
		if !strings.Contains(err.Error(), key) {
			t.Fatalf("message %q does not name the key", err)
		}
		return
	}
	h1 := enc(v)
	for k, val := range h {
		if !known[k] && h1[k] != val {
			t.Fatalf("unknown field %q = %q not preserved (got %q)", k, val, h1[k])
		}
	}
	v2, err := dec(key, maps.Clone(h1))
	if err != nil {
		t.Fatalf("re-encoded hash does not decode: %v\n%v", err, h1)
	}
	if h2 := enc(v2); !maps.Equal(h1, h2) {
		t.Fatalf("encoding is not stable:\n%v\n%v", h1, h2)
	}
}

func knownFields(h model.Hash) map[string]bool {
	m := map[string]bool{}
	for k := range h {
		m[k] = true
	}
	return m
}

var jobFields = knownFields(fullJob().ToHash())

func FuzzJobFromHash(f *testing.F) {
	f.Add(hashLines(smallJob(1).ToHash()))
	f.Add("id=1\ncaller_id=2\nscript=echo hi\nscript_type=sh\n")
	f.Add("id=\ntimeout=-1\n")
	f.Add("prerequisites=[1,\"2\"]\ndependends=[]\nenv_vars={\"A\":1,\"B\":null,\"C\":{\"d\":[1]}}\n")
	f.Add("status=finished\nattempt=3\nresult={\"n\":12345678901234567891}\n")
	f.Add("status=bogus\nx-extra=kept\n")
	f.Add("id=18446744073709551615\ncreated_at=-9223372036854775808\nretries=9223372036854775807\n")
	f.Fuzz(func(t *testing.T, data string) {
		h := parseHash(data)
		j, err := model.JobFromHash("job:1:2", maps.Clone(h))
		checkDecoded(t, "job:1:2", h, j, err, (*model.RunnerJob).ToHash, model.JobFromHash, jobFields)
		if err == nil && (j.Timeout < 0 || j.Retries < 0 || j.MemoryMB < 0 || j.CPU < 0 || (j.Status != "" && !j.Status.Valid())) {
			t.Fatalf("accepted out-of-range values: %+v", j)
		}
	})
}

var (
	messageBase   = fullMessage().ToHash()
	messageFields = knownFields(messageBase)
)

// FuzzMessageFromHash fuzzes mostly the embedded job JSON: the input is the
// value of the job field; the other fields come from a fixed valid message
// unless the input also holds lines of its own after a NUL.
func FuzzMessageFromHash(f *testing.F) {
	f.Add(messageBase["job"], "")
	f.Add(`[]`, "")
	f.Add(`null`, "")
	f.Add(`[null]`, "")
	f.Add(`[{"id":5,"caller_id":"7","timeout":30,"env_vars":{"A":"b","N":1},"prerequisites":[1,"2"],"status":"dispatched"}]`, "")
	f.Add(`[{"id":9007199254740993,"result":{"n":12345678901234567891}}]`, "")
	f.Add(`[{"status":"nope"}]`, "")
	f.Add(`[{"id":"1"},{"id":"x"}]`, "")
	f.Add(`[{"":"","extra":true,"deep":{"a":[{"b":null}]}}]`, "message_type=job\ndst=12D3KooW\nstatus=dispatched\n")
	f.Add(`[1]`, "logs=[\"a\"]\ntimeout_ack=5\n")
	f.Fuzz(func(t *testing.T, job, rest string) {
		h := maps.Clone(messageBase)
		for k, v := range parseHash(rest) {
			h[k] = v
		}
		h["job"] = job
		m, err := model.MessageFromHash("message:7:11", maps.Clone(h))
		checkDecoded(t, "message:7:11", h, m, err, (*model.Message).ToHash, model.MessageFromHash, messageFields)
		if err == nil {
			for _, j := range m.Job {
				if j == nil {
					t.Fatal("nil embedded job")
				}
			}
		}
	})
}

var contextFields = knownFields(fullContext().ToHash())

func FuzzContextFromHash(f *testing.F) {
	f.Add(hashLines(fullContext().ToHash()))
	f.Add("id=1\nadmins=[1,2]\nreaders=[\"3\",\"4\"]\nexecutors=[]\n")
	f.Add("admins=[-1]\n")
	f.Add("readers=[1.5]\nexecutors=null\nname=\n")
	f.Add("admins= [ 1 , \"2\" ] \nother=x\n")
	f.Add("executors=[\"18446744073709551616\"]\n")
	f.Fuzz(func(t *testing.T, data string) {
		h := parseHash(data)
		c, err := model.ContextFromHash("context:5", maps.Clone(h))
		checkDecoded(t, "context:5", h, c, err, (*model.Context).ToHash, model.ContextFromHash, contextFields)
		if err == nil && len(c.Admins) > 0 {
			// The same ids written as JSON strings decode to the same list
			// (the general path agrees with the fast one).
			q := make([]string, len(c.Admins))
			for i, a := range c.Admins {
				q[i] = `"` + strconv.FormatUint(a, 10) + `"`
			}
			c2, err := model.ContextFromHash("context:5", model.Hash{"admins": "[" + strings.Join(q, ",") + "]"})
			if err != nil || !slices.Equal(c2.Admins, c.Admins) {
				t.Fatalf("admins %v as strings decode to %v, %v", c.Admins, c2.Admins, err)
			}
		}
		if err == nil {
			// Role checks on whatever decoded must not panic and must agree
			// with the lists.
			for _, a := range c.Admins {
				if !c.Has(a, model.RoleReader) {
					t.Fatalf("admin %d cannot read", a)
				}
			}
		}
	})
}
