// SPDX-License-Identifier: MIT
/* Link test: a unit that dispatches the set "lk" (see host.c). */
#include "set.h"

int lk_connect(int port)
{
	return call_int_hook(socket_connect, port);
}
