# SPDX-License-Identifier: MIT
#
# The APR hooks drop-in against libaprutil: one program, tests/apr/*.c,
# written against APR's public headers only, built twice, and
# tests/apr/t_apr_diff.sh.in, which requires the two to print the same
# transcripts. apr_diff_plain.c is compiled without the drop-in in both
# (a unit of the program that calls libaprutil's sort and deregister
# itself). Included by the Makefile, after it has defined
#
#   BUILD CC CPPFLAGS CFLAGS_ALL LDLIBS_ALL	its own
#   ULSM_APR_CFLAGS	the drop-in's shadow include directory first, and
#			what its headers need
#   ULSM_APR_LIBS	libulsm-apr and libulsm
#   ULSM_APR_DEPS	what the -ulsm program must be rebuilt after
#
# and HAVE_APR (y: $(CC) can build programs with libaprutil), APR_CFLAGS
# and APR_LIBS. It defines
# APR_DIFF_BINS, the two programs, or none without libaprutil for $(CC)
# (t_apr_diff then skips).

APR_DIFF_SRCS	:= tests/apr/apr_diff.c tests/apr/apr_diff_probe.c
APR_DIFF_PLAIN	:= tests/apr/apr_diff_plain.c
APR_DIFF_HDRS	:= tests/apr/apr_diff.h
APR_DIFF_REAL	:= $(BUILD)/tests/apr/apr_diff-real
APR_DIFF_ULSM	:= $(BUILD)/tests/apr/apr_diff-ulsm
APR_DIFF_PLAIN_O := $(BUILD)/tests/apr/apr_diff_plain.o
APR_DIFF_BINS	= $(if $(filter y,$(HAVE_APR)),$(APR_DIFF_REAL) $(APR_DIFF_ULSM))

$(APR_DIFF_PLAIN_O): $(APR_DIFF_PLAIN) $(APR_DIFF_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(APR_CFLAGS) $(CFLAGS_ALL) -fPIE -c -o $@ $<

$(APR_DIFF_REAL): $(APR_DIFF_SRCS) $(APR_DIFF_HDRS) $(APR_DIFF_PLAIN_O)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(APR_CFLAGS) $(CFLAGS_ALL) -fPIE -pie -o $@ $(APR_DIFF_SRCS) \
		$(APR_DIFF_PLAIN_O) $(APR_LIBS) $(LDLIBS_ALL)

$(APR_DIFF_ULSM): $(APR_DIFF_SRCS) $(APR_DIFF_HDRS) $(APR_DIFF_PLAIN_O) $(ULSM_APR_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ULSM_APR_CFLAGS) $(APR_CFLAGS) $(CFLAGS_ALL) -fPIE -pie -o $@ \
		$(APR_DIFF_SRCS) $(APR_DIFF_PLAIN_O) $(ULSM_APR_LIBS) $(APR_LIBS) $(LDLIBS_ALL)
