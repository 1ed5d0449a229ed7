#!/bin/sh
# bench/targets.sh FILE - the end of make bench: every target the run's
# benchmarks judged (bench_target() in bench/bench.h appends them to FILE,
# one per line: verdict, benchmark, target, figures), in one table, and
# how many were met.
f=$1
if [ ! -s "$f" ]; then
	echo "no target was judged in this run ($f is empty)"
	exit 0
fi
echo
echo "=== every target of this run (medians; the figures each was judged on)"
awk -F '\t' '
	{ printf "  %-8s %-18s %s\n  %-8s %-18s   %s\n", $1, $2, $3, "", "", $4
	  n++; if ($1 == "met") m++ }
	END { printf "%d of %d targets met\n", m, n }' "$f"
