package bridge

import (
	"bytes"
	"testing"
)

// FuzzPayload: whatever an authentic peer seals, decoding it never panics;
// a decoded payload encodes and decodes to the same bytes; and every ref
// it carries (its own, the one it answers, the acks riding on it) either
// fails to parse or parses to a message that makes the same ref again.
func FuzzPayload(f *testing.F) {
	for _, seed := range []string{
		`{"ref":"1/message:1:6","origin_ctx":1,"origin_job":"job:1:6","attempt":1,` +
			`"message":{"message_type":"job"},"job":{"id":"6","script":"-","script_type":"noop"}}`,
		`{"ref":"2/message:2:12","origin_ctx":1,"origin_job":"job:1:6","attempt":1,"status":"finished",` +
			`"result":{"exit_code":"0","stdout":""},"logs":["hello"],"acks":["1/message:1:5"]}`,
		`{"ack_of":"1/message:1:6","acks":["2/message:2:1","2/message:2:2"]}`,
		`{"ack_of":"1/message:1:6","error":"refused: lacks role executor"}`,
		`{"ref":"1/logs:m1x:3","origin_ctx":1,"origin_job":"job:1:6","log_from":120}`,
		`{"ack_of":"1/logs:m1x:3","logs":["a","b"],"next":122,"status":"started","more":true}`,
		`{"ref":"007/k","acks":["/x","1/","x/y","18446744073709551616/k",""]}`,
		`{"acks":null,"result":{"a":null}}`,
		`{"ref":1}`, `[]`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodePayload(data)
		if err != nil {
			return
		}
		once := p.encode()
		q, err := decodePayload(once)
		if err != nil {
			t.Fatalf("re-decoding %q: %v", once, err)
		}
		if twice := q.encode(); !bytes.Equal(once, twice) {
			t.Fatalf("encoding is not stable:\n%s\n%s", once, twice)
		}
		for _, ref := range append([]string{p.Ref, p.AckOf}, p.Acks...) {
			id, key, err := parseRef(ref)
			if err != nil {
				continue
			}
			id2, key2, err := parseRef(makeRef(id, key))
			if err != nil || id2 != id || key2 != key || key == "" {
				t.Fatalf("ref %q parsed to (%d, %q), which makes a ref parsing to (%d, %q, %v)", ref, id, key, id2, key2, err)
			}
		}
	})
}
