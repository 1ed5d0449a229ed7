#!/bin/sh
# SPDX-License-Identifier: MIT
# prove --exec helper for every make check: runs one test with a time
# limit, so that a test that hangs fails (with its name and a message)
# instead of holding make check, and CI, until CI's own limit kills
# everything. $ULSM_TEST_TIMEOUT seconds (make check's TEST_TIMEOUT);
# timeout(1) signals the test's whole process group, so its children
# (servers, tracers) go too.
#
# Cross-built tests: an ELF program runs under the emulator in $ULSM_EMU
# (e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu"); scripts (t_compile.t)
# run as they are, on the build machine.
#
# Under the emulator, a test whose emulator dies by a signal (SIGILL,
# SIGABRT, SIGBUS, SIGSEGV: qemu-user kills itself so when the guest
# takes one it does not handle, and when it crashes itself) runs once
# more, and only that second run's result counts. Its output is kept
# until it ends, so that prove reads one run; what the first run printed
# last, and what the emulator and the test said of the signal (where the
# guest took it: tests/lib/emu_crash.h), come before the second run as
# comments ("# the emulator died ..."), where the log shows them. qemu
# 7.2's user mode died so once in CI, in t_tracepoint's threads, and not
# in 129 runs here (tests/README.md, "Under an emulator"). A native run
# never gets a second chance.
limit=${ULSM_TEST_TIMEOUT:-600}

timed_out() {
	if [ "$1" = 124 ] || [ "$1" = 137 ]; then
		echo "not ok - $2 ran past its limit of $limit s (ULSM_TEST_TIMEOUT) and was killed"
	fi
}

if [ -z "$ULSM_EMU" ] || [ "$(head -c 4 "$1" | tail -c 3)" != ELF ]; then
	timeout -k 10 "$limit" "$@"
	rc=$?
	timed_out "$rc" "$1"
	exit "$rc"
fi

test=$1
set -- $ULSM_EMU "$@"
out=$(mktemp) || exit 1
err=$(mktemp) || exit 1
trap 'rm -f "$out" "$err"' EXIT
timeout -k 10 "$limit" "$@" >"$out" 2>"$err"
rc=$?
case $rc in
132|134|135|139)
	echo "# the emulator died by signal $((rc - 128)) running $test" \
	     "after $(grep -c '^ok' "$out") passed checks; it runs once more"
	grep -e '^qemu' -e '^# guest signal' -e '^#   ' "$err" | head -n 20 |
		sed 's/^/#   said: /'
	tail -n 5 "$out" | sed 's/^/#   printed last: /'
	timeout -k 10 "$limit" "$@"
	rc=$?
	;;
*)
	cat "$out"
	cat "$err" >&2
	;;
esac
timed_out "$rc" "$test"
exit "$rc"
