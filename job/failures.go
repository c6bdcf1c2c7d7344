package job

import (
	"fmt"
	"io"
	"strings"
)

// Failures lists the comparison's failures on one line, each as
// "VARIANT STAGE: MESSAGE", separated by "; ".
func (o *Outcome) Failures() string {
	var msgs []string
	for _, f := range o.Comparison.Failures {
		msgs = append(msgs, f.Variant+" "+f.Stage+": "+f.Message)
	}
	return strings.Join(msgs, "; ")
}

// WriteFailures writes a line to w for each build, benchmark or side that
// failed: "perfbot: VARIANT STAGE: MESSAGE".
func (o *Outcome) WriteFailures(w io.Writer) {
	for _, fl := range o.Comparison.Failures {
		fmt.Fprintf(w, "perfbot: %s %s: %s\n", fl.Variant, fl.Stage, fl.Message)
	}
}
