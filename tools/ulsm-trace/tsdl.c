// SPDX-License-Identifier: MIT
/*
 * tsdl.c - the CTF trace's metadata (ctf.h): TSDL, the text that tells a
 * reader the binary layout of ctf.c's streams, and each event class.
 *
 * Its first line is the comment that says "CTF 1.8": babeltrace2 2.0
 * refuses metadata without it, and Trace Compass looks for it. The types
 * are natural: every integer aligned on its size, little endian. The
 * stream block's packet context is ctf_writer.h's OFF_* layout.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/config.h>

#include "ctf_writer.h"

/*
 * A name as a TSDL string literal: as the text shows it (text_str(): a
 * control or a byte that is not UTF-8 as \xNN), with its backslashes and
 * quotes escaped for TSDL. babeltrace2 prints a name's bytes as they are,
 * controls too, and reads \x in a literal wrongly: so the literal holds
 * visible characters only, and the name reads as in ulsm-trace --text.
 */
static int tsdl_str(FILE *f, const char *s, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);

	if (!m)
		return -ENOMEM;
	text_str(m, s, len);
	if (fclose(m) || !text) {
		free(text);
		return -ENOMEM;
	}
	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '"' || text[i] == '\\')
			putc('\\', f);
		putc(text[i], f);
	}
	putc('"', f);
	free(text);
	return 0;
}

/*
 * The fields' names of class @k: each argument's name with any byte that
 * is not a letter, a digit or '_' as '_' ("arg<i>" for an unnamed one),
 * then "_<i>" until it differs from those before it. Written with a
 * leading '_', which TSDL drops: a parameter named like a TSDL keyword
 * (event, string, align) is still a field.
 */
static int field_names(const struct trace *t, const struct cclass *k,
		       char *names[MAX_WORDS])
{
	const struct name *nm = k->name == NONE ? NULL : &t->names[k->name];

	for (unsigned int i = 0; i < k->n; i++) {
		const char *s = NULL;
		size_t len = 0, at;
		bool same;

		if (nm && i < nm->nargs && nm->arg_len[i]) {
			s = t->pool + nm->off + nm->len + nm->arg_off[i];
			len = nm->arg_len[i];
		}
		names[i] = malloc(len + 16 + 3 * MAX_WORDS);
		if (!names[i])
			return -ENOMEM;
		if (!len)
			len = (size_t)sprintf(names[i], "arg%u", i);
		for (size_t b = 0; s && b < len; b++) {
			char ch = s[b];

			names[i][b] = (ch >= 'a' && ch <= 'z') ||
				      (ch >= 'A' && ch <= 'Z') ||
				      (ch >= '0' && ch <= '9') ? ch : '_';
		}
		names[i][len] = 0;
		at = len;
		do {
			same = false;
			for (unsigned int j = 0; j < i && !same; j++)
				same = !strcmp(names[j], names[i]);
			if (same)
				at += (size_t)sprintf(names[i] + at, "_%u", i);
		} while (same);
	}
	return 0;
}

static const char *const int_type[2][9] = {
	{ [1] = "uint8_t", [2] = "uint16_t", [4] = "uint32_t",
	  [8] = "uint64_t" },
	{ [1] = "int8_t", [2] = "int16_t", [4] = "int32_t", [8] = "int64_t" },
};

static int event_class(struct ctf *c, FILE *f, size_t id)
{
	const struct cclass *k = &c->cls[id];
	const struct trace *t = c->t;
	const struct name *nm = k->name == NONE ? NULL : &t->names[k->name];
	char *names[MAX_WORDS] = { 0 };
	int err;

	fputs("event {\n\tname = ", f);
	err = nm ? tsdl_str(f, t->pool + nm->off, nm->len) :
		   tsdl_str(f, "unknown", 7);
	if (!err)
		err = field_names(t, k, names);
	if (!err) {
		fprintf(f, ";\n\tid = %zu;\n\tstream_id = 0;\n"
			"\tfields := struct {\n", id);
		for (unsigned int i = 0; i < k->n; i++) {
			unsigned int size = k->size[i];

			fputs("\t\t", f);
			switch (k->kind[i]) {
			case VAL_SIGNED:
			case VAL_UNSIGNED:
				fputs(int_type[k->kind[i] == VAL_SIGNED][size],
				      f);
				break;
			case VAL_BOOL:
				fputs("enum : uint8_t { \"false\" = 0, "
				      "\"true\" = 1 }", f);
				break;
			case VAL_HEX:
				fputs("hex64_t", f);
				break;
			case VAL_FLOAT:
				fputs(size == 4 ? "float32_t" : "float64_t", f);
				break;
			case VAL_STRING:
				fputs("string", f);
				break;
			}
			fprintf(f, " _%s;\n", names[i]);
		}
		fputs("\t};\n};\n\n", f);
	}
	for (unsigned int i = 0; i < MAX_WORDS; i++)
		free(names[i]);
	return err;
}

static const char prelude[] =
	"/* CTF 1.8 */\n"
	"\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 16; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 32; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 64; signed = false; } := uint64_t;\n"
	"typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
	"typealias integer { size = 16; align = 16; signed = true; } := int16_t;\n"
	"typealias integer { size = 32; align = 32; signed = true; } := int32_t;\n"
	"typealias integer { size = 64; align = 64; signed = true; } := int64_t;\n"
	"typealias integer { size = 64; align = 64; signed = false; base = 16; }"
	" := hex64_t;\n"
	"typealias floating_point { exp_dig = 8; mant_dig = 24; align = 32; }"
	" := float32_t;\n"
	"typealias floating_point { exp_dig = 11; mant_dig = 53; align = 64; }"
	" := float64_t;\n"
	"typealias integer { size = 64; align = 64; signed = false;"
	" map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n"
	"\n";

/*
 * The stream: its packets' context (the standard fields, then the
 * thread's tid, pid and name, which babeltrace2 prints on each of its
 * events' lines), and the events' header. The bytes ctf.c writes are
 * these, at ctf_writer.h's OFF_* offsets.
 */
static const char stream_block[] =
	"stream {\n"
	"\tid = 0;\n"
	"\tpacket.context := struct {\n"
	"\t\tuint64_clock_monotonic_t timestamp_begin;\n"
	"\t\tuint64_clock_monotonic_t timestamp_end;\n"
	"\t\tuint64_t content_size;\n"
	"\t\tuint64_t packet_size;\n"
	"\t\tuint64_t packet_seq_num;\n"
	"\t\tuint64_t events_discarded;\n"
	"\t\tuint32_t tid;\n"
	"\t\tuint32_t pid;\n"
	"\t\tstring thread_name;\n"
	"\t};\n"
	"\tevent.header := struct {\n"
	"\t\tuint32_t id;\n"
	"\t\tuint64_clock_monotonic_t timestamp;\n"
	"\t};\n"
	"};\n\n";

static void uuid_str(FILE *f, const unsigned char *u)
{
	for (int i = 0; i < 16; i++)
		fprintf(f, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ?
			"-" : "", u[i]);
}

/*
 * The clock: the recorder's times are CLOCK_MONOTONIC nanoseconds, and
 * are written as they are (offset 0): the time since the recording
 * machine booted, which is all the recording knows. absolute = false, as
 * its origin is that boot. With --wall-clock, the offset is
 * CLOCK_REALTIME - CLOCK_MONOTONIC now (right only on the boot that
 * recorded, with no step of the wall clock since), as LTTng writes it;
 * the origin is then the Unix epoch, which absolute = true says: then
 * babeltrace2 shows dates (--clock-date), and refuses to put the trace
 * beside one of times since boot, rather than mix the two.
 */
static void clock_block(struct ctf *c, FILE *f)
{
	int64_t off = c->o->wall_clock ? c->o->offset_ns : 0;
	int64_t s = off / 1000000000, ns = off % 1000000000;

	if (ns < 0) {		/* the offset in cycles is not negative */
		s--;
		ns += 1000000000;
	}
	fprintf(f, "clock {\n\tname = \"monotonic\";\n"
		"\tdescription = \"CLOCK_MONOTONIC, as recorded\";\n"
		"\tfreq = 1000000000;\n"
		"\toffset_s = %" PRId64 ";\n\toffset = %" PRId64 ";\n"
		"\tabsolute = %s;\n};\n\n", s, ns,
		c->o->wall_clock ? "true" : "false");
}

int ctf_metadata(struct ctf *c)
{
	const struct trace *t = c->t;
	FILE *f;
	int err = 0, cerr;

	errno = 0;
	f = c->sink->create(c->sink, "metadata");
	if (!f)
		return errno ? -errno : -EIO;
	fputs(prelude, f);
	fputs("trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"", f);
	uuid_str(f, c->uuid);
	fputs("\";\n\tbyte_order = le;\n"
	      "\tpacket.header := struct {\n"
	      "\t\tuint32_t magic;\n"
	      "\t\tuint8_t uuid[16];\n"
	      "\t\tuint32_t stream_id;\n"
	      "\t};\n};\n\n", f);
	/*
	 * The process that recorded, which babeltrace2 prints before each
	 * event (procname:(vpid)); no hostname: the recording does not say
	 * which machine it was.
	 */
	fprintf(f, "env {\n\tdomain = \"ulsm\";\n\ttracer_name = \"ulsm\";\n"
		"\tulsm_trace_version = \"%s\";\n"
		"\trecording_version = %" PRIu32 ";\n", ULSM_VERSION,
		t->version);
	if (t->version > 1) {
		fputs("\tprocname = ", f);
		err = tsdl_str(f, t->pool + t->cmd_off, t->cmd_len);
		fprintf(f, ";\n\tvpid = %" PRIu32 ";\n", t->pid);
	}
	fputs("};\n\n", f);
	clock_block(c, f);
	fputs(stream_block, f);
	for (size_t i = 0; i < c->ncls && !err; i++)
		err = event_class(c, f, i);
	cerr = c->sink->close(c->sink, f);
	return err ? err : cerr;
}
