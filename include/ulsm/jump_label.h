/* SPDX-License-Identifier: MIT */
/*
 * ulsm/jump_label.h - the kernel's header name for static keys.
 *
 * Code ported from the kernel can keep `#include <linux/jump_label.h>` by
 * mapping it here; everything is in <ulsm/static_key.h>.
 */
#ifndef ULSM_JUMP_LABEL_H
#define ULSM_JUMP_LABEL_H
#include <ulsm/static_key.h>
#endif
