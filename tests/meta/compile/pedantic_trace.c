// SPDX-License-Identifier: MIT
/*
 * Must compile with -std=c11 -Wall -Wextra -Wpedantic -Werror (and
 * -std=c99, and clang's): tracepoints declared and defined as the README
 * writes them (a ';' after each), of many types, with probes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ulsm/tracepoint.h>

enum ped_state { PED_IDLE, PED_BUSY };

DECLARE_TRACEPOINT(ped_req, TP_PROTO(int id, long size), TP_ARGS(id, size));
DEFINE_TRACEPOINT(ped_req, TP_PROTO(int id, long size), TP_ARGS(id, size));

DECLARE_TRACEPOINT(ped_mixed,
	TP_PROTO(const char *path, double load, bool hit, void *obj,
		 enum ped_state state, uint64_t bytes),
	TP_ARGS(path, load, hit, obj, state, bytes));
DEFINE_TRACEPOINT(ped_mixed,
	TP_PROTO(const char *path, double load, bool hit, void *obj,
		 enum ped_state state, uint64_t bytes),
	TP_ARGS(path, load, hit, obj, state, bytes));

DECLARE_TRACEPOINT(ped_one, TP_PROTO(char *name), TP_ARGS(name));
DEFINE_TRACEPOINT(ped_one, TP_PROTO(char *name), TP_ARGS(name));

DECLARE_TRACEPOINT(ped_small, TP_PROTO(short s, unsigned char c, float f),
		   TP_ARGS(s, c, f));
DEFINE_TRACEPOINT(ped_small, TP_PROTO(short s, unsigned char c, float f),
		  TP_ARGS(s, c, f));

static unsigned long hits;

static void on_req(void *data, int id, long size)
{
	(void)data;
	hits += (unsigned long)id + (unsigned long)size;
}

static void on_mixed(void *data, const char *path, double load, bool hit,
		     void *obj, enum ped_state state, uint64_t bytes)
{
	(void)data, (void)path, (void)load, (void)obj, (void)state;
	hits += hit + bytes;
}

int ped_trace(char *name);
int ped_trace(char *name)
{
	int err = register_trace_ped_req(on_req, NULL);

	err |= register_trace_ped_mixed(on_mixed, &hits);
	trace_ped_req(1, 2);
	trace_ped_mixed("/tmp", 0.5, true, &hits, PED_BUSY, 4096);
	trace_ped_one(name);
	trace_ped_small(-1, 'x', 1.5f);
	err |= unregister_trace_ped_mixed(on_mixed, &hits);
	err |= unregister_trace_ped_req(on_req, NULL);
	err |= ulsm_trace_enable("ped_*");
	err |= ulsm_trace_disable("ped_*");
	return err || ulsm_tracepoint_find("ped_req") == NULL;
}
