# SPDX-License-Identifier: MIT
#
# Fuzzing by the book: a libFuzzer harness for each parser of input from
# outside the process (tests/fuzz/fuzz_<name>.c, LLVMFuzzerTestOneInput),
# included by the Makefile after tests/tests.mk. Each harness is built
# twice:
#
#  - by make check, with tests/fuzz/replay_main.c for its main: the test
#    t_fuzz_<name>, which feeds it every file of its seed corpus
#    (tests/fuzz/corpus/<name>/) and of its regressions
#    (tests/fuzz/regress/<name>/), under whatever compiler, sanitizer,
#    back end and emulator make check has;
#  - by make fuzz, with libFuzzer's main (clang -fsanitize=fuzzer,address,
#    undefined), the library instrumented for coverage too
#    (fuzzer-no-link), in a build directory of its own, $(FUZZ_BUILD).
#
#   make fuzz                   each harness in turn, FUZZ_SECONDS each
#   make fuzz FUZZ="control order"   only those
#   FUZZ_SECONDS=600            a longer run (20 s by default)
#   FUZZ_ARGS="-jobs=2 ..."     more options for libFuzzer
#   FUZZ_CC=clang-15            another clang
#
# Each run works on a copy of the seeds and regressions,
# $(FUZZ_BUILD)/run/<name>/corpus/ (the tree is left as it is), and
# stops at the first crash, sanitizer report, leak, timeout (FUZZ_TIMEOUT
# seconds for one input) or allocation over libFuzzer's limit, leaving
# the input in $(FUZZ_BUILD)/run/<name>/ (crash-*, leak-*, timeout-*,
# oom-*): make fuzz then fails, naming them. A finding, once fixed, goes
# into tests/fuzz/regress/<name>/, so that make check replays it.
#
# What a harness needs beyond its own file, by variables named after it
# (read by both builds):
#   fuzz_x_SRCS	more sources (the tool it reaches)
#   fuzz_x_CPPFLAGS	more flags
#   fuzz_x_ARGS	options for libFuzzer's runs of it (-max_len, -dict)

FUZZ_NAMES	:= $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_TESTS	:= $(FUZZ_NAMES:%=t_fuzz_%)

# ulsm-trace's reader and its three outputs (not its main), and the
# output checkers of its tests.
fuzz_recording_SRCS	:= $(filter-out %/main.c,$(TRACE_TOOL_SRCS))
fuzz_recording_CPPFLAGS	:= -Itools/ulsm-trace -Itests/tools
fuzz_recording_ARGS	:= -max_len=65536 -malloc_limit_mb=256
# The control endpoint's replies are checked as strict JSON.
fuzz_control_CPPFLAGS	:= -Itests/tools
fuzz_control_ARGS	:= -max_len=8192
# ulsmctl's reading of an endpoint's replies.
fuzz_ulsmctl_SRCS	:= tools/ulsmctl/head.c tools/ulsmctl/json.c tools/ulsmctl/escape.c
fuzz_ulsmctl_CPPFLAGS	:= -Itools/ulsmctl -Itests/tools
fuzz_order_ARGS		:= -max_len=4096
fuzz_trace_glob_ARGS	:= -max_len=1024
fuzz_env_ARGS		:= -max_len=2048

# --- make check: each harness replays its corpus (t_fuzz_<name>) -------

$(foreach n,$(FUZZ_NAMES),\
	$(eval t_fuzz_$(n)_SRC := tests/fuzz/fuzz_$(n).c)\
	$(eval t_fuzz_$(n)_SRCS := tests/fuzz/replay_main.c $(fuzz_$(n)_SRCS))\
	$(eval t_fuzz_$(n)_CPPFLAGS := -DFUZZ_NAME='"$(n)"' -DFUZZ_DIR='"$(CURDIR)/tests/fuzz"' \
		$(fuzz_$(n)_CPPFLAGS))\
	$(eval t_fuzz_$(n)_DEPS := $(wildcard tests/fuzz/*.h) $(fuzz_$(n)_SRCS)))
TEST_NAMES	+= $(FUZZ_TESTS)
TEST_BINS	+= $(FUZZ_TESTS:%=$(BUILD)/tests/%.t)
check tests: $(FUZZ_TESTS:%=$(BUILD)/tests/%.t)
$(foreach t,$(FUZZ_TESTS),$(eval $(call test_rule,$(t))))

# --- make fuzz: libFuzzer, for a bounded time ---------------------------

FUZZ_CC		?= clang
FUZZ_BUILD	?= build/fuzz
FUZZ_SECONDS	?= 20
FUZZ_TIMEOUT	?= 10
FUZZ_ARGS	?=
FUZZ		?= $(FUZZ_NAMES)
FUZZ_SANITIZE	:= fuzzer-no-link,address,undefined

.PHONY: fuzz fuzz-build fuzz-in-build
# The library and the harnesses again, in $(FUZZ_BUILD), instrumented.
fuzz:
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
		SANITIZE=$(FUZZ_SANITIZE) CROSS_COMPILE= EMU= fuzz-in-build
fuzz-build:
	$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
		SANITIZE=$(FUZZ_SANITIZE) CROSS_COMPILE= EMU= \
		$(FUZZ:%=$(FUZZ_BUILD)/fuzz/fuzz_%)

define fuzz_rule
$(BUILD)/fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(wildcard tests/fuzz/*.h) $(fuzz_$(1)_SRCS) $(TEST_DEPS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS_ALL) -Isrc -Itests/lib -Itests/fuzz $$(fuzz_$(1)_CPPFLAGS) $$(CFLAGS_ALL) \
		-fsanitize=fuzzer -o $$@ $$< $$(fuzz_$(1)_SRCS) $$(STATIC_LIB) $$(LDLIBS_ALL)
endef
$(foreach n,$(FUZZ_NAMES),$(eval $(call fuzz_rule,$(n))))

# One harness at a time (each would take every CPU it is given): a crash
# stops that harness's run, and the others still run; the status says
# whether any found something. The summary line of each: its runs, its
# speed and its coverage (libFuzzer's edges, "cov", and features, "ft").
FUZZ_RUN	= $(BUILD)/run
define fuzz_one
	d=$(FUZZ_RUN)/$(1); rm -rf $$d; mkdir -p $$d/corpus; \
	cp tests/fuzz/corpus/$(1)/* $$d/corpus/; \
	if [ -d tests/fuzz/regress/$(1) ]; then cp tests/fuzz/regress/$(1)/* $$d/corpus/ 2>/dev/null; fi; \
	echo "=== fuzz_$(1): $(FUZZ_SECONDS) s"; \
	if $(BUILD)/fuzz/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) \
		-timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=2048 -malloc_limit_mb=1024 \
		-error_exitcode=77 -timeout_exitcode=78 -print_final_stats=1 \
		-artifact_prefix=$$d/ $(fuzz_$(1)_ARGS) $(FUZZ_ARGS) $$d/corpus >$$d/log 2>&1; then \
		grep -E 'DONE|^stat::(number_of_executed_units|average_exec_per_sec)' $$d/log | tr -s ' \n' ' '; echo; \
	else \
		tail -n 40 $$d/log; failed="$$failed $(1)"; \
		echo "fuzz_$(1) found something:" $$(ls -d $$d/crash-* $$d/leak-* \
			$$d/timeout-* $$d/oom-* $$d/slow-unit-* 2>/dev/null); \
	fi;
endef
fuzz-in-build: $(FUZZ:%=$(BUILD)/fuzz/fuzz_%)
	@failed=; $(foreach n,$(FUZZ),$(call fuzz_one,$(n))) \
	if [ -n "$$failed" ]; then echo "make fuzz: findings in:$$failed" >&2; exit 1; fi
