package transfer

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/hyphae-run/hyphae/files"
)

// Protocol is the libp2p protocol ID of file transfers.
const Protocol = "/hyphae/files/1.0.0"

const (
	magic   = "hyf"
	version = 1
	// MaxJobRef is the longest job ref a request carries.
	MaxJobRef = 255
	// MaxReason is the longest refusal reason a header carries.
	MaxReason = 255
)

// Status is the answer of a response header.
type Status byte

const (
	StatusOK Status = iota
	StatusRefused
	StatusNotFound
	StatusBusy
	StatusBadRequest
)

// Request asks for a blob from chunk First on, for the job JobRef.
type Request struct {
	SHA256 [32]byte
	First  uint32
	JobRef string
}

// Header answers a request. Size, ChunkSize and Chunks are set when
// Status is StatusOK, Reason otherwise.
type Header struct {
	Status    Status
	Reason    string
	Size      int64
	ChunkSize int64
	Chunks    [][32]byte
}

// encodeRequest returns the request's bytes.
func encodeRequest(r Request) ([]byte, error) {
	if len(r.JobRef) == 0 || len(r.JobRef) > MaxJobRef {
		return nil, fmt.Errorf("%w: job ref of %d bytes", files.ErrProtocol, len(r.JobRef))
	}
	b := make([]byte, 0, 42+len(r.JobRef))
	b = append(b, magic...)
	b = append(b, version)
	b = append(b, r.SHA256[:]...)
	b = binary.BigEndian.AppendUint32(b, r.First)
	b = binary.BigEndian.AppendUint16(b, uint16(len(r.JobRef)))
	return append(b, r.JobRef...), nil
}

// readRequest reads one request, reading no more than it holds.
func readRequest(rd io.Reader) (Request, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(rd, prefix[:]); err != nil {
		return Request{}, fmt.Errorf("%w: request: %v", files.ErrProtocol, err)
	}
	if err := checkMagic(prefix[:]); err != nil {
		return Request{}, err
	}
	return readRequestBody(rd)
}

// readRequestBody reads a one-blob request after its magic and version.
func readRequestBody(rd io.Reader) (Request, error) {
	var r Request
	var fixed [42]byte
	if _, err := io.ReadFull(rd, fixed[4:]); err != nil {
		return r, fmt.Errorf("%w: request: %v", files.ErrProtocol, err)
	}
	copy(r.SHA256[:], fixed[4:36])
	r.First = binary.BigEndian.Uint32(fixed[36:40])
	n := binary.BigEndian.Uint16(fixed[40:42])
	if n == 0 || n > MaxJobRef {
		return r, fmt.Errorf("%w: job ref of %d bytes", files.ErrProtocol, n)
	}
	ref := make([]byte, n)
	if _, err := io.ReadFull(rd, ref); err != nil {
		return r, fmt.Errorf("%w: job ref: %v", files.ErrProtocol, err)
	}
	r.JobRef = string(ref)
	return r, nil
}

func checkMagic(b []byte) error {
	if string(b[:3]) != magic {
		return fmt.Errorf("%w: not a files stream", files.ErrProtocol)
	}
	if b[3] != version {
		return fmt.Errorf("%w: version %d, this agent speaks %d", files.ErrProtocol, b[3], version)
	}
	return nil
}

// encodeHeader returns the header's bytes (the chunk list included).
func encodeHeader(h Header) []byte {
	b := append([]byte(magic), version, byte(h.Status))
	if h.Status != StatusOK {
		reason := h.Reason
		if len(reason) > MaxReason {
			reason = reason[:MaxReason]
		}
		b = binary.BigEndian.AppendUint16(b, uint16(len(reason)))
		return append(b, reason...)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(h.Size))
	b = binary.BigEndian.AppendUint32(b, uint32(h.ChunkSize))
	for i := range h.Chunks {
		b = append(b, h.Chunks[i][:]...)
	}
	return b
}

// readHeader reads one header whose chunk list has at most maxChunks
// hashes (the fetcher's entry says how many): the list is allocated only
// once size and chunk size are checked against that.
func readHeader(rd io.Reader, maxChunks int64) (Header, error) {
	var h Header
	var head [5]byte
	if _, err := io.ReadFull(rd, head[:]); err != nil {
		return h, fmt.Errorf("%w: header: %v", files.ErrProtocol, err)
	}
	if err := checkMagic(head[:4]); err != nil {
		return h, err
	}
	h.Status = Status(head[4])
	switch {
	case h.Status == StatusOK:
		return h, readChunking(rd, &h, maxChunks)
	case h.Status > StatusBadRequest:
		return h, fmt.Errorf("%w: status %d", files.ErrProtocol, h.Status)
	}
	var n [2]byte
	if _, err := io.ReadFull(rd, n[:]); err != nil {
		return h, fmt.Errorf("%w: reason: %v", files.ErrProtocol, err)
	}
	l := binary.BigEndian.Uint16(n[:])
	if l > MaxReason {
		return h, fmt.Errorf("%w: reason of %d bytes", files.ErrProtocol, l)
	}
	reason := make([]byte, l)
	if _, err := io.ReadFull(rd, reason); err != nil {
		return h, fmt.Errorf("%w: reason: %v", files.ErrProtocol, err)
	}
	h.Reason = string(reason)
	return h, nil
}

func readChunking(rd io.Reader, h *Header, maxChunks int64) error {
	var b [12]byte
	if _, err := io.ReadFull(rd, b[:]); err != nil {
		return fmt.Errorf("%w: header: %v", files.ErrProtocol, err)
	}
	size, cs := binary.BigEndian.Uint64(b[:8]), int64(binary.BigEndian.Uint32(b[8:]))
	if size > 1<<62 || cs < files.MinChunkSize || cs > files.MaxChunkSize {
		return fmt.Errorf("%w: size %d, chunk size %d", files.ErrProtocol, size, cs)
	}
	n := files.ChunkCount(int64(size), cs)
	if n > min(maxChunks, files.MaxChunks) {
		return fmt.Errorf("%w: %d chunks, at most %d", files.ErrProtocol, n, min(maxChunks, files.MaxChunks))
	}
	h.Size, h.ChunkSize, h.Chunks = int64(size), cs, make([][32]byte, n)
	for i := range h.Chunks {
		if _, err := io.ReadFull(rd, h.Chunks[i][:]); err != nil {
			return fmt.Errorf("%w: chunk list: %v", files.ErrProtocol, err)
		}
	}
	return nil
}
