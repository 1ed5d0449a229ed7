#!/bin/sh
# SPDX-License-Identifier: MIT
# prove --exec helper for cross-built tests: run an ELF program under the
# emulator in $ULSM_EMU (e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu");
# scripts (t_compile.t) run as they are, on the build machine.
if [ -n "$ULSM_EMU" ] && [ "$(head -c 4 "$1" | tail -c 3)" = ELF ]; then
	exec $ULSM_EMU "$@"
fi
exec "$@"
