package transfer

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/hyphae-run/hyphae/files/cas"
	"github.com/hyphae-run/hyphae/internal/lifecycle"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
)

// Server serves the blobs of a store on a libp2p host to the peers its
// Authorizer allows.
type Server struct {
	h     host.Host
	store *cas.Store
	auth  Authorizer
	cfg   Config
	sem   chan struct{}
	g     lifecycle.Group
	ctx   context.Context
	stats serverStats
}

type serverStats struct {
	transfers, active, refused, busy, notFound, bytes atomic.Int64
}

// Stats counts what a Server did.
type Stats struct {
	Transfers   int64 // requests answered ok
	Active      int64 // of which still sending
	Refused     int64 // refused by the Authorizer
	Busy        int64 // answered busy
	NotFound    int64 // for a blob not in the store
	BytesServed int64 // content bytes written to streams (not headers)
	// BytesFetched is not the Server's: the content bytes this agent's
	// Client read (Client.BytesReceived), for whoever reports both.
	BytesFetched int64
}

// Serve starts serving store on h under Protocol; Shutdown stops it.
func Serve(h host.Host, store *cas.Store, auth Authorizer, cfg Config) (*Server, error) {
	if auth == nil {
		return nil, errors.New("transfer.Serve: no Authorizer")
	}
	cfg = cfg.withDefaults()
	s := &Server{h: h, store: store, auth: auth, cfg: cfg, sem: make(chan struct{}, cfg.MaxParallel)}
	ctx, err := s.g.Start(context.Background())
	if err != nil {
		return nil, fmt.Errorf("transfer.Serve: %w", err)
	}
	s.ctx = ctx
	h.SetStreamHandler(Protocol, s.handle)
	return s, nil
}

// Stats returns the server's counts.
func (s *Server) Stats() Stats {
	return Stats{
		Transfers: s.stats.transfers.Load(), Active: s.stats.active.Load(), Refused: s.stats.refused.Load(), Busy: s.stats.busy.Load(),
		NotFound: s.stats.notFound.Load(), BytesServed: s.stats.bytes.Load(),
	}
}

// Shutdown stops taking streams, resets those under way and waits for
// their goroutines, or for ctx. It is safe to call twice.
func (s *Server) Shutdown(ctx context.Context) error {
	s.h.RemoveStreamHandler(Protocol)
	return s.g.Shutdown(ctx)
}

// Close is Shutdown without a deadline.
func (s *Server) Close() error { return s.Shutdown(context.Background()) }

func (s *Server) handle(st network.Stream) {
	if !s.g.Enter() {
		_ = st.Reset()
		return
	}
	defer s.g.Leave()
	stop := context.AfterFunc(s.ctx, func() { _ = st.Reset() })
	defer stop()
	if err := s.serve(st); err != nil {
		s.cfg.Log.Debug("files: transfer ended", "peer", st.Conn().RemotePeer(), "err", err)
		_ = st.Reset()
		return
	}
	_ = st.Close()
}

// serve answers one request; a nil error closes the stream, any other
// resets it.
func (s *Server) serve(st network.Stream) error {
	_ = st.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
	w := deadlineWriter{st, s.cfg.IdleTimeout}
	req, single, err := readAnyRequest(st)
	if err != nil {
		_ = s.answer(w, StatusBadRequest, err.Error())
		return err
	}
	if !single {
		return s.serveBatch(st, req)
	}
	it := req.Items[0]
	sha := hex.EncodeToString(it.SHA256[:])
	if err := s.allow(st, sha, req.JobRef); err != nil {
		s.stats.refused.Add(1)
		return s.answer(w, StatusRefused, err.Error())
	}
	release, ok := s.acquire()
	if !ok {
		s.stats.busy.Add(1)
		return s.answer(w, StatusBusy, "no free transfer slot")
	}
	defer release()
	return s.sendBlob(w, sha, it.First)
}

// sendBlob answers with the header and the bytes of blob sha from chunk
// first on, or with a header that says why not (and a nil error).
func (s *Server) sendBlob(w io.Writer, sha string, first uint32) error {
	b, err := s.store.OpenBlob(sha)
	if err != nil {
		s.stats.notFound.Add(1)
		return s.answer(w, StatusNotFound, "blob "+sha+" is not here")
	}
	defer b.Close()
	if int64(first) > int64(len(b.Chunks)) {
		return s.answer(w, StatusBadRequest, fmt.Sprintf("chunk %d of %d", first, len(b.Chunks)))
	}
	s.stats.transfers.Add(1)
	s.stats.active.Add(1)
	defer s.stats.active.Add(-1)
	hdr := encodeHeader(Header{Status: StatusOK, Size: b.Size, ChunkSize: b.ChunkSize, Chunks: b.Chunks})
	if err := s.write(w, hdr); err != nil {
		return err
	}
	return s.send(w, b, int64(first)*b.ChunkSize)
}

// allow asks the Authorizer, for no longer than IdleTimeout.
func (s *Server) allow(st network.Stream, sha, jobRef string) error {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.IdleTimeout)
	defer cancel()
	return s.auth.Allow(ctx, st.Conn().RemotePeer(), sha, jobRef)
}

// answer sends a header that is not ok; the stream then ends.
func (s *Server) answer(w io.Writer, status Status, reason string) error {
	return s.write(w, encodeHeader(Header{Status: status, Reason: reason}))
}

func (s *Server) write(w io.Writer, b []byte) error {
	_, err := w.Write(b)
	return err
}

// deadlineWriter writes to a stream, each write due within idle.
type deadlineWriter struct {
	st   network.Stream
	idle time.Duration
}

func (d deadlineWriter) Write(b []byte) (int, error) {
	_ = d.st.SetWriteDeadline(time.Now().Add(d.idle))
	return d.st.Write(b)
}

// acquire takes a transfer slot, waiting up to QueueWait.
func (s *Server) acquire() (release func(), ok bool) {
	t := time.NewTimer(s.cfg.QueueWait)
	defer t.Stop()
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem }, true
	case <-t.C:
	case <-s.ctx.Done():
	}
	return nil, false
}

// send writes the blob from byte off to its end through one buffer.
func (s *Server) send(w io.Writer, b *cas.Blob, off int64) error {
	buf := make([]byte, min(sendBuffer, max(b.Size-off, 1)))
	for off < b.Size {
		n, err := b.ReadAt(buf[:min(int64(len(buf)), b.Size-off)], off)
		if err != nil && !(errors.Is(err, io.EOF) && n > 0) {
			return fmt.Errorf("read blob: %w", err)
		}
		if err := s.write(w, buf[:n]); err != nil {
			return err
		}
		s.stats.bytes.Add(int64(n))
		off += int64(n)
	}
	return nil
}
