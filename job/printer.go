package job

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/perfbot/perfbot/internal/safetext"
)

// Printer prints a job's progress and the runner's lines for a person: on
// a terminal, one status line updated in place with the runner's lines
// printed above it; elsewhere, one line per build and per round. The
// runner's lines and the names in the status line come from the outside:
// their control characters are shown as escapes (safetext.Terminal),
// never sent to the terminal.
type Printer struct {
	mu     sync.Mutex
	w      io.Writer
	lines  *safetext.Writer
	tty    bool
	status string
	last   string
}

// IsTerminal reports whether w is a terminal, where a Printer updates one
// line in place.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ShowProgress prints o's progress and the runner's lines on w: one line
// updated in place on a terminal, a line per round elsewhere. The
// function it returns ends the updating line.
func (o *Options) ShowProgress(w io.Writer) (done func()) {
	p := NewPrinter(w, IsTerminal(w))
	o.Progress, o.Log = p.Progress, p
	return p.Done
}

// NewPrinter prints to w; tty says whether w is a terminal.
func NewPrinter(w io.Writer, tty bool) *Printer {
	return &Printer{w: w, lines: safetext.NewTerminal(w), tty: tty}
}

// Progress is a ProgressFunc.
func (p *Printer) Progress(pr Progress) {
	line := "perfbot: " + safetext.Terminal(strings.ReplaceAll(Describe(pr), "\n", " "))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		p.status = line
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	// One line per round: the sides of a round share it.
	round := fmt.Sprint(pr.Stage, pr.Suite, pr.Round)
	if pr.Stage == "build" {
		round += pr.Variant
	}
	if round == p.last {
		return
	}
	p.last = round
	fmt.Fprintln(p.w, line)
}

// Write prints the runner's lines, above the status line on a terminal.
func (p *Printer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.tty || p.status == "" {
		return p.lines.Write(b)
	}
	fmt.Fprint(p.w, "\r\033[K")
	n, err := p.lines.Write(b)
	fmt.Fprint(p.w, p.status)
	return n, err
}

// Done ends the status line, so that what follows starts on a line of
// its own.
func (p *Printer) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines.Flush()
	if p.tty && p.status != "" {
		fmt.Fprint(p.w, "\r\033[K")
		p.status = ""
	}
}

// Describe says in words where a job is:
// "suite go: round 3 of 10, patch; 1m12s elapsed, about 2m left".
func Describe(p Progress) string {
	var b strings.Builder
	if p.Suite != "" {
		fmt.Fprintf(&b, "suite %s: ", p.Suite)
	}
	switch {
	case p.Stage == "build":
		fmt.Fprintf(&b, "building %s", p.Variant)
	case p.Round > 0 && p.Stage == "warm-up":
		fmt.Fprintf(&b, "warm-up %d of %d", p.Round, p.Rounds)
	case p.Round > 0:
		fmt.Fprintf(&b, "round %d of %d", p.Round, p.Rounds)
	default:
		b.WriteString(p.Stage)
	}
	if p.Round > 0 && p.Variant != "" {
		fmt.Fprintf(&b, ", %s", p.Variant)
	}
	fmt.Fprintf(&b, "; %s elapsed", roundDuration(p.Elapsed))
	if p.Remaining > 0 {
		fmt.Fprintf(&b, ", about %s left", roundDuration(p.Remaining))
	}
	return b.String()
}

// roundDuration rounds a duration for people: seconds under ten minutes,
// minutes above.
func roundDuration(d time.Duration) time.Duration {
	if d >= 10*time.Minute {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// progressPrefix starts each progress line a job process writes on its
// standard error (WriteProgress) for its parent to follow.
const progressPrefix = "perfbot-progress "

// WriteProgress returns a ProgressFunc writing each step to w as a JSON
// line, which ParseProgress reads back.
func WriteProgress(w io.Writer) ProgressFunc {
	var mu sync.Mutex
	return func(p Progress) {
		b, err := json.Marshal(p)
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		w.Write(append(append([]byte(progressPrefix), b...), '\n'))
	}
}

// ParseProgress reads a line WriteProgress wrote; ok is false for any
// other line.
func ParseProgress(line []byte) (p Progress, ok bool) {
	rest, found := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte(progressPrefix))
	if !found || json.Unmarshal(rest, &p) != nil {
		return Progress{}, false
	}
	return p, true
}
