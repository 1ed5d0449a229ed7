/* SPDX-License-Identifier: MIT */
/*
 * ulsm/arch.h - the one place that decides the back end.
 *
 * It turns compiler macros and the library's build configuration into
 * exactly one of ULSM_ARCH_X86_64, ULSM_ARCH_AARCH64, ULSM_ARCH_RISCV64 or
 * ULSM_ARCH_GENERIC and includes that back end's inline fast paths. Nothing
 * else in ulsm tests __x86_64__, __aarch64__ or __riscv.
 *
 * The generic back end patches no code: keys are counters read by the site,
 * static calls are function pointers. It is chosen when the library was
 * built with BACKEND=generic (recorded in ulsm/config.h), and on every
 * architecture that has no patching back end yet.
 */
#ifndef ULSM_ARCH_H
#define ULSM_ARCH_H

#include <ulsm/config.h>

#if ULSM_CONFIG_GENERIC
# define ULSM_ARCH_GENERIC 1
# define ULSM_ARCH_NAME "generic"
#elif defined(__x86_64__)
# define ULSM_ARCH_X86_64 1
# define ULSM_ARCH_NAME "x86_64"
#elif defined(__aarch64__) && defined(__LP64__) && \
	defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define ULSM_ARCH_AARCH64 1
# define ULSM_ARCH_NAME "aarch64"
#elif defined(__aarch64__)
# error "ulsm: the aarch64 back end needs LP64 and little-endian code; build ulsm with BACKEND=generic"
#elif defined(__riscv) && __riscv_xlen == 64 && defined(__LP64__) && \
	defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define ULSM_ARCH_RISCV64 1
# define ULSM_ARCH_NAME "riscv64"
#elif defined(__riscv)
# error "ulsm: the riscv64 back end needs RV64, LP64 and little-endian code; build ulsm with BACKEND=generic"
#else
# error "ulsm: no patching back end for this architecture; build ulsm with BACKEND=generic"
#endif

#if defined(ULSM_ARCH_X86_64)
# include <ulsm/arch/x86_64.h>
#elif defined(ULSM_ARCH_AARCH64)
# include <ulsm/arch/aarch64.h>
#elif defined(ULSM_ARCH_RISCV64)
# include <ulsm/arch/riscv64.h>
#else
# include <ulsm/arch/generic.h>
#endif

#endif /* ULSM_ARCH_H */
