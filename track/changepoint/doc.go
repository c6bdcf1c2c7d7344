// Package changepoint finds the commits where a benchmark's history steps
// up or down.
//
// # Method
//
// The search is E-divisive means (Matteson and James, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data", JASA
// 2014), in the form MongoDB and Apache Otava (formerly Hunter) use on
// performance series (Fleming et al., "Hunter: Using Change Point Detection
// to Hunt for Performance Regressions", ICPE 2023):
//
//  1. Split. Within a segment [s, e) of the series, every split τ and end κ
//     (s < τ < κ <= e) is scored with the energy statistic
//     Q̂ = 2/(m+n)·Σ|X_i-Y_j| - 2m/((m+n)(n-1))·Σ|X_i-X_k| - 2n/((m+n)(m-1))·Σ|Y_j-Y_k|
//     of X = x[s:τ] (n points) against Y = x[τ:κ] (m points), exponent 1.
//     The best τ of the segment with the highest Q̂ becomes a candidate. It
//     is kept when a significance test of X against Y rejects "no change"
//     at a relaxed level (ten times Alpha below 0.05, as Otava does) after
//     a Bonferroni correction for the split positions it was chosen from,
//     and the search goes on in the two halves; the first candidate that
//     fails stops it.
//  2. Merge. Each kept point is tested again against its neighbours' segments
//     (x[prev:τ] against x[τ:next]); the weakest one (highest p-value, or,
//     when all are significant at Alpha, the smallest change) is dropped
//     and its neighbours retested, until every point is significant at
//     Alpha and at least MinChangePct large. (With Permutation, a point's
//     p-value stays the one its split had.)
//
// Why this method: it is nonparametric (distances, not a normal model),
// finds several changes in one pass, needs no window or expected count of
// changes, and has been run for years on noisy benchmark series at MongoDB
// and in Otava. Benchmark series are not normal and carry outliers, hence
// a rank-based test on whole segments; the minimum
// change and the median check keep single outliers and changes within a
// benchmark's usual noise from being reported.
//
// # Significance and size
//
// TTest (the default) is Student's two-sample t-test of the segments on
// either side, as in Hunter, computed on the ranks of their points (the
// rank-transform t-test of Conover and Iman, 1981, close to Mann-Whitney):
// an outlier weighs no more than any other point, and a few points a side
// cannot reach a small p-value by chance. Permutation is Matteson and
// James' own test: the points are shuffled within each segment Permutations times and the
// p-value is the share of shuffles whose best Q̂ reaches the candidate's.
// A point is reported only when its relative change is at least
// MinChangePct in both the segments' means and their medians, so one
// outlier cannot carry a change; callers raise MinChangePct to a
// benchmark's calibrated noise threshold (perfbot calibrate).
//
// Defaults: Alpha 0.001 (config.DefaultTrackAlpha), MinChangePct 5
// (config.DefaultTrackMinChangePct), MinSize 2 points a side,
// Permutations 199, Confidence 0.95 for the centres' intervals. A step
// needs about five points on its shorter side to reach p <= 0.001 on
// ranks; with fewer, raise Alpha.
//
// The centres are the segments' means with Student's t interval (package
// stats); DeltaPct is the change of the means.
//
// Points that are NaN or infinite are left out; indices in the answer
// always refer to the series as given. The cost is O(n²) time and memory
// per series: BenchmarkDetect1000 takes about 55 ms and BenchmarkDetect100
// about 0.3 ms on a loaded 2-core host.
package changepoint
