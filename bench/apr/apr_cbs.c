// SPDX-License-Identifier: MIT
/* The callbacks every implementation calls: add, decline (or return). */
#include <ulsm/unroll.h>

#include "apr_bench.h"

volatile long ba_sink;

#define BA_CB(i, x)							\
	int ba_cb##i(long x)						\
	{								\
		ba_sink += x + i;					\
		return BA_DECLINE;					\
	}								\
	void ba_vcb##i(long x)						\
	{								\
		ba_sink += x + i;					\
	}
UNROLL(40, BA_CB, x)

#define BA_CB_REF(i, x)	ba_cb##i,
int (*const ba_cbs[BA_MAX])(long) = { UNROLL(40, BA_CB_REF, ~) };
#define BA_VCB_REF(i, x)	ba_vcb##i,
void (*const ba_vcbs[BA_MAX])(long) = { UNROLL(40, BA_VCB_REF, ~) };
