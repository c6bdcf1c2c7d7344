// Package texttable writes the aligned text tables perfbot's commands
// print: a header row and rows of cells, in columns two spaces apart.
package texttable

import (
	"io"
	"strings"
	"text/tabwriter"
)

// Table is a table being written; Flush writes it out aligned.
type Table struct {
	tw *tabwriter.Writer
}

// New starts a table on w with the given column names.
func New(w io.Writer, header ...string) *Table {
	t := &Table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	t.Row(header...)
	return t
}

// Row adds a row. A tab or newline in a cell breaks its columns: callers
// keep such text on one line.
func (t *Table) Row(cells ...string) {
	_, _ = io.WriteString(t.tw, strings.Join(cells, "\t")+"\n")
}

// Flush aligns the rows and writes them out.
func (t *Table) Flush() error { return t.tw.Flush() }
