#!/bin/sh
# sidebyside.sh times `perfbot report` (both verdict methods) against
# benchstat on the same synthetic Go benchmark input, in alternating runs
# under /usr/bin/time -v, and prints each run and the medians of wall time,
# CPU time and peak resident memory, with the load average before and after.
#
# Usage (from the repository root):
#
#	internal/benchgen/sidebyside.sh [BENCHMARKS [ROUNDS]]
#
# BENCHMARKS is the number of distinct benchmarks a side (default 10000:
# 10 samples x 3 units each, about 13 MB a side; 78000 makes about 100 MB a
# side). ROUNDS is the number of runs of each command (default 5).
# benchstat is installed into a temporary GOBIN unless BENCHSTAT names it.
set -eu
n=${1:-10000}
rounds=${2:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ -z "${BENCHSTAT:-}" ]; then
	GOBIN=$dir/bin go install golang.org/x/perf/cmd/benchstat@latest
	BENCHSTAT=$dir/bin/benchstat
fi
go build -o "$dir/perfbot" ./cmd/perfbot
go run ./internal/benchgen/cmd/benchgen -n "$n" -count 10 >"$dir/base.txt"
go run ./internal/benchgen/cmd/benchgen -n "$n" -count 10 -candidate -seed 2 >"$dir/cand.txt"
size=$(cat "$dir/base.txt" "$dir/cand.txt" | wc -c)
echo "input: $n benchmarks x 10 samples x 3 units a side, $size bytes in all"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$dir"
: >runs
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	for tool in benchstat perfbot perfbot-benchstat; do
		case $tool in
		benchstat) set -- "$BENCHSTAT" base.txt cand.txt ;;
		perfbot) set -- ./perfbot report base.txt cand.txt ;;
		perfbot-benchstat) set -- ./perfbot report --method benchstat base.txt cand.txt ;;
		esac
		/usr/bin/time -v "$@" >/dev/null 2>time.txt || { cat time.txt; exit 1; }
		# Elapsed is h:mm:ss or m:ss.ss; user and system are seconds.
		awk -v tool="$tool" -v run="$i" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
			/User time/ { u = $NF }
			/System time/ { s = $NF }
			/Elapsed \(wall clock\)/ { k = split($NF, p, ":"); w = 0; for (j = 1; j <= k; j++) w = w * 60 + p[j] }
			/Maximum resident/ { m = $NF / 1024 }
			END { printf "%s %d %.2f %.2f %.1f %s\n", tool, run, w, u + s, m, load }' time.txt >>runs
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "tool run wall_s cpu_s maxrss_MiB load1"
cat runs
echo
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bw=$(awk '$1 == "benchstat" { print $3 }' runs | median)
bc=$(awk '$1 == "benchstat" { print $4 }' runs | median)
bm=$(awk '$1 == "benchstat" { print $5 }' runs | median)
mb=$(echo "$size" | awk '{ print $1 / 1048576 }')
printf "%-18s %8s %8s %10s %10s %9s %9s %9s\n" command wall_s cpu_s maxrss_MiB s_per_MB x_wall x_cpu x_rss
for tool in benchstat perfbot perfbot-benchstat; do
	w=$(awk -v t=$tool '$1 == t { print $3 }' runs | median)
	c=$(awk -v t=$tool '$1 == t { print $4 }' runs | median)
	m=$(awk -v t=$tool '$1 == t { print $5 }' runs | median)
	awk -v t=$tool -v w="$w" -v c="$c" -v m="$m" -v bw="$bw" -v bc="$bc" -v bm="$bm" -v mb="$mb" 'BEGIN {
		printf "%-18s %8.2f %8.2f %10.1f %10.4f %9.2f %9.2f %9.2f\n", t, w, c, m, w / mb, w / bw, c / bc, m / bm }'
done
