// Package stats holds the statistical routines behind perfbot's verdicts:
// rank tests (Mann-Whitney U, Wilcoxon signed-rank), t-tests (Welch's, from
// samples or from a tool's summary, and paired), exact comparison of
// deterministic metrics, Benjamini-Hochberg false-discovery-rate control, a
// bootstrap interval for the geometric mean of ratios, minimum detectable
// effects, and noise thresholds learned from history.
//
// The routines are pure functions of their inputs. Where R has the same test
// the results equal R's: wilcox.test, t.test and p.adjust(method = "BH"), with
// R's defaults for choosing the exact or the approximate distribution. The
// tests name the R call and its output next to each reference value.
//
// Randomized routines take a *rand.Rand from the caller; the package keeps no
// state of its own.
package stats
