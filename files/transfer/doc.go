// Package transfer moves blobs of the content store (files/cas) between
// agents over a libp2p stream protocol of its own, Protocol
// (/hyphae/files/1.0.0), never over gossipsub (docs/design.md, "Files
// between jobs"). A Server answers requests for the blobs an Authorizer
// allows; a Client fetches entries (Fetch, one; FetchAll, many, the
// small ones many to a stream), verified per chunk, resumed from the
// last verified chunk after a cut, a kill or a restart of either side.
//
// # Wire format
//
// One stream carries one request and its answer: a one-blob request, or
// a batch request answered blob after blob. All integers are
// big-endian.
//
// The request, from the fetching agent, 42 to 297 bytes, then the
// fetcher closes its side for writing:
//
//	magic    3 bytes   "hyf"
//	version  1 byte    1
//	sha256   32 bytes  the blob wanted
//	first    4 bytes   the first chunk wanted (0: all; a resume sends its
//	                   count of verified chunks)
//	reflen   2 bytes   length of the job ref, 1 to MaxJobRef (255)
//	jobref   reflen    the job the blob is for (the Authorizer judges it)
//
// The response header, from the serving agent:
//
//	magic    3 bytes   "hyf"
//	version  1 byte    1
//	status   1 byte    0 ok, 1 refused, 2 not found, 3 busy, 4 bad request
//
// then, when the status is not ok, the reason, and the stream ends:
//
//	n        2 bytes   length of the reason, at most MaxReason (255)
//	reason   n bytes   UTF-8, for the fetcher's error message
//
// or, when it is ok, the blob's chunking and the bytes:
//
//	size     8 bytes   the blob's size
//	chunk    4 bytes   chunk size, files.MinChunkSize to files.MaxChunkSize
//	hashes   32 × ceil(size / chunk) bytes: the sha256 of every chunk
//	bytes    the blob from byte first × chunk to its end, raw
//
// A batch request (FetchAll's files of at most one default chunk) asks
// for several blobs for one job, 8 + reflen + 36 × count bytes:
//
//	magic    3 bytes   "hyf"
//	version  1 byte    2 (a batch; a server that speaks only 1 answers
//	                   bad request)
//	reflen   2 bytes   length of the job ref, 1 to MaxJobRef
//	jobref   reflen    the job the blobs are for
//	count    2 bytes   1 to MaxBatch (1024)
//	count ×  36 bytes  sha256 (32) and first (4) of each blob, as above
//
// The server takes one transfer slot for the batch (or answers busy once
// and ends the stream), then answers each blob in order with a response
// header (version 1, as above), followed by its chunking and bytes when
// it is ok; a refused, missing or bad blob has its header only, and the
// next follows.
//
// The server closes the stream after the last byte. The fetcher checks
// the size, chunk size and hashes against its entry (files.Entry
// ChunkRoot) before it reads a byte of content, each chunk against its
// hash before the chunk is written to the part (files/cas), and the whole
// file against the entry's sha256 before it is named. A chunk that does
// not match ends the fetch with files.ErrCorrupt and is not written.
//
// # Trust and limits
//
// The server asks its Authorizer before it sends anything: a refusal
// sends the refusal header only, and nothing is written on either side
// (the fetcher makes its part at the first verified chunk). Transfers in
// parallel are bounded on both sides (Config.MaxParallel; a batch is one
// transfer): a server with no free slot within Config.QueueWait answers
// busy. The parts of a batch are named together (cas.Store.CommitAll:
// two syncs of the file system for the batch, not three for each file);
// a batch cut short keeps each blob's verified part for the next fetch. Both copy through a
// buffer of one chunk, so memory does not grow with file size (the chunk
// list takes 32 bytes a chunk). A stream idle for Config.IdleTimeout
// ends.
package transfer
