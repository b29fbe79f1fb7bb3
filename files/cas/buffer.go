package cas

import "unsafe"

// directAlign is the alignment direct writes need of a buffer's address,
// a file offset and a length (the largest logical block size in use).
const directAlign = 4096

// ChunkBuffer returns a buffer of n bytes whose address suits direct
// writes: what a receiver reads chunks into before Part.WriteChunk, so
// that they go to disk without a copy into the page cache. Any buffer
// works; others are written through the page cache.
func ChunkBuffer(n int) []byte {
	b := make([]byte, n+directAlign)
	skip := (directAlign - int(uintptr(unsafe.Pointer(&b[0]))%directAlign)) % directAlign
	return b[skip : skip+n : skip+n]
}

// suitsDirect reports whether b written at off suits direct I/O.
func suitsDirect(b []byte, off int64) bool {
	return len(b) > 0 && len(b)%directAlign == 0 && off%directAlign == 0 &&
		uintptr(unsafe.Pointer(&b[0]))%directAlign == 0
}
