package executor

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Names of the output.log's tail segments in the job directory while a
// capped job runs; they are folded into output.log when it ends.
const (
	outputTail     = outputLog + ".tail"
	outputTailPrev = outputLog + ".tail.1"
)

// capFile is a job's output.log, capped at max bytes as logcap.go says:
// the first half of max goes to output.log as it comes; past it, lines go
// to a tail segment, and a segment that reaches a quarter of max replaces
// the previous one (the oldest lines are dropped), so the newest quarter
// to half is kept. When the job ends, close appends the marker and the
// two segments to output.log and removes them. While the job runs and
// after, the directory holds at most max bytes of output (a line more at
// a segment's end). Not safe for concurrent use (logSink holds its mutex).
type capFile struct {
	dir  string
	max  int64
	head *os.File
	w    *bufio.Writer
	size int64 // bytes in output.log

	seg        *os.File // output.log.tail, once past the head
	segW       *bufio.Writer
	segSize    int64
	segLines   int64
	prevSize   int64 // output.log.tail.1; -1 when there is none
	prevLines  int64
	dropped    int64 // lines of segments replaced
	droppedB   int64
	tailing    bool // past the head
	tailFailed bool // a segment could not be written: further lines are dropped
}

func openCapFile(dir string, max int64) (*capFile, error) {
	f, err := os.OpenFile(filepath.Join(dir, outputLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &capFile{dir: dir, max: max, head: f, w: bufio.NewWriterSize(f, 16<<10), prevSize: -1}, nil
}

// line writes s and a newline.
func (f *capFile) line(s string) {
	n := int64(len(s)) + 1
	if !f.tailing && f.size+n <= f.max/2 {
		f.w.WriteString(s)
		f.w.WriteByte('\n')
		f.size += n
		return
	}
	f.tailing = true
	if f.tailFailed || !f.room(n) {
		f.dropped++
		f.droppedB += n
		return
	}
	f.segW.WriteString(s)
	f.segW.WriteByte('\n')
	f.segSize += n
	f.segLines++
}

// room makes sure a segment is open with room for n bytes, rotating a
// full one; false when the segment could not be opened.
func (f *capFile) room(n int64) bool {
	if f.seg != nil && (f.segSize == 0 || f.segSize+n <= f.max/4) {
		return true
	}
	if f.seg != nil {
		if err := f.closeSeg(); err != nil {
			f.tailFailed = true
			return false
		}
		if f.prevSize >= 0 {
			f.dropped += f.prevLines
			f.droppedB += f.prevSize
		}
		if err := os.Rename(f.path(outputTail), f.path(outputTailPrev)); err != nil {
			f.tailFailed = true
			return false
		}
		f.prevSize, f.prevLines = f.segSize, f.segLines
	}
	seg, err := os.OpenFile(f.path(outputTail), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		f.tailFailed = true
		return false
	}
	f.seg, f.segW, f.segSize, f.segLines = seg, bufio.NewWriterSize(seg, 16<<10), 0, 0
	return true
}

func (f *capFile) path(name string) string { return filepath.Join(f.dir, name) }

func (f *capFile) closeSeg() error {
	err := f.segW.Flush()
	if cerr := f.seg.Close(); err == nil {
		err = cerr
	}
	f.seg, f.segW = nil, nil
	return err
}

// flush writes what is buffered, so that the files show it.
func (f *capFile) flush() {
	_ = f.w.Flush()
	if f.segW != nil {
		_ = f.segW.Flush()
	}
}

// close folds the tail into output.log (the marker first when lines were
// dropped) and closes it.
func (f *capFile) close() error {
	var errs []error
	if f.seg != nil {
		errs = append(errs, f.closeSeg())
	}
	if f.dropped > 0 {
		f.w.WriteString(truncatedMarker(f.dropped, f.droppedB) + "\n")
	}
	if f.tailing {
		for _, name := range []string{outputTailPrev, outputTail} {
			errs = append(errs, f.append(name))
		}
	}
	errs = append(errs, f.w.Flush(), f.head.Close())
	return errors.Join(errs...)
}

// append copies segment name onto output.log and removes it.
func (f *capFile) append(name string) error {
	seg, err := os.Open(f.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = io.Copy(f.w, seg)
	seg.Close()
	return errors.Join(err, os.Remove(f.path(name)))
}
