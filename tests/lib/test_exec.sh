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
limit=${ULSM_TEST_TIMEOUT:-600}
if [ -n "$ULSM_EMU" ] && [ "$(head -c 4 "$1" | tail -c 3)" = ELF ]; then
	set -- $ULSM_EMU "$@"
fi
timeout -k 10 "$limit" "$@"
rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "not ok - $1 ran past its limit of $limit s (ULSM_TEST_TIMEOUT) and was killed"
fi
exit "$rc"
