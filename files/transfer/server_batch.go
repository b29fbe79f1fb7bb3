package transfer

import (
	"bufio"
	"encoding/hex"

	"github.com/libp2p/go-libp2p/core/network"
)

// serveBatch answers a batch request: one transfer slot for the whole
// batch (busy, and the stream ends, when there is none), then each blob
// in turn as a one-blob request is answered, a refused or missing one
// with its header only. Headers and small blobs go out through one
// buffer, not a stream write each.
func (s *Server) serveBatch(st network.Stream, req Batch) error {
	w := bufio.NewWriterSize(deadlineWriter{st, s.cfg.IdleTimeout}, sendBuffer)
	release, ok := s.acquire()
	if !ok {
		s.stats.busy.Add(1)
		_ = s.answer(w, StatusBusy, "no free transfer slot")
		return w.Flush()
	}
	defer release()
	for _, it := range req.Items {
		sha := hex.EncodeToString(it.SHA256[:])
		var err error
		if aerr := s.allow(st, sha, req.JobRef); aerr != nil {
			s.stats.refused.Add(1)
			err = s.answer(w, StatusRefused, aerr.Error())
		} else {
			err = s.sendBlob(w, sha, it.First)
		}
		if err != nil {
			return err
		}
	}
	return w.Flush()
}
