package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

func printTable(w io.Writer, cfg config, rows []tableRow) {
	fmt.Fprintf(w, "%d suites of %d benchmarks per scenario and change, %d samples per side, seed %d\n",
		cfg.suites, cfg.benchmarks, cfg.samples, cfg.seed)
	fmt.Fprintf(w, "no change: flagged per 100 comparisons, suites with >= 1 flag, called noisy\n")
	fmt.Fprintf(w, "change (%d of %d benchmarks slower): share of them flagged worse; unchanged ones flagged at 5%%\n\n",
		cfg.changed, cfg.benchmarks)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tmethod\tflagged/100\tsuites>=1\tnoisy\tdetect 1%\t2%\t5%\t10%\tfalse flags@5%\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.1f%%\t%.1f%%", r.scenario, r.method,
			100*float64(r.flagged)/float64(r.comparisons),
			100*float64(r.suitesFlagged)/float64(cfg.suites),
			100*float64(r.noisy)/float64(r.comparisons))
		for _, d := range r.detected {
			fmt.Fprintf(tw, "\t%.1f%%", 100*d)
		}
		fmt.Fprintf(tw, "\t%.2f%%\t\n", 100*r.wrongFlags[2])
	}
	tw.Flush()

	fmt.Fprintf(w, "\n5%% change detected, by the simulated benchmark's noise (log-scale sigma)\n\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "scenario\tmethod\t")
	for _, n := range tierNames {
		fmt.Fprintf(tw, "%s\t", n)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		total := 0
		for _, n := range r.tierN {
			total += n
		}
		if total == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t", r.scenario, r.method)
		for i := range r.tierN {
			fmt.Fprintf(tw, "%.1f%% of %d\t", 100*float64(r.tierHit[i])/float64(max(1, r.tierN[i])), r.tierN[i])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
