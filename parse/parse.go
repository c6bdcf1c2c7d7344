package parse

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/perfbot/perfbot/bench"
)

// A Parser reads one tool's output format.
type Parser interface {
	// Name is the format's name as given to --format, such as "gobench".
	Name() string
	// Sniff scores how much head, the first bytes of an input, looks like
	// this format: 0 for not at all, higher for a more certain match, at
	// most SniffCertain.
	Sniff(head []byte) int
	// Parse reads r, whose name (a file name) appears in errors, and calls
	// emit with each result in input order. It stops at the first error
	// emit returns. Parse reads its input as a stream and must not hold all
	// of it in memory.
	Parse(ctx context.Context, r io.Reader, name string, emit func(*bench.Result) error) error
}

// SyntaxError is malformed input: the file, the line and what was expected.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ErrNoResults is returned (wrapped) when an input held no benchmark results.
var ErrNoResults = errors.New("no benchmark results found")

// sniffSize is how much of an input Detect looks at.
const sniffSize = 64 << 10

// Formats returns every parser perfbot knows, in a stable order.
func Formats() []Parser {
	ps := []Parser{
		GoBench{},
		JMHText{},
		JMHLog{},
		JMHJSON{},
		JMHCSV{},
		YCSB{},
		GoYCSB{},
		HBasePE{},
		HBaseWAL{},
		PerfStat{},
		PerfStatCSV{},
		RedisBenchmark{},
		PGBench{},
		Hyperfine{},
		GBenchJSON{},
		GBench{},
		Criterion{},
		CriterionJSON{},
		Cachegrind{},
	}
	return ps
}

// Names returns the names of every format, sorted.
func Names() []string {
	var names []string
	for _, p := range Formats() {
		names = append(names, p.Name())
	}
	sort.Strings(names)
	return names
}

// Lookup returns the parser with the given name.
func Lookup(name string) (Parser, error) {
	for _, p := range Formats() {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown format %q (known: %s)", name, strings.Join(Names(), ", "))
}

// SniffCertain is the highest score Sniff gives: a format that certainly
// matches.
const SniffCertain = 100

// Detect picks the parser whose Sniff scores head highest, the first in
// Formats' order when several do: the first that scores SniffCertain ends
// the search.
func Detect(head []byte) (Parser, error) {
	var best Parser
	bestScore := 0
	for _, p := range Formats() {
		if s := p.Sniff(head); s > bestScore {
			best, bestScore = p, s
			if s >= SniffCertain {
				break
			}
		}
	}
	if best == nil {
		return nil, fmt.Errorf("cannot tell the format from the content (known formats: %s)", strings.Join(Names(), ", "))
	}
	return best, nil
}

// Reader parses r with the named format ("" or "auto" to detect it) and
// calls emit with each result.
func Reader(ctx context.Context, r io.Reader, name, format string, emit func(*bench.Result) error) error {
	return read(ctx, r, name, format, emit, false)
}

// Stream is Reader for a consumer that copies what it keeps of each result
// (compare.Collector does): the *bench.Result handed to emit, with its
// Samples and Params, is valid only during the call, and a parser may hand
// the same one again with other contents. The Go benchmark parser then
// reads a file of any size without allocating per line.
func Stream(ctx context.Context, r io.Reader, name, format string, emit func(*bench.Result) error) error {
	return read(ctx, r, name, format, emit, true)
}

func read(ctx context.Context, r io.Reader, name, format string, emit func(*bench.Result) error, transient bool) error {
	br := bufio.NewReaderSize(r, sniffSize)
	var p Parser
	if format == "" || format == "auto" {
		head, err := br.Peek(sniffSize)
		if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(bytes.TrimSpace(head)) == 0 {
			return fmt.Errorf("%s: empty input: %w", name, ErrNoResults)
		}
		p, err = Detect(head)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	} else {
		var err error
		if p, err = Lookup(format); err != nil {
			return err
		}
	}
	n := 0
	counted := func(r *bench.Result) error {
		n++
		return emit(r)
	}
	var err error
	if gb, ok := p.(GoBench); ok {
		err = gb.parse(ctx, br, name, counted, transient)
	} else {
		err = p.Parse(ctx, br, name, counted)
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%s: %s format: %w", name, p.Name(), ErrNoResults)
	}
	return nil
}

// Bytes parses data with the named format ("" or "auto" to detect it).
func Bytes(ctx context.Context, data []byte, name, format string) ([]*bench.Result, error) {
	var out []*bench.Result
	err := Reader(ctx, bytes.NewReader(data), name, format, func(r *bench.Result) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// File parses the file at path with the named format ("" or "auto" to
// detect it).
func File(ctx context.Context, path, format string) ([]*bench.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*bench.Result
	err = Reader(ctx, f, path, format, func(r *bench.Result) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// Path streams the file at path through the parser of format (see
// Reader); "-" reads standard input, named <stdin>.
func Path(ctx context.Context, path, format string, emit func(*bench.Result) error) error {
	if path == "-" {
		return Reader(ctx, os.Stdin, "<stdin>", format, emit)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return Reader(ctx, f, path, format, emit)
}
