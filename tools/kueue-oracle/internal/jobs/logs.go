package jobs

import (
	"fmt"
	"strings"
	"sync"

	"github.com/go-logr/logr"
)

// logLine is one line a reconciler logged (Info up to verbosity 3, or Error).
type logLine struct {
	msg string
	err error
	kv  []any
}

// logCapture is a logr sink that keeps what Kueue's reconcilers log while they reconcile one
// request: when they make no Workload, the last line says why, in Kueue's words ("queue-name
// label is not set, ignoring the job", "Namespace not opted in for Kueue management", ...).
type logCapture struct {
	mu    *sync.Mutex
	lines *[]logLine
	kv    []any
}

func newLogCapture() (logr.Logger, func() []logLine) {
	c := &logCapture{mu: &sync.Mutex{}, lines: &[]logLine{}}
	return logr.New(c), func() []logLine {
		c.mu.Lock()
		defer c.mu.Unlock()
		return append([]logLine(nil), *c.lines...)
	}
}

// maxVerbosity: Kueue logs why it ignores a job at V(2) and V(3); V(5) and above are traces.
const maxVerbosity = 3

func (c *logCapture) Init(logr.RuntimeInfo)        {}
func (c *logCapture) Enabled(level int) bool       { return level <= maxVerbosity }
func (c *logCapture) WithName(string) logr.LogSink { return c }

func (c *logCapture) WithValues(kv ...any) logr.LogSink {
	return &logCapture{mu: c.mu, lines: c.lines, kv: append(append([]any(nil), c.kv...), kv...)}
}

func (c *logCapture) Info(_ int, msg string, kv ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.lines = append(*c.lines, logLine{msg: msg, kv: kv})
}

func (c *logCapture) Error(err error, msg string, kv ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.lines = append(*c.lines, logLine{msg: msg, err: err, kv: kv})
}

// String renders a line as Kueue's message, with its error and the values that explain it.
func (l logLine) String() string {
	var b strings.Builder
	b.WriteString(l.msg)
	if l.err != nil {
		fmt.Fprintf(&b, ": %v", l.err)
	}
	for i := 0; i+1 < len(l.kv); i += 2 {
		key := fmt.Sprint(l.kv[i])
		if key == "error" {
			fmt.Fprintf(&b, ": %v", l.kv[i+1])
		}
	}
	return b.String()
}

// quietLines are lines every reconcile logs on its way: never the reason a job is ignored.
var quietLines = map[string]bool{
	"Reconciling Job":                           true,
	"Reconcile LeaderWorkerSet":                 true,
	"Reconcile StatefulSet":                     true,
	"stop walking up as the owner is not found": true,
	"stop walking up as the owner is not known": true,
}

// lastReason is the last line a reconcile logged that says something about the job.
func lastReason(lines []logLine) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if !quietLines[lines[i].msg] {
			return lines[i].String()
		}
	}
	return ""
}
