/* SPDX-License-Identifier: MIT */
/*
 * src/engine/arch/word.h - what the one-word back ends share (aarch64,
 * riscv64: ULSM_PROTO_ATOMIC_WORD, docs/patching-protocol.md): every
 * instruction they read or write is a naturally aligned 32-bit word.
 * Included by their own files only.
 */
#ifndef ULSM_SRC_ARCH_WORD_H
#define ULSM_SRC_ARCH_WORD_H

#include <string.h>

#include "engine/arch.h"

/* The word at @addr (text: read as bytes, never through a typed pointer). */
static inline uint32_t word_at(uintptr_t addr)
{
	uint32_t w;

	memcpy(&w, (const void *)addr, sizeof(w));
	return w;
}

static inline void put_word(struct ulsm_insn *out, size_t off, uint32_t w)
{
	memcpy(&out->bytes[off], &w, sizeof(w));
}

/* An instruction of one word @w; a thread that meets it goes to @resume. */
static inline void one_word(struct ulsm_insn *out, uint32_t w,
			    uintptr_t resume)
{
	memset(out, 0, sizeof(*out));
	out->len = 4;
	put_word(out, 0, w);
	out->resume = resume;
}

#endif /* ULSM_SRC_ARCH_WORD_H */
