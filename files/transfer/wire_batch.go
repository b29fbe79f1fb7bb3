package transfer

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/hyphae-run/hyphae/files"
)

// batchVersion is the version byte of a batch request: a one-blob
// request has version, the header of every answer too.
const batchVersion = 2

// MaxBatch is the most blobs one batch request asks for.
const MaxBatch = 1024

// Batch asks for several blobs on one stream, each from its chunk First
// on, all for the job JobRef; they are answered in order.
type Batch struct {
	JobRef string
	Items  []Item
}

// Item is one blob of a Batch.
type Item struct {
	SHA256 [32]byte
	First  uint32
}

// encodeBatch returns the batch request's bytes.
func encodeBatch(b Batch) ([]byte, error) {
	if len(b.JobRef) == 0 || len(b.JobRef) > MaxJobRef {
		return nil, fmt.Errorf("%w: job ref of %d bytes", files.ErrProtocol, len(b.JobRef))
	}
	if len(b.Items) == 0 || len(b.Items) > MaxBatch {
		return nil, fmt.Errorf("%w: batch of %d blobs", files.ErrProtocol, len(b.Items))
	}
	out := make([]byte, 0, 8+len(b.JobRef)+36*len(b.Items))
	out = append(out, magic...)
	out = append(out, batchVersion)
	out = binary.BigEndian.AppendUint16(out, uint16(len(b.JobRef)))
	out = append(out, b.JobRef...)
	out = binary.BigEndian.AppendUint16(out, uint16(len(b.Items)))
	for _, it := range b.Items {
		out = append(out, it.SHA256[:]...)
		out = binary.BigEndian.AppendUint32(out, it.First)
	}
	return out, nil
}

// readAnyRequest reads a one-blob request (as a batch of one, single
// set) or a batch request, reading no more than it holds.
func readAnyRequest(rd io.Reader) (b Batch, single bool, err error) {
	var prefix [4]byte
	if _, err := io.ReadFull(rd, prefix[:]); err != nil {
		return b, false, fmt.Errorf("%w: request: %v", files.ErrProtocol, err)
	}
	if string(prefix[:3]) == magic && prefix[3] == batchVersion {
		b, err = readBatchBody(rd)
		return b, false, err
	}
	if err := checkMagic(prefix[:]); err != nil {
		return b, false, err
	}
	r, err := readRequestBody(rd)
	if err != nil {
		return b, true, err
	}
	return Batch{JobRef: r.JobRef, Items: []Item{{SHA256: r.SHA256, First: r.First}}}, true, nil
}

// readBatch reads one batch request (readAnyRequest without the one-blob
// form), for tests and fuzzing.
func readBatch(rd io.Reader) (Batch, error) {
	b, single, err := readAnyRequest(rd)
	if err == nil && single {
		err = fmt.Errorf("%w: a one-blob request", files.ErrProtocol)
	}
	return b, err
}

// readBatchBody reads a batch request after its magic and version; the
// item list is allocated only once its count is checked.
func readBatchBody(rd io.Reader) (Batch, error) {
	var b Batch
	ref, err := readShort(rd, "job ref", 1, MaxJobRef)
	if err != nil {
		return b, err
	}
	b.JobRef = string(ref)
	var n [2]byte
	if _, err := io.ReadFull(rd, n[:]); err != nil {
		return b, fmt.Errorf("%w: batch count: %v", files.ErrProtocol, err)
	}
	count := int(binary.BigEndian.Uint16(n[:]))
	if count == 0 || count > MaxBatch {
		return b, fmt.Errorf("%w: batch of %d blobs", files.ErrProtocol, count)
	}
	b.Items = make([]Item, count)
	var it [36]byte
	for i := range b.Items {
		if _, err := io.ReadFull(rd, it[:]); err != nil {
			return b, fmt.Errorf("%w: batch item %d: %v", files.ErrProtocol, i, err)
		}
		copy(b.Items[i].SHA256[:], it[:32])
		b.Items[i].First = binary.BigEndian.Uint32(it[32:])
	}
	return b, nil
}

// readShort reads a 2-byte length in [lo, hi] and that many bytes.
func readShort(rd io.Reader, what string, lo, hi int) ([]byte, error) {
	var n [2]byte
	if _, err := io.ReadFull(rd, n[:]); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", files.ErrProtocol, what, err)
	}
	l := int(binary.BigEndian.Uint16(n[:]))
	if l < lo || l > hi {
		return nil, fmt.Errorf("%w: %s of %d bytes", files.ErrProtocol, what, l)
	}
	b := make([]byte, l)
	if _, err := io.ReadFull(rd, b); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", files.ErrProtocol, what, err)
	}
	return b, nil
}
