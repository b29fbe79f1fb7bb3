// Package files is the core of files between jobs (docs/design.md, "Files
// between jobs"): the manifest of a job's output files, the checks on
// their names and sizes, and putting them into (Build) and taking them
// out of (Materialise) a job's directory. It imports nothing of the
// project and no libp2p, so that the runner can build manifests without
// the overlay.
//
// The component has three floors:
//
//	files            manifest (Entry, Sum, Digester), names, limits, errors
//	files/cas        the content store: blobs named by sha256, partial
//	                 downloads, which job holds which blob, retention
//	files/transfer   the stream protocol /hyphae/files/1.0.0 on the libp2p
//	                 host: Server (serves blobs the Authorizer allows) and
//	                 Client (Fetch, FetchAll: resumable, verified per chunk)
//
// # Entries
//
// An Entry is one regular file of a job: its path relative to the job's
// directory (slash-separated), size, sha256 (hex), permission bits, and
// how a receiver checks it as it arrives: ChunkSize and ChunkRoot, the
// sha256 over the chunk size (8 bytes, big-endian) and the sha256 of
// every chunk, in order. The manifest stays small (no list of chunk
// hashes in the job's record); the sender sends the list before the
// bytes, the receiver checks it against ChunkRoot, then each chunk
// against its hash before the chunk joins the verified prefix, and the
// whole file against SHA256 before it becomes visible.
//
// # Names
//
// Output patterns and entry paths are relative and slash-separated: an
// absolute path is ErrAbsolutePath, a ".." that leaves the directory is
// ErrOutsideDir, a symlink whose target is outside it is ErrSymlinkEscape
// (in outputs, and in the target directory of Materialise); the file
// system is reached through os.Root, which refuses escapes at open time
// as well (so an absolute symlink is refused even when it points inside).
// Only regular files are recorded; symlinked directories are not
// followed, and dangling symlinks are skipped. Only permission bits travel (no setuid, setgid or sticky).
//
// # Limits
//
// Limits bounds one file (files.max_file_mb) and one job's files together
// (files.max_job_mb); past them Build and Materialise fail with
// ErrFileTooLarge or ErrJobTooLarge naming the path and the sizes, before
// anything is stored or written.
package files
