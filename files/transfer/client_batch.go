package transfer

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Batches: files of at most batchFileMax bytes travel many to a stream,
// at most batchCount or batchBytes to a batch.
const (
	batchFileMax = files.DefaultChunkSize
	batchCount   = 256
	batchBytes   = 32 << 20
)

// FetchAll brings the blobs of entries from peer p into the store, held
// for jobRef, calling progress (when not nil) with the bytes verified of
// all of them. Small files travel many to a stream (a batch request),
// each checked as Fetch checks one, and are named together with one
// sync of the store's file system for a batch; larger ones take a Fetch
// each. A batch cut short keeps the parts it verified for the next
// FetchAll. The error joins those of the entries that failed.
func (c *Client) FetchAll(ctx context.Context, p peer.ID, entries []files.Entry, jobRef string, progress func(done, total int64)) error {
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b files.Entry) int { return cmp.Compare(a.SHA256, b.SHA256) })
	es = slices.CompactFunc(es, func(a, b files.Entry) bool { return a.SHA256 == b.SHA256 })
	t := newTally(es, progress)
	var errs []error
	var small []files.Entry
	for _, e := range es {
		switch {
		case e.Check() != nil || e.Size > batchFileMax:
			errs = append(errs, c.Fetch(ctx, p, e, jobRef, t.of(e)))
		case c.store.Has(e.SHA256):
			t.add(e.Size)
			errs = append(errs, c.store.Hold(jobRef, e.SHA256))
		default:
			small = append(small, e)
		}
	}
	errs = append(errs, c.fetchBatches(ctx, p, small, jobRef, t)...)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("transfer.FetchAll from %s: %w", p, err)
	}
	return nil
}

// batchesAtOnce is how many batches of one FetchAll are under way at
// once: one receiving while the one before it commits.
const batchesAtOnce = 2

// fetchBatches cuts small into batches and fetches them, batchesAtOnce
// at a time.
func (c *Client) fetchBatches(ctx context.Context, p peer.ID, small []files.Entry, jobRef string, t *tally) []error {
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	slots := make(chan struct{}, batchesAtOnce)
	for len(small) > 0 {
		n, bytes := 0, int64(0)
		for n < len(small) && n < batchCount && bytes+small[n].Size <= batchBytes {
			bytes += small[n].Size
			n++
		}
		batch := small[:n]
		small = small[n:]
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			e := c.fetchBatch(ctx, p, batch, jobRef, t)
			mu.Lock()
			errs = append(errs, e...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return errs
}

// fetchBatch fetches es (sorted by sha256, so that batches claim their
// parts in one order and never wait on each other in a cycle) on one
// stream and commits what arrived whole.
func (c *Client) fetchBatch(ctx context.Context, p peer.ID, es []files.Entry, jobRef string, t *tally) []error {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return []error{ctx.Err()}
	}
	defer func() { <-c.sem }()
	var errs []error
	var parts []*cas.Part
	var want []files.Entry
	for _, e := range es {
		part, present, err := c.store.BeginPart(ctx, e.SHA256, e.Size, e.ChunkSize)
		switch {
		case err != nil:
			errs = append(errs, entryError(e, err))
		case present:
			t.add(e.Size)
			errs = append(errs, c.store.Hold(jobRef, e.SHA256))
		default:
			parts, want = append(parts, part), append(want, e)
		}
	}
	if len(parts) == 0 {
		return errs
	}
	done, sums, err := c.receiveBatch(ctx, p, want, jobRef, parts, t)
	errs = append(errs, err)
	var ready []*cas.Part
	var readySums []files.Sum
	for i, part := range parts {
		if done[i] {
			ready, readySums = append(ready, part), append(readySums, sums[i])
		} else {
			part.Close()
		}
	}
	for i, err := range c.store.CommitAll(jobRef, ready, readySums) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", readySums[i].SHA256, err))
		}
	}
	return errs
}

// receiveBatch asks for want from each part's verified prefix on and
// receives them in turn; done[i] says parts[i] is whole, checked and
// finished, with sums[i] its sum. The error joins the entries' errors.
func (c *Client) receiveBatch(ctx context.Context, p peer.ID, want []files.Entry, jobRef string, parts []*cas.Part, t *tally) (done []bool, sums []files.Sum, err error) {
	done, sums = make([]bool, len(want)), make([]files.Sum, len(want))
	req := Batch{JobRef: jobRef, Items: make([]Item, len(want))}
	for i, e := range want {
		sha, err := files.DecodeDigest(e.SHA256)
		if err != nil {
			return done, sums, err
		}
		req.Items[i] = Item{SHA256: sha, First: uint32(parts[i].Verified())}
	}
	b, err := encodeBatch(req)
	if err != nil {
		return done, sums, err
	}
	st, err := c.h.NewStream(ctx, p, Protocol)
	if err != nil {
		return done, sums, fmt.Errorf("open stream: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { _ = st.Reset() })
	defer stop()
	_ = st.SetDeadline(time.Now().Add(c.cfg.IdleTimeout))
	if _, err := st.Write(b); err != nil {
		_ = st.Reset()
		return done, sums, fmt.Errorf("send request: %w", err)
	}
	_ = st.CloseWrite()
	r := bufio.NewReaderSize(st, 64<<10)
	buf := cas.ChunkBuffer(int(batchFileMax))
	var errs []error
	for i, e := range want {
		_ = st.SetReadDeadline(time.Now().Add(c.cfg.IdleTimeout))
		if err = ctx.Err(); err == nil { // what is buffered still counts as cut
			sums[i], err = c.receiveOne(r, e, parts[i], buf, t)
		}
		var refused headerStatus
		switch {
		case err == nil:
			done[i] = true
			continue
		case errors.As(err, &refused):
			errs = append(errs, entryError(e, err)) // nothing followed its header
			continue
		}
		_ = st.Reset() // the rest of the stream is out of step
		if ctx.Err() != nil {
			return done, sums, errors.Join(append(errs, ctx.Err())...)
		}
		return done, sums, errors.Join(append(errs, entryError(e, err))...)
	}
	_ = st.Close()
	return done, sums, errors.Join(errs...)
}

// headerStatus is a header that said no: the stream goes on with the
// next blob.
type headerStatus struct{ err error }

func (h headerStatus) Error() string { return h.err.Error() }
func (h headerStatus) Unwrap() error { return h.err }

// receiveOne reads the header and the bytes of e from its part's
// verified prefix on, checks each chunk before it is written and the
// whole, and finishes the part.
func (c *Client) receiveOne(r io.Reader, e files.Entry, part *cas.Part, buf []byte, t *tally) (files.Sum, error) {
	h, err := readHeader(r, e.Chunks())
	if err != nil {
		return files.Sum{}, err
	}
	if err := statusError(h); err != nil {
		return files.Sum{}, headerStatus{err}
	}
	if h.Size != e.Size || h.ChunkSize != e.ChunkSize || files.ChunkRoot(h.ChunkSize, h.Chunks) != e.ChunkRoot {
		return files.Sum{}, fmt.Errorf("%w: the chunk list sent does not match the entry's chunk_root", files.ErrCorrupt)
	}
	whole := sha256.New()
	if err := rehash(part, h, whole, buf); err != nil {
		return files.Sum{}, err
	}
	for i := part.Verified(); i < e.Chunks(); i++ {
		b := buf[:min(e.ChunkSize, e.Size-i*e.ChunkSize)]
		n, err := io.ReadFull(r, b)
		c.received.Add(int64(n))
		if err != nil {
			return files.Sum{}, fmt.Errorf("chunk %d: %w", i, err)
		}
		if sha256.Sum256(b) != h.Chunks[i] {
			return files.Sum{}, fmt.Errorf("%w: chunk %d of %d", files.ErrCorrupt, i, len(h.Chunks))
		}
		if err := part.WriteChunk(i, b); err != nil {
			return files.Sum{}, err
		}
		whole.Write(b)
	}
	if got := hex.EncodeToString(whole.Sum(nil)); got != e.SHA256 {
		part.Discard()
		return files.Sum{}, fmt.Errorf("%w: the whole file hashes to %s", files.ErrCorrupt, got)
	}
	t.add(e.Size)
	return files.Sum{Size: e.Size, SHA256: e.SHA256, ChunkSize: e.ChunkSize, Chunks: h.Chunks}, part.Finish()
}

func entryError(e files.Entry, err error) error {
	return fmt.Errorf("%s (%s): %w", e.Path, e.SHA256, err)
}

// tally adds up the verified bytes of a FetchAll for its progress.
type tally struct {
	mu          sync.Mutex
	done, total int64
	progress    func(done, total int64)
}

func newTally(es []files.Entry, progress func(done, total int64)) *tally {
	t := &tally{progress: progress}
	for _, e := range es {
		t.total += e.Size
	}
	return t
}

func (t *tally) add(n int64) {
	if t.progress == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done += n
	t.progress(t.done, t.total)
}

// of is a progress callback for one entry's Fetch.
func (t *tally) of(e files.Entry) func(done, total int64) {
	var last int64
	return func(done, _ int64) {
		t.add(done - last)
		last = done
	}
}
