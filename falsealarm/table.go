package falsealarm

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/perfbot/perfbot/internal/texttable"
	"github.com/perfbot/perfbot/store"
)

// ListLimit is how many marks List shows of every run.
const ListLimit = 100

// List writes the marks of run runID, or the latest ListLimit of every
// run when runID is 0, as WriteTable does.
func List(ctx context.Context, w io.Writer, st *store.Store, runID int64) error {
	var marks []store.FalseAlarm
	var err error
	if runID != 0 {
		marks, err = st.FalseAlarmsOfRun(ctx, runID)
	} else {
		marks, err = st.FalseAlarms(ctx, ListLimit)
	}
	if err != nil {
		return err
	}
	return WriteTable(w, marks)
}

// WriteTable prints marks as a table, one mark a row.
func WriteTable(w io.Writer, marks []store.FalseAlarm) error {
	if len(marks) == 0 {
		_, err := fmt.Fprintln(w, "no verdict is marked a false alarm")
		return err
	}
	t := texttable.New(w, "RUN", "BENCHMARK", "UNIT", "VERDICT", "CHANGE", "HOST", "BY", "VENUE", "WHEN", "REASON")
	for _, m := range marks {
		t.Row(strconv.FormatInt(m.RunID, 10), RowName(m.Key), m.Key.Unit, m.Verdict, fmt.Sprintf("%+.1f%%", m.DeltaPct),
			m.Host, m.By, m.Venue, m.At.UTC().Format(time.DateTime), m.Reason)
	}
	return t.Flush()
}

// RowName is a benchmark with its parameters, for tables.
func RowName(k store.NoiseKey) string {
	if k.Params == "" || k.Params == "{}" || k.Params == "null" {
		return k.Benchmark
	}
	return k.Benchmark + " " + k.Params
}
