package files

import "errors"

// The errors of the component, wrapped with the operation and the path or
// blob they concern; test with errors.Is.
var (
	// ErrAbsolutePath: an output pattern or entry path is absolute.
	ErrAbsolutePath = errors.New("absolute path refused")
	// ErrOutsideDir: a path's ".." leaves the job's directory.
	ErrOutsideDir = errors.New("path leaves the job's directory")
	// ErrSymlinkEscape: a symlink on the way points outside the job's
	// directory (or, in a target directory, a symlink stands where a
	// folder of ours goes).
	ErrSymlinkEscape = errors.New("symlink leaves the job's directory")
	// ErrBadName: an empty, malformed or non-canonical name (a producer
	// that is not one path element, a NUL, a pattern path.Match refuses).
	ErrBadName = errors.New("bad file name")
	// ErrBadEntry: an entry whose size, digest or chunking is malformed.
	ErrBadEntry = errors.New("bad file entry")
	// ErrFileTooLarge: one file is past files.max_file_mb.
	ErrFileTooLarge = errors.New("file past files.max_file_mb")
	// ErrJobTooLarge: a job's files together are past files.max_job_mb.
	ErrJobTooLarge = errors.New("job's files past files.max_job_mb")
	// ErrStoreFull: the content store would pass its bound
	// (files.max_store_mb) even after pruning what no job holds.
	ErrStoreFull = errors.New("content store full")
	// ErrNotFound: the blob is not in the content store.
	ErrNotFound = errors.New("blob not found")
	// ErrCorrupt: bytes did not match their sha256 (a chunk, the chunk
	// list, or the whole file); nothing past the verified prefix is kept.
	ErrCorrupt = errors.New("content does not match its sha256")
	// ErrRefused: the serving agent refused the request (the trust rule);
	// the error carries its reason.
	ErrRefused = errors.New("transfer refused")
	// ErrBusy: the serving agent had no free transfer slot in time.
	ErrBusy = errors.New("transfer refused: server busy")
	// ErrProtocol: a malformed request or response on the stream.
	ErrProtocol = errors.New("files protocol error")
)
