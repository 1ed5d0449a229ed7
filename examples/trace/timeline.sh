#!/bin/sh
# SPDX-License-Identifier: MIT
# Draw the trace demo's events as a timeline (one row per thread, a bar
# per request, a dot per cache miss) with gnuplot, from ulsm-trace --text.
#	timeline.sh TEXT PNG
text=$1 png=$2
data=$(mktemp)
trap 'rm -f "$data" "$data.m"' EXIT
# Rows: threads in order of appearance; bars from req_start to req_end.
awk '
	/^#/ { next }	# the process and its threads
	!($2 in row) { row[$2] = ++nrows }
	$3 == "req_start" { split($4, a, "="); start[a[2]] = $1 }
	$3 == "req_end"   { split($4, a, "="); split($5, s, "=");
			    if (a[2] in start) print start[a[2]] * 1000, $1 * 1000, row[$2], s[2] }
	$3 == "cache_miss" { print $1 * 1000, row[$2] > "'"$data"'.m" }
' "$text" > "$data"
gnuplot <<GP
set terminal pngcairo size 1000,300
set output "$png"
set title "trace_demo: requests per worker thread (ulsm recorder, ulsm-trace --text)" noenhanced
set xlabel "ms since the first event"
set ylabel "thread"
set yrange [0.3:3.7]
set ytics 1
unset key
plot "$data" using (\$1):3:(\$2-\$1):(0):(\$4 >= 500 ? 0xcc3333 : 0x3366cc) \
         with vectors nohead lw 12 lc rgb variable notitle, \
     "$data.m" using 1:2 with points pt 7 ps 0.6 lc rgb "black" notitle
GP
