// SPDX-License-Identifier: MIT
/*
 * Link test: a unit of the set "lr" compiled with ULSM_RETPOLINE, unlike
 * its defining unit (see host.c).
 */
#define ULSM_RETPOLINE 1
#include "set.h"

int lr_connect(int port)
{
	return call_int_hook(socket_connect, port);
}
