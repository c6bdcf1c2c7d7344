package job

import "strings"

// Failures lists the comparison's failures on one line, each as
// "VARIANT STAGE: MESSAGE", separated by "; ".
func (o *Outcome) Failures() string {
	var msgs []string
	for _, f := range o.Comparison.Failures {
		msgs = append(msgs, f.Variant+" "+f.Stage+": "+f.Message)
	}
	return strings.Join(msgs, "; ")
}
