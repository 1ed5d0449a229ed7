// SPDX-License-Identifier: MIT
/*
 * src/engine/arch/x86_64/counter.c - whether the TSC can time events
 * (src/engine/arch.h; read by <ulsm/arch/x86_64.h>): invariant (CPUID 0x80000007, EDX bit 8: one
 * rate in every P-, C- and T-state), and the kernel's clocksource is
 * "tsc", so that the kernel found the CPUs' TSCs in step (it falls back
 * to another clocksource when they are not).
 */
#include <cpuid.h>
#include <fcntl.h>
#include <string.h>

#include "base/sys.h"
#include "engine/arch.h"

static bool clocksource_is_tsc(void)
{
	char buf[32];
	ssize_t n;
	int fd = ulsm_sys_open("/sys/devices/system/clocksource/clocksource0/"
			       "current_clocksource", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = ulsm_sys_read(fd, buf, sizeof(buf) - 1);
	ulsm_sys_close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return !strcmp(buf, "tsc\n") || !strcmp(buf, "tsc");
}

bool arch_counter_usable(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & 1u << 8))
		return false;
	return clocksource_is_tsc();
}
