package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// A job's log is the plain list logs:<job key>, which seed clients read
// as it is. Beside it, logmeta:<job key> holds one entry per line at the
// same index: "<unix ms> <stream>", stream one of LogStdout, LogStderr or
// LogAgent (the agent's own notes, "[hyphae] …"). Both lists are written
// by one script, so their indexes stay aligned; a line written without
// its meta (an older runner, a seed client, the last lines a result
// brought home) has none: the meta list is padded with "" before the next
// entry that has one, and a reader reports such a line with no time and
// no stream.

// Streams of a log line.
const (
	LogStdout = "stdout"
	LogStderr = "stderr"
	LogAgent  = "agent"
)

// LogLine is a job's log line with when it was written and its stream
// ("" for both when unknown).
type LogLine struct {
	Text   string
	TimeMS int64  // unix milliseconds; 0 when unknown
	Stream string // LogStdout, LogStderr, LogAgent or ""
}

// LogMetaKey is logmeta:<job key>, the per-line time and stream of the
// job's log (see above).
func LogMetaKey(jobKey string) string { return "logmeta:" + jobKey }

// Meta is the line's meta entry: "<unix ms> <stream>".
func (l LogLine) Meta() string {
	return strconv.FormatInt(l.TimeMS, 10) + " " + l.Stream
}

// ParseLogMeta reads a meta entry made by Meta; ("", 0) for "" or junk.
func ParseLogMeta(m string) (ms int64, stream string) {
	a, b, ok := strings.Cut(m, " ")
	n, err := strconv.ParseInt(a, 10, 64)
	if !ok || err != nil {
		return 0, ""
	}
	return n, b
}

// NewLogLine is text written now on stream.
func NewLogLine(text, stream string) LogLine {
	return LogLine{Text: text, TimeMS: time.Now().UnixMilli(), Stream: stream}
}

// AppendLogLines is AppendLogs for lines with their time and stream: the
// plain lines go to logs:<job key> exactly as AppendLogs writes them (cap,
// marker, announcement), their meta to logmeta:<job key> at the same
// indexes.
func (s *Logs) AppendLogLines(ctx context.Context, ctxID uint64, jobKey string, lines []LogLine, max int) error {
	if len(lines) == 0 {
		return nil
	}
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.AppendLogLines: %w", err)
	}
	last := lines[len(lines)-1]
	marker := LogLine{TimeMS: last.TimeMS, Stream: LogAgent}
	args := make([]any, 0, 5+2*len(lines))
	args = append(args, max, LogChannel(ctxID, jobKey), LogCapMarker, marker.Meta(), len(lines))
	for _, l := range lines {
		args = append(args, l.Text)
	}
	for _, l := range lines {
		args = append(args, l.Meta())
	}
	err = appendLogMeta.Run(ctx, db, []string{LogKey(jobKey), LogMetaKey(jobKey)}, args...).Err()
	return scriptErr("store.AppendLogLines", err)
}

// appendLogMeta: see AppendLogLines.
// KEYS[1] logs:<job key>, KEYS[2] logmeta:<job key>. ARGV[1] cap (lines),
// ARGV[2] channel, ARGV[3] marker line, ARGV[4] the marker's meta, ARGV[5]
// n, ARGV[6..5+n] lines, ARGV[6+n..5+2n] their meta. Returns the log's
// length.
var appendLogMeta = newScript("appendLogMeta", luaAppendLines, `
local n = tonumber(ARGV[5])
local before = redis.call('LLEN', KEYS[1])
local after = appendLines(KEYS[1], tonumber(ARGV[1]), ARGV[2], ARGV[3], {unpack(ARGV, 6, 5 + n)})
local added = after - before
if added <= 0 then return after end
local have = redis.call('LLEN', KEYS[2])
while have < before do
  local pad = math.min(before - have, 500)
  local blanks = {}
  for i = 1, pad do blanks[i] = '' end
  redis.call('RPUSH', KEYS[2], unpack(blanks))
  have = have + pad
end
if have > before then redis.call('LTRIM', KEYS[2], 0, before - 1) end
local take = math.min(n, tonumber(ARGV[1]) - before) -- as appendLines takes them
if take > 0 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 6 + n, 5 + n + take)) end
if added > take then redis.call('RPUSH', KEYS[2], ARGV[4]) end
return after
`)

// ReadLogLines returns a job's log lines from index from on with their
// meta (read together, in one MULTI, so they match).
func (s *Logs) ReadLogLines(ctx context.Context, ctxID uint64, jobKey string, from int64) ([]LogLine, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ReadLogLines: %w", err)
	}
	var lc, mc *redis.StringSliceCmd
	_, err = db.TxPipelined(ctx, func(p redis.Pipeliner) error {
		lc = p.LRange(ctx, LogKey(jobKey), from, -1)
		mc = p.LRange(ctx, LogMetaKey(jobKey), from, -1)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store.ReadLogLines %s: %w", jobKey, err)
	}
	return JoinLogMeta(lc.Val(), mc.Val()), nil
}

// JoinLogMeta pairs lines with their meta entries (metas may be shorter:
// the rest have none).
func JoinLogMeta(lines, metas []string) []LogLine {
	out := make([]LogLine, len(lines))
	for i, t := range lines {
		out[i].Text = t
		if i < len(metas) {
			out[i].TimeMS, out[i].Stream = ParseLogMeta(metas[i])
		}
	}
	return out
}

// ReadLogMeta returns the meta entries of a job's log lines from index
// from to index to (inclusive; fewer, or none, when lines have none).
func (s *Logs) ReadLogMeta(ctx context.Context, ctxID uint64, jobKey string, from, to int64) ([]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ReadLogMeta: %w", err)
	}
	m, err := db.LRange(ctx, LogMetaKey(jobKey), from, to).Result()
	if err != nil {
		return nil, fmt.Errorf("store.ReadLogMeta %s: %w", jobKey, err)
	}
	return m, nil
}
