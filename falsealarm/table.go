package falsealarm

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/perfbot/perfbot/store"
)

// WriteTable prints marks as a table, one mark a row.
func WriteTable(w io.Writer, marks []store.FalseAlarm) error {
	if len(marks) == 0 {
		_, err := fmt.Fprintln(w, "no verdict is marked a false alarm")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tBENCHMARK\tUNIT\tVERDICT\tCHANGE\tHOST\tBY\tVENUE\tWHEN\tREASON")
	for _, m := range marks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%+.1f%%\t%s\t%s\t%s\t%s\t%s\n", strconv.FormatInt(m.RunID, 10), RowName(m.Key), m.Key.Unit,
			m.Verdict, m.DeltaPct, m.Host, m.By, m.Venue, m.At.UTC().Format(time.DateTime), m.Reason)
	}
	return tw.Flush()
}

// RowName is a benchmark with its parameters, for tables.
func RowName(k store.NoiseKey) string {
	if k.Params == "" || k.Params == "{}" || k.Params == "null" {
		return k.Benchmark
	}
	return k.Benchmark + " " + k.Params
}
