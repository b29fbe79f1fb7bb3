package transfer

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync/atomic"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Client fetches blobs into a store from other agents' Servers. It holds
// no goroutine of its own; Fetch runs on the caller's.
type Client struct {
	h        host.Host
	store    *cas.Store
	cfg      Config
	sem      chan struct{}
	received atomic.Int64 // content bytes read from streams, a chunk cut short included
}

// BytesReceived is the content bytes this Client's fetches read from
// streams, a chunk cut short included: past a file's size by what was
// received twice (a resumed fetch asks again for the chunk it had not
// finished, nothing it had verified).
func (c *Client) BytesReceived() int64 { return c.received.Load() }

// NewClient returns a Client fetching over h into store.
func NewClient(h host.Host, store *cas.Store, cfg Config) *Client {
	cfg = cfg.withDefaults()
	return &Client{h: h, store: store, cfg: cfg, sem: make(chan struct{}, cfg.MaxParallel)}
}

// errRewound: the part's prefix no longer hashed right and was cut back;
// a new request starts there.
var errRewound = errors.New("part rewound")

// Fetch brings the blob of e from peer p into the store, held for jobRef,
// calling progress (when not nil) as verified bytes arrive. A blob in the
// store already is only held. A fetch cut short keeps its verified
// prefix: the next Fetch of the same blob resumes there.
func (c *Client) Fetch(ctx context.Context, p peer.ID, e files.Entry, jobRef string, progress func(done, total int64)) error {
	if err := c.fetch(ctx, p, e, jobRef, progress); err != nil {
		return fmt.Errorf("transfer.Fetch %s (%s) from %s: %w", e.Path, e.SHA256, p, err)
	}
	return nil
}

func (c *Client) fetch(ctx context.Context, p peer.ID, e files.Entry, jobRef string, progress func(done, total int64)) error {
	if err := e.Check(); err != nil {
		return err
	}
	if progress == nil {
		progress = func(int64, int64) {}
	}
	if c.store.Has(e.SHA256) {
		progress(e.Size, e.Size)
		return c.store.Hold(jobRef, e.SHA256)
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.sem }()
	part, present, err := c.store.BeginPart(ctx, e.SHA256, e.Size, e.ChunkSize)
	if err != nil {
		return err
	}
	if present {
		progress(e.Size, e.Size)
		return c.store.Hold(jobRef, e.SHA256)
	}
	defer part.Close()
	err = c.attempt(ctx, p, e, jobRef, part, progress)
	if errors.Is(err, errRewound) {
		err = c.attempt(ctx, p, e, jobRef, part, progress)
	}
	return err
}

// attempt makes one request on a new stream, from the part's verified
// prefix on.
func (c *Client) attempt(ctx context.Context, p peer.ID, e files.Entry, jobRef string, part *cas.Part, progress func(done, total int64)) error {
	st, err := c.h.NewStream(ctx, p, Protocol)
	if err != nil {
		return fmt.Errorf("open stream: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { _ = st.Reset() })
	defer stop()
	h, r, err := c.request(st, e, jobRef, part.Verified())
	if err != nil {
		_ = st.Reset()
		return err
	}
	if err := c.receive(st, r, e, h, jobRef, part, progress); err != nil {
		_ = st.Reset()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	_ = st.Close()
	return nil
}

// request sends the request and reads the header, checking it against e.
func (c *Client) request(st network.Stream, e files.Entry, jobRef string, first int64) (Header, *bufio.Reader, error) {
	sha, err := files.DecodeDigest(e.SHA256)
	if err != nil {
		return Header{}, nil, err
	}
	req, err := encodeRequest(Request{SHA256: sha, First: uint32(first), JobRef: jobRef})
	if err != nil {
		return Header{}, nil, err
	}
	_ = st.SetDeadline(time.Now().Add(c.cfg.IdleTimeout))
	if _, err := st.Write(req); err != nil {
		return Header{}, nil, fmt.Errorf("send request: %w", err)
	}
	_ = st.CloseWrite()
	r := bufio.NewReaderSize(st, 64<<10)
	h, err := readHeader(r, e.Chunks())
	if err != nil {
		return h, nil, err
	}
	if err := statusError(h); err != nil {
		return h, nil, err
	}
	if h.Size != e.Size || h.ChunkSize != e.ChunkSize || files.ChunkRoot(h.ChunkSize, h.Chunks) != e.ChunkRoot {
		return h, nil, fmt.Errorf("%w: the chunk list sent does not match the entry's chunk_root", files.ErrCorrupt)
	}
	return h, r, nil
}

func statusError(h Header) error {
	switch h.Status {
	case StatusOK:
		return nil
	case StatusRefused:
		return fmt.Errorf("%w: %s", files.ErrRefused, h.Reason)
	case StatusBusy:
		return fmt.Errorf("%w: %s", files.ErrBusy, h.Reason)
	case StatusNotFound:
		return fmt.Errorf("%w: %s", files.ErrNotFound, h.Reason)
	}
	return fmt.Errorf("%w: the server says: %s", files.ErrProtocol, h.Reason)
}

// receive hashes the verified prefix again, then checks and writes the
// rest chunk by chunk as a reader goroutine brings them in (so the
// network does not wait for the disk), and names the blob when the whole
// matches.
func (c *Client) receive(st network.Stream, r io.Reader, e files.Entry, h Header, jobRef string, part *cas.Part, progress func(done, total int64)) error {
	whole := sha256.New()
	if err := rehash(part, h, whole, make([]byte, min(e.ChunkSize, max(e.Size, 1)))); err != nil {
		return err
	}
	progress(min(part.Verified()*e.ChunkSize, e.Size), e.Size)
	chunks, free, done := c.readChunks(st, r, e, part.Verified())
	err := writeChunks(chunks, free, e, h, part, whole, progress)
	if err != nil {
		_ = st.Reset() // ends the reader; what it read still is drained
		for ch := range chunks {
			if ch.b != nil {
				free <- ch.b
			}
		}
	}
	<-done
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(whole.Sum(nil)); got != e.SHA256 {
		part.Discard()
		return fmt.Errorf("%w: the whole file hashes to %s", files.ErrCorrupt, got)
	}
	return part.Commit(jobRef, files.Sum{Size: e.Size, SHA256: e.SHA256, ChunkSize: e.ChunkSize, Chunks: h.Chunks})
}

// chunk is one chunk read off the stream, or the error that ended reading.
type chunk struct {
	i   int64
	b   []byte
	err error
}

// readBuffers is how many chunk buffers a fetch has: one being read, one
// being checked and written, one spare.
const readBuffers = 3

// readChunks reads chunks from first on into a fixed set of buffers on
// a goroutine of its own; done closes when it has returned.
func (c *Client) readChunks(st network.Stream, r io.Reader, e files.Entry, first int64) (<-chan chunk, chan<- []byte, <-chan struct{}) {
	chunks := make(chan chunk, readBuffers)
	free := make(chan []byte, readBuffers)
	done := make(chan struct{})
	for range readBuffers {
		free <- cas.ChunkBuffer(int(min(e.ChunkSize, max(e.Size, 1))))
	}
	go func() {
		defer close(done)
		defer close(chunks)
		for i := first; i < e.Chunks(); i++ {
			buf := <-free
			l := min(e.ChunkSize, e.Size-i*e.ChunkSize)
			_ = st.SetReadDeadline(time.Now().Add(c.cfg.IdleTimeout))
			n, err := io.ReadFull(r, buf[:l])
			c.received.Add(int64(n))
			if err != nil {
				chunks <- chunk{i: i, err: fmt.Errorf("chunk %d: %w", i, err)}
				return
			}
			chunks <- chunk{i: i, b: buf[:l]}
		}
	}()
	return chunks, free, done
}

// writeChunks checks each chunk read against its hash and writes it to
// the part, giving its buffer back, until chunks closes or a chunk fails.
func writeChunks(chunks <-chan chunk, free chan<- []byte, e files.Entry, h Header, part *cas.Part, whole hash.Hash, progress func(done, total int64)) error {
	var err error
	for ch := range chunks {
		switch {
		case ch.err != nil:
			err = ch.err
		case sha256.Sum256(ch.b) != h.Chunks[ch.i]:
			err = fmt.Errorf("%w: chunk %d of %d", files.ErrCorrupt, ch.i, len(h.Chunks))
		default:
			err = part.WriteChunk(ch.i, ch.b)
			whole.Write(ch.b)
			progress(min((ch.i+1)*e.ChunkSize, e.Size), e.Size)
		}
		if ch.b != nil {
			free <- ch.b
		}
		if err != nil {
			return err
		}
	}
	return err
}

// rehash feeds the part's verified prefix to whole, checking each chunk
// again; a chunk that no longer matches rewinds the part to it.
func rehash(part *cas.Part, h Header, whole hash.Hash, buf []byte) error {
	for i := range part.Verified() {
		b, err := part.ReadChunk(i, buf)
		if err == nil && sha256.Sum256(b) != h.Chunks[i] {
			err = fmt.Errorf("%w: chunk %d of the part", files.ErrCorrupt, i)
		}
		if err != nil {
			if rerr := part.Rewind(i); rerr != nil {
				return rerr
			}
			return fmt.Errorf("%w: %w", errRewound, err)
		}
		whole.Write(b)
	}
	return nil
}
