package cli

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// Files between jobs (docs/design.md): a job's files, listed and fetched.

func newJobFiles(g *globals) *cobra.Command {
	var asJSON bool
	var ctxFlag uint64
	cmd := &cobra.Command{
		Use:   "files [-c N] JOB",
		Short: "List a job's files: path, size, sha256, mode",
		Long: "List the files a job's outputs matched when it finished (job run --output, a flow job's outputs:), " +
			"and the agent that holds them.\n\n" + jobArgHelp,
		Example: `  hyphae job files -c 1 job:1:42
  hyphae job files -c 1 42 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, key, err := jobArgs(cmd, g, ctxFlag, args) // job_ref.go
			if err != nil {
				return err
			}
			var v wire.JobFilesView
			if err := g.call(cmd.Context(), "job.files", wire.JobRef{Context: id, Key: key}, &v); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			printFiles(cmd.OutOrStdout(), &v)
			return nil
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printFiles is a job's files as a table.
func printFiles(w io.Writer, v *wire.JobFilesView) {
	if len(v.Files) == 0 {
		fmt.Fprintf(w, "job %s (%s) has no files\n", v.Key, v.Status)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tSIZE\tMODE\tSHA256")
	for _, f := range v.Files {
		fmt.Fprintf(tw, "%s\t%s\t%04o\t%s\n", f.Path, humanBytes(f.Size), f.Mode, f.SHA256)
	}
	tw.Flush()
	if v.RanOn != "" {
		fmt.Fprintf(w, "held by %s\n", v.RanOn)
	}
}

func newJobGet(g *globals) *cobra.Command {
	var ctxFlag uint64
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get [-c N] JOB [PATH...] [-o DIR]",
		Short: "Fetch a job's files to this machine, from wherever it ran, checked by sha256",
		Long: "Fetch the files of a job (all, or the PATHs given: a file, or a folder of them) into DIR " +
			"(default: the current directory), from the agent that ran it, each checked by sha256 before it " +
			"gets its name. A progress line shows on a terminal.\n\n" + jobArgHelp,
		Example: `  hyphae job get -c 1 job:1:42
  hyphae job get -c 1 42 db.sql.gz -o /srv/restore`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, key, err := jobArgs(cmd, g, ctxFlag, args[:1])
			if err != nil {
				return err
			}
			var v wire.JobFilesView
			if err := g.call(cmd.Context(), "job.fetch", wire.JobRef{Context: id, Key: key}, &v); err != nil {
				return err
			}
			want, err := pickFiles(v.Files, args[1:])
			if err != nil {
				return err
			}
			var got []gotFile
			for _, f := range want {
				dst, err := getFile(cmd, g.client(), &v, f, out)
				if err != nil {
					return err
				}
				got = append(got, gotFile{FileView: f, Local: dst})
				if !asJSON {
					fmt.Fprintf(cmd.OutOrStdout(), "%s  %s  %s\n", f.SHA256, humanBytes(f.Size), dst)
				}
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), got)
			}
			return nil
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the files fetched as JSON (path, size, sha256, mode, local)")
	cmd.Flags().StringVarP(&out, "output", "o", ".", "the directory the files go to (their paths below it)")
	return cmd
}

// pickFiles is the files paths name (a file, or a folder: every file
// under it); all of them with no paths. A path that names none is an error.
func pickFiles(all []wire.FileView, paths []string) ([]wire.FileView, error) {
	if len(paths) == 0 {
		if len(all) == 0 {
			return nil, failed("the job has no files")
		}
		return all, nil
	}
	var out []wire.FileView
	for _, p := range paths {
		p = strings.TrimSuffix(path.Clean(filepath.ToSlash(p)), "/")
		n := len(out)
		for _, f := range all {
			if f.Path == p || strings.HasPrefix(f.Path, p+"/") {
				out = append(out, f)
			}
		}
		if len(out) == n {
			return nil, failed("the job has no file %s (hyphae job files lists them)", p)
		}
	}
	return out, nil
}

// gotFile is one file job get fetched, and where it went.
type gotFile struct {
	wire.FileView
	Local string `json:"local"`
}

// getFile streams f into dir/<f.Path>: a temporary file, checked by
// sha256, then renamed. It returns the file's path here.
func getFile(cmd *cobra.Command, c *api.Client, v *wire.JobFilesView, f wire.FileView, dir string) (string, error) {
	if err := files.CheckPath(f.Path); err != nil {
		return "", failed("%v", err)
	}
	body, err := c.Stream(cmd.Context(), fmt.Sprintf("/files/%d/%s/%s", v.Context, v.Key, f.SHA256))
	if err != nil {
		return "", failed("%s: %v", f.Path, err)
	}
	defer body.Close()
	dst := filepath.Join(dir, filepath.FromSlash(f.Path))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", failed("%s: %v", f.Path, err)
	}
	tmp := fmt.Sprintf("%s.part-%s", dst, rand.Text()[:8])
	w, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", failed("%s: %v", f.Path, err)
	}
	defer os.Remove(tmp) // gone once renamed
	h := sha256.New()
	prog := newProgress(cmd.ErrOrStderr(), f.Path, f.Size)
	n, err := io.Copy(io.MultiWriter(w, h, prog), body)
	prog.done()
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	switch got := hex.EncodeToString(h.Sum(nil)); {
	case err != nil:
		return "", failed("%s: %v", f.Path, err)
	case n != f.Size || got != f.SHA256:
		return "", failed("%s: %d bytes with sha256 %s, want %d with %s: not kept", f.Path, n, got, f.Size, f.SHA256)
	}
	if err := os.Chmod(tmp, os.FileMode(f.Mode&0o777)); err != nil {
		return "", failed("%s: %v", f.Path, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return "", failed("%s: %v", f.Path, err)
	}
	return dst, nil
}

// progress is a line on a terminal that says how much of a file came; on
// anything else it writes nothing.
type progress struct {
	w          io.Writer
	name       string
	total, got int64
	last       time.Time
}

func newProgress(w io.Writer, name string, total int64) *progress {
	if !isTerminal(w) {
		w = nil
	}
	return &progress{w: w, name: name, total: total}
}

func (p *progress) Write(b []byte) (int, error) {
	p.got += int64(len(b))
	if p.w != nil && time.Since(p.last) > 100*time.Millisecond {
		p.last = time.Now()
		p.line()
	}
	return len(b), nil
}

func (p *progress) line() {
	pct := 100
	if p.total > 0 {
		pct = int(p.got * 100 / p.total)
	}
	fmt.Fprintf(p.w, "\r%s  %s / %s  %3d%%", p.name, humanBytes(p.got), humanBytes(p.total), pct)
}

func (p *progress) done() {
	if p.w != nil {
		p.line()
		fmt.Fprintln(p.w)
	}
}

// printJobFiles is the files lines of a job's status (none without files).
func printJobFiles(w io.Writer, j *wire.JobView) {
	for i, f := range j.Files {
		if i == 0 {
			fmt.Fprintf(w, "  files: (hyphae job get -c %d %s)\n", j.ContextID, j.Key)
		}
		fmt.Fprintf(w, "    %s  %s  %04o  sha256 %s\n", f.Path, humanBytes(f.Size), f.Mode, f.SHA256)
	}
}

// uploadInputs ships --input FILE[:NAME] files to the agent (POST /files)
// and names them as the job's inputs: in/NAME (default FILE's base name).
func uploadInputs(cmd *cobra.Command, g *globals, specs []string) ([]wire.InputParam, error) {
	var out []wire.InputParam
	for _, spec := range specs {
		file, name, ok := strings.Cut(spec, ":")
		if !ok {
			name = filepath.Base(file)
		}
		if err := files.CheckPath(name); err != nil || file == "" {
			return nil, usage("--input %q: want FILE or FILE:NAME, NAME a relative path under in/", spec)
		}
		in, err := uploadOne(cmd, g, file, name)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

func uploadOne(cmd *cobra.Command, g *globals, file, name string) (wire.InputParam, error) {
	f, err := os.Open(file)
	if err != nil {
		return wire.InputParam{}, usage("--input: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return wire.InputParam{}, usage("--input %s: not a regular file", file)
	}
	prog := newProgress(cmd.ErrOrStderr(), file, fi.Size())
	b, err := g.client().Upload(cmd.Context(), "/files", io.TeeReader(f, prog))
	prog.done()
	if err != nil {
		return wire.InputParam{}, failed("--input %s: %v", file, g.explain(err))
	}
	var v wire.UploadView
	if err := json.Unmarshal(b, &v); err != nil {
		return wire.InputParam{}, failed("--input %s: the agent answered %q", file, b)
	}
	return wire.InputParam{Name: name, SHA256: v.SHA256, Token: v.Token, Mode: uint32(fi.Mode().Perm())}, nil
}
