#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/lttng/session.sh BENCH [ARGS...]
#
# Runs "BENCH --lttng-enabled ARGS" inside an LTTng session that enables
# bench_tracepoint's event tpbench:on, so that LTTng-UST's enabled path
# (its probe writing each event into its ring buffer) is measured; make
# bench runs it after bench_tracepoint's main run.
#
# The session is a snapshot session: its channel is in overwrite mode and
# nothing is consumed while the benchmark runs (an in-memory flight
# recorder, as ulsm's recorder is), so the consumer daemon does not write
# to disk on the other CPU during the timed loops. Only tpbench:on is
# enabled: tpbench:off stays off, as the main run measures it.
#
# A session daemon already running is used as it is; else one is started
# (lttng-sessiond --daemonize --no-kernel: as root it serves every user),
# and stopped at the end by its pid. After the run a snapshot is recorded
# and, when babeltrace2 or babeltrace is installed, its tpbench:on events
# counted.
#
# Whatever LTTng cannot do here (tools missing, daemon refused, session
# not created), the script says "LTTng enabled: not measured (why)" and
# exits 0: make bench never fails for it. A failure of the benchmark
# itself is returned.
set -u

if [ $# -lt 1 ]; then
	echo "usage: $0 BENCH [ARGS...]" >&2
	exit 2
fi
bench=$1
shift

tmp=
name=tpbench-$$
session=
sessiond_pid=

cleanup() {
	if [ -n "$session" ]; then
		lttng destroy "$name" >/dev/null 2>&1
		session=
	fi
	if [ -n "$sessiond_pid" ]; then
		kill "$sessiond_pid" 2>/dev/null
		# It exits after its consumer daemons: wait, at most 10 s.
		i=0
		while kill -0 "$sessiond_pid" 2>/dev/null && [ "$i" -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		sessiond_pid=
	fi
	if [ -n "$tmp" ]; then
		rm -rf "$tmp"
		tmp=
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

not_measured() {
	echo "LTTng enabled: not measured ($*)"
	exit 0
}

# The last line of a command's error output, for the reason.
why() {
	tail -n 1 "$tmp/err" 2>/dev/null | sed 's/^Error: //'
}

command -v lttng >/dev/null 2>&1 ||
	not_measured "lttng-tools not installed: apt-get install lttng-tools"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tpbench-lttng.XXXXXX") ||
	not_measured "no temporary directory"

if ! lttng list >/dev/null 2>&1; then
	command -v lttng-sessiond >/dev/null 2>&1 ||
		not_measured "no lttng-sessiond to start"
	lttng-sessiond --daemonize --no-kernel >"$tmp/err" 2>&1 ||
		not_measured "lttng-sessiond did not start: $(why)"
	# Its pid file: root's daemon in /var/run/lttng, a user's in
	# $LTTNG_HOME/.lttng (lttng-sessiond(8), FILES).
	if [ "$(id -u)" = 0 ]; then
		pidfile=/var/run/lttng/lttng-sessiond.pid
	else
		pidfile=${LTTNG_HOME:-$HOME}/.lttng/lttng-sessiond.pid
	fi
	sessiond_pid=$(cat "$pidfile" 2>/dev/null)
	lttng list >/dev/null 2>&1 ||
		not_measured "lttng-sessiond started but does not answer"
fi

lttng create "$name" --snapshot --output="$tmp/trace" \
	>/dev/null 2>"$tmp/err" || not_measured "lttng create: $(why)"
session=y
lttng enable-event --userspace --session="$name" tpbench:on \
	>/dev/null 2>"$tmp/err" || not_measured "lttng enable-event: $(why)"
lttng start "$name" >/dev/null 2>"$tmp/err" ||
	not_measured "lttng start: $(why)"

"$bench" --lttng-enabled "$@"
rc=$?

lttng stop "$name" >/dev/null 2>&1
if [ $rc = 0 ] &&
   lttng snapshot record --session="$name" >/dev/null 2>"$tmp/err"; then
	reader=
	for r in babeltrace2 babeltrace; do
		if command -v $r >/dev/null 2>&1; then
			reader=$r
			break
		fi
	done
	if [ -n "$reader" ]; then
		n=$($reader "$tmp/trace" 2>/dev/null | grep -c 'tpbench:on')
		echo "LTTng snapshot: $n tpbench:on events in its buffers" \
		     "($reader; older ones were overwritten)"
	else
		bytes=$(find "$tmp/trace" -type f -name 'channel0_*' \
			-exec cat {} + 2>/dev/null | wc -c)
		echo "LTTng snapshot: $bytes bytes of events in its buffers" \
		     "(install babeltrace2 to count them)"
	fi
elif [ $rc = 0 ]; then
	echo "LTTng snapshot: not recorded ($(why))"
fi
exit $rc
