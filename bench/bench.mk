# SPDX-License-Identifier: MIT
#
# The benchmarks (make bench), included by the Makefile after the
# library's variables: each bench/bench_x.c is a program
# $(BUILD)/bench/bench_x linked with the static library; those made of more
# units, or of units compiled once per set of flags, have their rules here.

BENCH_FLAGS	:= -O2 -g
BENCH_CC	= $(CC) $(CPPFLAGS_ALL) -std=gnu11 $(BENCH_FLAGS) $(WARN) $(WERROR) $(SANFLAGS) -pthread $(CFLAGS)
$(BUILD)/bench/%: bench/%.c bench/bench.h $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(BENCH_CC) -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

# The static-call benchmark compares calls compiled with different flags,
# so its loops (bench/sc_loops.c) and their target (bench/sc_target.c) are
# compiled once per variant, each object's symbols named after its variant
# (bench/sc_bench.h): plain, retpoline (indirect calls through a thunk:
# gcc -mindirect-branch=thunk, clang -mretpoline) and rethunk (retpolines
# and returns through a thunk: gcc -mfunction-return=thunk; clang 14 has no
# such option), each with the macros such a build defines for ulsm
# (ULSM_RETPOLINE, ULSM_RETURN_THUNK); the static-call benchmark also has
# rpbare, the retpoline flags without ULSM_RETPOLINE (the far forms as
# they were before it). A variant whose flags $(CC) lacks is built without
# them and marked absent, so the program links the same everywhere. The
# probes run once, on first use, not on every make.
bench_cc_has	= $(shell $(CC) $(CFLAGS) $(1) -x c -c /dev/null -o /dev/null 2>/dev/null && echo y)
SC_RETPOLINE	= $(eval SC_RETPOLINE := $(if $(call bench_cc_has,-mindirect-branch=thunk),-mindirect-branch=thunk,$(if $(call bench_cc_has,-mretpoline),-mretpoline)))$(SC_RETPOLINE)
SC_RETHUNK	= $(eval SC_RETHUNK := $(if $(call bench_cc_has,-mfunction-return=thunk),-mfunction-return=thunk))$(SC_RETHUNK)
sc_flags_plain	:=
sc_flags_retpoline = $(SC_RETPOLINE)
sc_flags_rethunk = $(if $(SC_RETPOLINE),$(if $(SC_RETHUNK),$(SC_RETPOLINE) $(SC_RETHUNK)))
sc_flags_rpbare	= $(SC_RETPOLINE)
sc_defs_retpoline = $(if $(sc_flags_retpoline),-DULSM_RETPOLINE=1)
sc_defs_rethunk	= $(if $(sc_flags_rethunk),-DULSM_RETPOLINE=1 -DULSM_RETURN_THUNK=1)
sc_variant_cflags = -DVARIANT=$(1) $(if $(filter plain,$(1))$(sc_flags_$(1)),$(sc_flags_$(1)) $(sc_defs_$(1)) \
		    -DSC_FLAGS='"$(strip $(sc_flags_$(1)) $(sc_defs_$(1)))"')
SC_VARIANTS	:= plain retpoline rethunk
SC_OBJS		:= $(foreach v,$(SC_VARIANTS) rpbare,$(BUILD)/bench/sc_loops-$(v).o $(BUILD)/bench/sc_target-$(v).o)
SC_DEPS		:= bench/sc_bench.h bench/sc_far.h bench/sc_far_hook_defs.h $(HEADERS) $(CONFIG_H)

# Every object compiled once per variant, NAME-VARIANT.o from
# bench/NAME.c (the static-call loops, and the hook and workload
# benchmarks' units below): one rule, its headers found by -MMD.
define variant_object_rule
$(BUILD)/bench/$(1)-%.o: bench/$(1).c $(CONFIG_H)
	@mkdir -p $$(dir $$@)
	$$(BENCH_CC) -Ibench $$(call sc_variant_cflags,$$*) $(DEPFLAGS) -c $$< -o $$@
endef

$(BUILD)/bench/bench_static_call: bench/bench_static_call.c bench/bench.h $(SC_OBJS) $(SC_DEPS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(BENCH_CC) -o $@ $< $(SC_OBJS) $(STATIC_LIB) $(LDLIBS_ALL)

# The hook benchmark dispatches the same hooks to the same callbacks three
# ways (bench/hk_bench.h): the linked lists the seed replaced, ulsm, and
# hard-coded direct calls. Each of its sources is compiled once per variant
# like the static-call loops above, with the same flags and the same
# -DVARIANT/-DSC_FLAGS, so that callbacks and dispatch code alike carry the
# variant's mitigations.
HK_SRCS		:= hk_mods hk_ulsm hk_base hk_limit hk_loops
HK_OBJS		:= $(foreach v,$(SC_VARIANTS),$(foreach s,$(HK_SRCS),$(BUILD)/bench/$(s)-$(v).o))
HK_DEPS		:= bench/hk_bench.h bench/hk_set.h bench/bench_hook_defs.h bench/bench.h bench/sc_bench.h bench/lsm_lists.h $(HEADERS) $(CONFIG_H)
HK_CC		= $(BENCH_CC) -Ibench

# The driver, compiled once, one job per file (bench/hk_driver.h).
HK_DRIVER	:= bench_hooks hk_cases hk_callgrind hk_update hk_size hk_report hk_json hk_plot
HK_DRIVER_OBJS	:= $(HK_DRIVER:%=$(BUILD)/bench/%.o)

$(HK_DRIVER_OBJS): $(BUILD)/bench/%.o: bench/%.c $(HK_DEPS) bench/hk_driver.h
	@mkdir -p $(dir $@)
	$(HK_CC) -c $< -o $@

$(BUILD)/bench/bench_hooks: $(HK_DRIVER_OBJS) $(HK_OBJS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(HK_CC) -o $@ $(HK_DRIVER_OBJS) $(HK_OBJS) $(STATIC_LIB) $(LDLIBS_ALL) -lm

# The workload benchmark: real system calls guarded by hooks, lists against
# ulsm (bench/wl_bench.h); its sources are compiled per variant too.
WL_SRCS		:= wl_mods wl_base wl_ulsm wl_ops
WL_OBJS		:= $(foreach v,$(SC_VARIANTS),$(foreach s,$(WL_SRCS),$(BUILD)/bench/$(s)-$(v).o))
WL_DEPS		:= bench/wl_bench.h bench/wl_set.h bench/wl_hook_defs.h bench/lsm_lists.h bench/bench.h $(HEADERS) $(CONFIG_H)

$(foreach s,sc_loops sc_target $(HK_SRCS) $(WL_SRCS),$(eval $(call variant_object_rule,$(s))))
-include $(SC_OBJS:.o=.d) $(HK_OBJS:.o=.d) $(WL_OBJS:.o=.d)

$(BUILD)/bench/bench_workload: bench/bench_workload.c $(WL_OBJS) $(WL_DEPS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(HK_CC) -o $@ $< $(WL_OBJS) $(STATIC_LIB) $(LDLIBS_ALL) -lm

# bench_hooks runs a copy of itself under callgrind for instruction counts
# when valgrind is installed (BENCH_ARGS=--no-callgrind skips that): the
# copy without debug information, which valgrind 3.19 cannot read when
# clang 14 wrote it (DWARF 5); code and symbols are the same. It also
# writes the data and gnuplot script of its chart, drawn here if gnuplot
# is installed.
OBJCOPY		?= $(CROSS_COMPILE)objcopy
$(BUILD)/bench/bench_hooks-nodebug: $(BUILD)/bench/bench_hooks
	$(OBJCOPY) --strip-debug $< $@

# Four hook sets, two of them unloadable, with the same callbacks; the
# third's modules are in a plug-in, which finds the library and the set in
# the program (-rdynamic, the whole static library); the fourth's, which
# never unloads, in a twin of that plug-in.
UNLOAD_DEPS	:= bench/unload_hook_defs.h bench/unload_plugin_set.h bench/unload_cbs.h $(HEADERS) $(CONFIG_H)
$(BUILD)/bench/unload_plugin.so: bench/unload_plugin.c $(UNLOAD_DEPS)
	@mkdir -p $(dir $@)
	$(BENCH_CC) -Ibench -fPIC -shared -o $@ $<
$(BUILD)/bench/unload_twin.so: bench/unload_plugin.c $(UNLOAD_DEPS)
	@mkdir -p $(dir $@)
	$(BENCH_CC) -Ibench -DUNLOAD_TWIN -fPIC -shared -o $@ $<
$(BUILD)/bench/bench_unload: bench/bench_unload.c bench/bench.h $(UNLOAD_DEPS) $(STATIC_LIB) $(BUILD)/bench/unload_plugin.so $(BUILD)/bench/unload_twin.so
	@mkdir -p $(dir $@)
	$(BENCH_CC) -Ibench -rdynamic -o $@ $< -Wl,--whole-archive $(STATIC_LIB) -Wl,--no-whole-archive $(LDLIBS_ALL)

# bench_update reads the library's own count of its system calls
# (src/base/sys.h), as the tests do: -Isrc, and the static library.
$(BUILD)/bench/bench_update: bench/bench_update.c bench/bench.h src/base/sys.h $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(BENCH_CC) -Isrc -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

# APR hooks: real libaprutil against ulsm-apr against the hard-coded calls
# (bench/apr/apr_bench.h), one binary per variant: plain, and retpolines
# on every unit. The hooks' unit is compiled twice, against APR's header
# (namespace ra) and against the drop-in (ua).
ifeq ($(HAVE_APR),y)
BA_VARIANTS	:= plain retpoline
BA_DEPS		:= bench/apr/apr_bench.h bench/bench.h $(ULSM_APR_DEPS)
ba_flags	= $(if $(filter retpoline,$(1)),$(SC_RETPOLINE) $(if $(SC_RETPOLINE),-DULSM_RETPOLINE=1)) -DBA_VARIANT='"$(1)"'
BA_CC		= $(CC) -std=gnu11 $(BENCH_FLAGS) $(WARN) $(WERROR) $(SANFLAGS) -pthread $(CFLAGS) -Ibench -Ibench/apr
# (its own include order: APR's or the drop-in's headers first)
# One rule per variant: a pattern rule with two targets would be one
# recipe making both (and make -j2 would never build the second).
$(BUILD)/bench/apr/%-plain.o: bench/apr/%.c $(BA_DEPS)
	@mkdir -p $(dir $@)
	$(BA_CC) $(CPPFLAGS_ALL) $(APR_CFLAGS) $(call ba_flags,plain) -c $< -o $@
$(BUILD)/bench/apr/%-retpoline.o: bench/apr/%.c $(BA_DEPS)
	@mkdir -p $(dir $@)
	$(BA_CC) $(CPPFLAGS_ALL) $(APR_CFLAGS) $(call ba_flags,retpoline) -c $< -o $@
$(BUILD)/bench/apr/ra-%.o: bench/apr/apr_hooks_impl.c $(BA_DEPS)
	@mkdir -p $(dir $@)
	$(BA_CC) $(CPPFLAGS_ALL) $(APR_CFLAGS) $(call ba_flags,$*) -DNS=ra -c $< -o $@
$(BUILD)/bench/apr/ua-%.o: bench/apr/apr_hooks_impl.c $(BA_DEPS)
	@mkdir -p $(dir $@)
	$(BA_CC) $(ULSM_APR_CFLAGS) $(APR_CFLAGS) $(call ba_flags,$*) -DNS=ua -c $< -o $@
$(BUILD)/bench/bench_apr-%: $(foreach u,bench_apr apr_cbs apr_limit ra ua,$(BUILD)/bench/apr/$(u)-%.o) $(BA_DEPS)
	@mkdir -p $(dir $@)
	$(BA_CC) -o $@ $(filter %.o,$^) $(ULSM_APR_LIBS) $(APR_LIBS) -lm
BA_BINS		:= $(BA_VARIANTS:%=$(BUILD)/bench/bench_apr-%)
endif

# The tracepoint benchmark also measures LTTng-UST's tracepoints where
# liblttng-ust-dev is installed for this compiler (not when cross-compiling,
# nor with musl): its provider (bench/lttng/tpbench_tp.[ch]) is compiled in
# and the program linked with -llttng-ust -ldl, as LTTng-UST's
# documentation says. Without it, the benchmark leaves those candidates out
# and says so: make bench never fails for lack of it. Tested (a link of
# bench/lttng/have_lttng.c) only when the benchmark is built or run.
bench_cc_links	= $(shell $(CC) $(CFLAGS) $(1) -o /dev/null $(2) 2>/dev/null && echo y)
HAVE_LTTNG	= $(eval HAVE_LTTNG := $(if $(CROSS_COMPILE)$(findstring musl,$(CC)),,$(call bench_cc_links,bench/lttng/have_lttng.c,-llttng-ust -ldl)))$(HAVE_LTTNG)
TP_LTTNG	:= -DTPBENCH_LTTNG=1 -Ibench/lttng bench/lttng/tpbench_tp.c -llttng-ust
$(BUILD)/bench/bench_tracepoint: bench/bench_tracepoint.c bench/bench.h bench/tp_bench.h bench/lttng/tpbench_tp.c bench/lttng/tpbench_tp.h $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(BENCH_CC) -o $@ $< $(if $(HAVE_LTTNG),$(TP_LTTNG)) $(STATIC_LIB) $(LDLIBS_ALL)

BENCH_ARGS	?=
BENCH_CHARTS	:= static workload hooks update tracepoint
# Each benchmark appends the targets it judged here (bench/bench.h,
# bench_target); bench/targets.sh prints them all at the end.
BENCH_TARGETS	:= $(abspath $(BUILD))/bench/targets.tsv
BT_ENV		:= BENCH_TARGETS=$(BENCH_TARGETS)
# Tracing a hook set's dispatch, per module, beside the untraced dispatch.
$(BUILD)/bench/bench_hook_trace: BENCH_FLAGS += -Ibench
$(BUILD)/bench/bench_hook_trace: bench/ht_hook_defs.h

bench: $(BUILD)/bench/bench_hook_trace $(BUILD)/bench/bench_updaters $(BUILD)/bench/bench_tracepoint $(BUILD)/bench/bench_static_key $(BUILD)/bench/bench_static_call $(BUILD)/bench/bench_workload $(BUILD)/bench/bench_hooks $(BUILD)/bench/bench_hooks-nodebug $(BUILD)/bench/bench_unload $(BUILD)/bench/bench_update $(BA_BINS)
	@mkdir -p $(dir $(BENCH_TARGETS)) && rm -f $(BENCH_TARGETS)
	$(BT_ENV) $(EMU) $(BUILD)/bench/bench_updaters $(BENCH_ARGS)
	$(BT_ENV) $(EMU) $(BUILD)/bench/bench_update $(BENCH_ARGS) --json $(BUILD)/bench/update.json --plot $(BUILD)/bench/update
	$(BT_ENV) $(EMU) $(BUILD)/bench/bench_unload $(BENCH_ARGS) --json $(BUILD)/bench/unload.json
	$(BT_ENV) $(EMU) $(BUILD)/bench/bench_static_key $(BENCH_ARGS) --json $(BUILD)/bench/static_key.json --plot $(BUILD)/bench/static
	# The same with the control endpoint on (docs/control.md: an idle
	# endpoint costs the hot paths nothing), one after the other.
	ULSM_CONTROL=1 $(EMU) $(BUILD)/bench/bench_static_key $(BENCH_ARGS) --json $(BUILD)/bench/static_key-control.json
	$(BT_ENV) $(EMU) $(BUILD)/bench/bench_static_call $(BENCH_ARGS) --json $(BUILD)/bench/static_call.json --plot $(BUILD)/bench/static
	$(BT_ENV) $(EMU) $(BUILD)/bench/bench_workload $(BENCH_ARGS) --json $(BUILD)/bench/workload.json --plot $(BUILD)/bench/workload
	$(BT_ENV) $(EMU) $(BUILD)/bench/bench_hooks $(BENCH_ARGS) --json $(BUILD)/bench/hooks.json --plot $(BUILD)/bench/hooks \
		--workload $(BUILD)/bench/workload.dat \
		--callgrind-exe $(BUILD)/bench/bench_hooks-nodebug $(if $(EMU),--no-callgrind)
	@for b in $(BA_BINS); do $(BT_ENV) $(EMU) $$b $(BENCH_ARGS) || exit 1; done
	$(BT_ENV) $(EMU) $(BUILD)/bench/bench_tracepoint $(BENCH_ARGS) --json $(BUILD)/bench/tracepoint.json --plot $(BUILD)/bench/tracepoint
	$(if $(HAVE_LTTNG),$(BT_ENV) bench/lttng/session.sh $(BUILD)/bench/bench_tracepoint $(BENCH_ARGS) --json $(BUILD)/bench/tracepoint-lttng.json)
	$(BT_ENV) $(EMU) $(BUILD)/bench/bench_hook_trace $(BENCH_ARGS) --json $(BUILD)/bench/hook_trace.json
	@for c in $(BENCH_CHARTS); do \
		if command -v gnuplot >/dev/null 2>&1; then \
			gnuplot $(BUILD)/bench/$$c.gp && echo "chart: $(BUILD)/bench/$$c.png"; \
		else \
			echo "gnuplot not installed: chart $(BUILD)/bench/$$c.png skipped (apt-get install gnuplot-nox)"; \
		fi; \
	done
	@bench/targets.sh $(BENCH_TARGETS)
