// SPDX-License-Identifier: MIT
/*
 * Link test: a unit of the set "lc" compiled with another MAX_LSM_COUNT
 * than its defining unit (see host.c). Its walk would read three slots of
 * tables laid out for two.
 */
#define MAX_LSM_COUNT 3
#include "set.h"

int lc_connect(int port)
{
	return call_int_hook(socket_connect, port);
}
