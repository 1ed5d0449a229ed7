/* SPDX-License-Identifier: MIT */
/*
 * src/dump.h - the dump at exit (src/dump.c), for start-up (src/init.c).
 * Never installed; hidden visibility, as in src/base/base.h.
 */
#ifndef ULSM_SRC_DUMP_H
#define ULSM_SRC_DUMP_H

/*
 * Arm the dump at exit if ULSM_DUMP asks for it: at start-up (NULL) and
 * when each object registers (its tables).
 */
void ulsm_dump_arm(const void *object);

/*
 * Where ULSM_DUMP's value @to (NULL: unset) sends the dump: nowhere
 * (unset, "" or "0"), standard error ("1"), or the file it names
 * (appended). Apart so that tests/fuzz/fuzz_env.c can give it any bytes.
 */
enum ulsm_dump_to { ULSM_DUMP_NONE, ULSM_DUMP_STDERR, ULSM_DUMP_FILE };
enum ulsm_dump_to ulsm_dump_target(const char *to);

#endif /* ULSM_SRC_DUMP_H */
