# SPDX-License-Identifier: MIT
#
# The tests, included by the Makefile (after the library's variables).
#
# A test is a file tests/<feature>/t_<name>.c: it becomes the program
# $(BUILD)/tests/t_<name>.t, compiled with -Isrc -Itests/lib -Itests/<feature>
# and linked with the static library (so that the library's hidden fault
# injection is reachable), and make check runs it. Nothing else is needed
# for a new test; what one needs beyond that is said by variables named
# after it, read when its rule is made (at the end of this file):
#
#   t_x_SRC	its main source, when it is not tests/*/t_x.c (a second build
#		of another test's source)
#   t_x_SRCS	more sources compiled into it (the test hook set)
#   t_x_CPPFLAGS, t_x_CFLAGS, t_x_LDFLAGS	flags added to the defaults
#   t_x_PIE	-fPIE -pie unless set (t_key_semantics_nopie)
#   t_x_LINK	static (the default), whole (the whole static library, for
#		plug-ins that find it in the program through -rdynamic), or
#		shared (libulsm.so, found through the run path $ORIGIN/..)
#   t_x_LIBS	before the library; t_x_LDLIBS after it
#   t_x_DEPS	what must be built first (its plug-ins, a tool it runs)
#   t_x_SKIP	when not empty, the test is a script that says it skipped,
#		with this reason
#
# A script test is tests/<feature>/t_<name>.sh.in (or .pl.in): the same
# program name, made by substituting @SRCDIR@, @BUILDDIR@, @CC@ and the
# other names of TEST_SED in it, then t_x_SED; t_x_DEPS as above.
#
# Plug-ins with one source are tests/<feature>/plugin_x.c, built into
# $(BUILD)/tests/plugin_x.so by one rule with the same kind of variables
# (plugin_x_SRC, _CPPFLAGS, _CFLAGS, _LINK: none, the default, or shared).
# Families of plug-ins built from one source with other macros (pb_, pg_,
# ch_, rp_) have a pattern rule each, below.
#
# The programs are all in $(BUILD)/tests/, where make check runs them, so
# that a test finds its plug-ins in ULSM_TEST_PLUGIN_DIR=. and the
# library in $ORIGIN/.. .

TEST_SRCS	:= $(sort $(wildcard tests/*/t_*.c))
TEST_SCRIPTS	:= $(sort $(wildcard tests/*/t_*.sh.in tests/*/t_*.pl.in))
TEST_NAMES	:= $(notdir $(TEST_SRCS:.c=)) $(notdir $(basename $(TEST_SCRIPTS:.in=)))
# Second builds of a test's source (without PIE; for retpolines), and the
# public headers compiled as C++.
TEST_NAMES	+= t_key_semantics_nopie t_static_call_rp t_lsm_entry_rp t_cxx
TEST_BINS	:= $(TEST_NAMES:%=$(BUILD)/tests/%.t)

# What every test program is rebuilt after; each also follows the headers
# of its own folder.
TEST_DEPS	:= $(wildcard tests/lib/*.h) $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
test_dir	= $(patsubst %/,%,$(dir $(1)))

# --- the test hook set, and tests that need more than the defaults ------

# The hook framework's test set (tests/lsm/test_lsm.c): its modules, linked
# into the hook-framework tests and into tests elsewhere that need a set.
TL_SRC		:= tests/lsm/test_lsm.c
TL_TESTS	:= t_lsm_arrival t_lsm_blobs t_lsm_call_sites t_lsm_dispatch \
		   t_lsm_entry t_lsm_init_fail t_lsm_order t_lsm_order_parse \
		   t_lsm_seal t_lsm_seal_api t_lsm_toggle t_lsm_two_sets \
		   t_lsm_words t_lsm_entry_rp t_dump t_fault_walk t_control \
		   t_control_door t_control_walk t_control_fork t_lsm_trace
$(foreach t,$(TL_TESTS),$(eval $(t)_SRCS += $(TL_SRC)))
$(foreach t,t_dump t_fault_walk t_control t_control_fuzz t_control_door t_control_walk t_control_fork,$(eval $(t)_CPPFLAGS += -Itests/lsm))

# engine/: the fault walk, the hostile program and the pending objects
# export the whole static library to plug-ins built without -lulsm.
t_fault_walk_LINK	:= whole
t_fault_walk_LDFLAGS	:= -rdynamic
t_fault_walk_DEPS	:= $(BUILD)/tests/plugin_walk.so $(BUILD)/tests/plugin_late.so
t_hostile_LINK		:= whole
t_hostile_LDFLAGS	:= -rdynamic
t_hostile_DEPS		:= $(BUILD)/tests/plugin_fdhog.so
t_pending_LINK		:= whole
t_pending_LDFLAGS	:= -rdynamic
t_pending_DEPS		:= $(BUILD)/tests/plugin_walk.so
# Names in the dump come from the dynamic symbol table.
t_dump_LDFLAGS		:= -rdynamic
t_dump_DEPS		:= $(BUILD)/tests/plugin_slowfini.so
# BTI (aarch64): the plug-in is built with branch protection and without
# the C runtime's start files, which Debian 12 does not mark, so that the
# linker marks it and the loader guards its text.
t_bti_LINK		:= shared
t_bti_DEPS		:= $(if $(filter aarch64,$(BACKEND_EFF)),$(BUILD)/tests/plugin_bti.so)

# static/: keys across objects (the plug-in shares libulsm.so with the
# test); the key semantics again without PIE; the static calls' own test
# again for retpolines (every form's retpoline layout), which without a
# retpoline option (aarch64) would only repeat it: it says it skipped.
t_dlopen_LINK		:= shared
t_dlopen_LDFLAGS	:= -rdynamic
t_dlopen_DEPS		:= $(BUILD)/tests/plugin_keys.so
t_key_semantics_nopie_SRC := tests/static/t_key_semantics.c
t_key_semantics_nopie_PIE := -fno-pie -no-pie
RP_ONLY_CFLAGS	= $(if $(SC_RETPOLINE),$(SC_RETPOLINE) -DULSM_RETPOLINE=1)
RP_SKIP		= $(if $(SC_RETPOLINE),,$(CC) has no retpoline option)
t_static_call_rp_SRC	:= tests/static/t_static_call.c
t_static_call_rp_CFLAGS	= $(RP_ONLY_CFLAGS)
t_static_call_rp_SKIP	= $(RP_SKIP)
# (no return thunks: t_lsm_entry reads its first set's returns as plain ret)
t_lsm_entry_rp_SRC	:= tests/lsm/t_lsm_entry.c
t_lsm_entry_rp_CFLAGS	= $(RP_ONLY_CFLAGS)
t_lsm_entry_rp_SKIP	= $(RP_SKIP)

# lsm/: plug-ins of a host's set, built right and wrong (t_plugin_build),
# pinned while the dynamic linker loads another (t_pin_lock), that come and
# go (t_lsm_plugins, t_lsm_churn), that pay for unloading or not (t_guard:
# a module in a linked object, and one never unloaded; t_guard_preload), a
# departure that cannot finish (t_depart), and no bare indirect branch on
# any dispatch path of a retpoline build (t_retpoline). Each host exports
# its set to its plug-ins (-rdynamic).
PB_PLUGINS	:= $(BUILD)/tests/pb_rate.so $(BUILD)/tests/pb_list.so $(BUILD)/tests/pb_count.so
PG_PLUGINS	:= $(BUILD)/tests/pg_rate.so $(BUILD)/tests/pg_audit.so \
		   $(BUILD)/tests/pg_slow.so $(BUILD)/tests/pg_spam.so
$(foreach t,t_plugin_build t_pin_lock t_lsm_plugins t_guard t_guard_preload t_lsm_churn t_retpoline,\
	$(eval $(t)_LINK := shared)$(eval $(t)_LDFLAGS := -rdynamic))
t_plugin_build_DEPS	:= $(PB_PLUGINS) $(BUILD)/tests/pb_host_nodyn
t_pin_lock_DEPS		:= $(addprefix $(BUILD)/tests/,pb_rate.so pb_lag.so pb_manual.so)
t_lsm_plugins_DEPS	:= $(PG_PLUGINS)
t_guard_LDLIBS		:= -L$(BUILD)/tests -Wl,--push-state,--no-as-needed -lpg_boot \
			   -Wl,--pop-state -Wl,-rpath,'$$ORIGIN'
t_guard_DEPS		:= $(addprefix $(BUILD)/tests/,libpg_boot.so pg_audit.so pg_keep.so)
t_guard_preload_DEPS	:= $(addprefix $(BUILD)/tests/,pg_pre.so pg_audit.so)
t_depart_LINK		:= whole
t_depart_LDFLAGS	:= -rdynamic
t_depart_DEPS		:= $(BUILD)/tests/pgw_rate.so $(BUILD)/tests/pgw_lag.so
# A statically linked host: its plug-in cannot find its set (issue 40).
t_static_host_PIE	:= -static
t_static_host_DEPS	:= $(BUILD)/tests/pgw_rate.so
t_static_host_SKIP	:= $(if $(SANITIZE),the sanitizers' runtimes do not link statically)
t_lsm_churn_LIBS	:= $(BUILD)/tests/ch_a.o $(BUILD)/tests/ch_b.o
t_lsm_churn_DEPS	:= $(t_lsm_churn_LIBS) $(BUILD)/tests/ch_p1.so $(BUILD)/tests/ch_p2.so
# Host and plug-ins with the compiler's retpolines (and return thunks
# where it has them) and ULSM_RETPOLINE; APR's drop-in too, where APR is
# installed. Without a retpoline option the test says it skipped.
RP_FLAGS	= $(SC_RETPOLINE)$(if $(SC_RETPOLINE),$(if $(SC_RETHUNK), $(SC_RETHUNK)))
RP_CFLAGS	= $(if $(SC_RETPOLINE),$(RP_FLAGS) -DULSM_RETPOLINE=1 $(if $(SC_RETHUNK),-DULSM_RETURN_THUNK=1)) \
		  -DRP_FLAGS='"$(RP_FLAGS)"'
RP_APR_OBJ	:= $(if $(filter y,$(HAVE_APR)),$(BUILD)/tests/rp_apr.o)
t_retpoline_CPPFLAGS	:= $(if $(RP_APR_OBJ),-DRP_APR=1)
t_retpoline_CFLAGS	= $(RP_CFLAGS)
t_retpoline_LIBS	:= $(RP_APR_OBJ) $(if $(RP_APR_OBJ),-lulsm-apr $(APR_LIBS))
t_retpoline_DEPS	:= $(BUILD)/tests/rp_p1.so $(BUILD)/tests/rp_p2.so $(RP_APR_OBJ) \
			   $(if $(RP_APR_OBJ),$(BUILD)/libulsm-apr.so)

# trace/: a tracepoint in a plug-in, which the test loads.
t_tracepoint_LINK	:= shared
t_tracepoint_LDFLAGS	:= -rdynamic
t_tracepoint_DEPS	:= $(BUILD)/tests/plugin_tp.so

# control/: the endpoint's tests run ulsm-trace on a recording; t_control
# also loads a plug-in with a switch (no -lulsm: it finds the library in
# the test program).
t_control_CPPFLAGS	+= -DTC_TRACE_TOOL='"$(abspath $(BUILD))/ulsm-trace"' \
			   -DTC_PLUGIN='"$(abspath $(BUILD))/tests/plugin_switch.so"'
t_control_LINK		:= whole
t_control_LDFLAGS	:= -rdynamic
t_control_DEPS		:= $(BUILD)/ulsm-trace $(BUILD)/tests/plugin_switch.so
t_control_fuzz_DEPS	:= $(BUILD)/ulsm-trace
t_control_door_CPPFLAGS	+= -DTC_TRACE_TOOL='"$(abspath $(BUILD))/ulsm-trace"'
t_control_door_DEPS	:= $(BUILD)/ulsm-trace
# ulsmctl against fake endpoints, good and hostile: the one built here,
# with the ulsm-trace next to it.
t_ulsmctl_door_CPPFLAGS	:= -DTC_ULSMCTL='"$(abspath $(BUILD))/ulsmctl"'
t_ulsmctl_door_DEPS	:= $(BUILD)/ulsmctl $(BUILD)/ulsm-trace
# ulsmctl's JSON parser and escaping, alone.
t_ulsmctl_json_CPPFLAGS	:= -Itools/ulsmctl
t_ulsmctl_json_SRCS	:= tools/ulsmctl/json.c tools/ulsmctl/escape.c
t_ulsmctl_json_DEPS	:= $(wildcard tools/ulsmctl/*.h)

# tools/: ulsm-trace on hostile files, the one built here (with the same
# sanitizers), and its CTF traces read by babeltrace2 as its text reads
# the same files (ctf_compare.sh).
t_trace_fuzz_CPPFLAGS	:= -DTF_TOOL='"$(abspath $(BUILD))/ulsm-trace"' \
			   -DTF_COMPARE='"$(CURDIR)/tests/tools/ctf_compare.sh"'
t_trace_fuzz_DEPS	:= $(BUILD)/ulsm-trace tests/tools/ctf_compare.sh
# Every type through the text, the JSON and the CTF trace (babeltrace2
# where it is installed), and the comparison any recording can be given.
t_trace_types_CPPFLAGS	:= -DTT_TOOL='"$(abspath $(BUILD))/ulsm-trace"' \
			   -DTT_COMPARE='"$(CURDIR)/tests/tools/ctf_compare.sh"'
t_trace_types_DEPS	:= $(BUILD)/ulsm-trace tests/tools/ctf_compare.sh

# apr/: the drop-in's run functions read after registration (t_apr_tail,
# against ulsm-apr where APR is installed; elsewhere it skips), and
# httpd's graceful restart (t_apr_reload: a module with hooks of its own,
# loaded and unloaded, sharing the shared libraries with the program).
ifeq ($(HAVE_APR),y)
t_apr_tail_CPPFLAGS	:= $(ULSM_APR_CFLAGS) $(APR_CFLAGS) -DHAVE_APR=1
t_apr_tail_LIBS		:= $(APR_LIB)
t_apr_tail_LDLIBS	:= $(APR_LIBS)
t_apr_tail_DEPS		:= $(ULSM_APR_DEPS)
# Its refills under injected faults, linked statically as t_apr_tail is
# (the library's fault injection is reachable there).
t_apr_fault_CPPFLAGS	:= $(ULSM_APR_CFLAGS) $(APR_CFLAGS) -DHAVE_APR=1
t_apr_fault_LIBS	:= $(APR_LIB)
t_apr_fault_LDLIBS	:= $(APR_LIBS)
t_apr_fault_DEPS	:= $(ULSM_APR_DEPS)
t_apr_reload_CPPFLAGS	:= $(ULSM_APR_CFLAGS) $(APR_CFLAGS) -DHAVE_APR=1
t_apr_reload_LINK	:= shared
t_apr_reload_LDFLAGS	:= -rdynamic
t_apr_reload_LIBS	:= -lulsm-apr
t_apr_reload_LDLIBS	:= $(APR_LIBS)
t_apr_reload_DEPS	:= $(ULSM_APR_DEPS) $(BUILD)/tests/apr_reload_mod.so
endif

# --- script tests -------------------------------------------------------

TEST_SED	= -e 's|@SRCDIR@|$(CURDIR)|' -e 's|@BUILDDIR@|$(abspath $(BUILD))|' \
		  -e 's|@OBJDIR@|$(abspath $(BUILD))|' -e 's|@CC@|$(CC)|' -e 's|@NM@|$(NM)|' \
		  -e 's|@CONFIG_H@|$(abspath $(CONFIG_H))|' \
		  -e 's|@SANFLAGS@|$(SANFLAGS)|' -e 's|@HAVE_APR@|$(HAVE_APR)|' -e 's|@SOVERSION@|$(SOVERSION)|'
NM		?= $(CROSS_COMPILE)nm

# meta/: compiled as users' programs are (no _GNU_SOURCE); the README's
# examples; the manual pages against the headers; every system call
# through src/base/sys.c; the layers only look down (from the objects).
t_compile_SED	= -e 's|@INCS@|-I$(abspath $(BUILD))/include -I$(CURDIR)/include|' \
		  -e 's|@CFLAGS@|-I$(CURDIR)/tests -I$(CURDIR)/tests/meta $(CPPFLAGS) -std=gnu11 -Wall -Wextra $(SANFLAGS) -pthread|' \
		  -e 's|@LIBS@|$(abspath $(STATIC_LIB)) $(LDLIBS_ALL)|' \
		  -e 's|@APR_INCS@|$(if $(filter y,$(HAVE_APR)),-I$(CURDIR)/include/ulsm/apr -I$(abspath $(BUILD))/include -I$(CURDIR)/include $(APR_CFLAGS))|'
# The pedantic programs (compile/pedantic_*): by $(CC) and $(CXX), and by
# the other of gcc and clang where it is installed, unless cross-compiling.
other_cc	= $(if $(CROSS_COMPILE),,$(shell command -v $(1) >/dev/null 2>&1 && echo $(1)))
t_compile_SED	+= -e 's|@CXX@|$(if $(filter y,$(HAVE_CXX)),$(CXX))|' \
		  -e 's|@OTHER_CC@|$(call other_cc,$(if $(findstring clang,$(CC)),gcc,clang))|' \
		  -e 's|@OTHER_CXX@|$(call other_cc,$(if $(findstring clang,$(CC)),g++,clang++))|' \
		  -e 's|@PED_INCS@|-I$(abspath $(BUILD))/include -I$(CURDIR)/include -I$(CURDIR)/tests -I$(CURDIR)/tests/meta $(CPPFLAGS)|'
t_compile_DEPS	:= $(wildcard tests/meta/compile/*.c tests/meta/compile/*.cc tests/meta/compile/*/*) \
		   tests/meta/cxx_headers.cc $(wildcard examples/*.c examples/hooks/*) \
		   $(HEADERS) $(APR_HEADERS) $(CONFIG_H) $(STATIC_LIB)
t_examples_SED	= -e 's|@CFLAGS@|$(CFLAGS_ALL)|'
t_examples_DEPS	:= $(SMALL_EXAMPLES) $(BUILD)/libulsm.so $(BUILD)/ulsm-uninstalled.pc
t_man_DEPS	:= $(wildcard man/*) $(HEADERS) $(CONFIG_H)
t_sys_wrapped_DEPS := $(wildcard src/*.c src/*/*.c src/engine/arch/*/*.c)
t_layers_DEPS	:= $(LIB_OBJS)
# Every ordered atomic and fence says what it pairs with (issue 41).
t_pairs_DEPS	:= $(wildcard src/*.c src/*/*.c src/*/*.h src/engine/arch/*.h \
		   src/engine/arch/*/*.c include/ulsm/apr/*.h) $(HEADERS)
# The exports: each with our version and a public declaration; the map
# and ULSM_API agree (docs/abi.md).
t_symbols_SED	= -e 's|@READELF@|$(CROSS_COMPILE)readelf|'
t_symbols_DEPS	:= $(BUILD)/libulsm.so $(LIB_OBJS) libulsm.map $(HEADERS) \
		   $(if $(filter y,$(HAVE_APR)),$(BUILD)/libulsm-apr.so)
# The ABI: the libraries against abi/*/ (abidiff), and programs and a
# plug-in built with a baseline's headers run with this library.
t_abidiff_SED	= -e 's|@ABI_BASE_OK@|$(ABI_BASE_OK)|' -e 's|@ABIDW_FLAGS@|$(ABIDW_FLAGS)|'
t_abidiff_DEPS	:= $(BUILD)/libulsm.so $(HEADERS) $(wildcard abi/*/*.abi) abi/ulsm.abignore \
		   $(if $(filter y,$(HAVE_APR)),$(BUILD)/libulsm-apr.so)
t_abi_compat_SED = -e 's|@CROSS_COMPILE@|$(CROSS_COMPILE)|'
t_abi_compat_DEPS := $(BUILD)/libulsm.so $(wildcard abi/*/include.tar.gz) \
		   tests/meta/abi_compat/program.c $(wildcard examples/plugins/*)
# One path for every change: from the objects, and from the sources'
# syntax trees, read by clang (this compiler when it is clang).
AST_CLANG	:= $(if $(findstring clang,$(notdir $(CC))),$(CC),clang)
t_one_txn_SED	= -e 's|@CLANG@|$(AST_CLANG)|' \
		  -e 's|@AST_FLAGS@|-I$(abspath $(BUILD))/include -I$(CURDIR)/include -I$(CURDIR)/src -D_GNU_SOURCE -DULSM_BUILDING_LIBRARY=1 -std=gnu11|' \
		  -e 's|@APR_AST_FLAGS@|$(APR_CFLAGS)|'
t_one_txn_DEPS	:= $(LIB_OBJS) $(wildcard src/*.c src/*/*.c) $(BUILD)/libulsm.so \
		   $(if $(filter y,$(HAVE_APR)),$(BUILD)/apr/apr_hooks.o)
# tools/: ulsm-trace on the tracepoint test's recording; ulsmctl against
# the control demo.
t_trace_tool_DEPS := $(BUILD)/ulsm-trace $(BUILD)/examples/trace/trace_demo
t_ulsmctl_DEPS	:= $(BUILD)/ulsmctl $(BUILD)/ulsm-trace $(BUILD)/examples/control/control_demo
# trace/: bpftrace on a running program's USDT probes (as root), a server
# of its own with a tracepoint and a hook set.
t_usdt_DEPS	:= $(BUILD)/tests/usdt_server $(BUILD)/ulsmctl
$(BUILD)/tests/usdt_server: tests/trace/usdt_server.c tests/trace/usdt_hook_defs.h tests/lib/req_modules.h \
		$(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/lib -Itests/trace $(CFLAGS_ALL) -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)
# apr/: an installed libulsm-apr, used as the README says: the test runs
# make install into a temporary PREFIX with this build's variables.
# (@MAKE@ only here: make -n runs a recipe that names $(MAKE).)
t_apr_install_SED = -e 's|@MAKE@|$(MAKE)|' -e "s|@MAKEARGS@|BUILD='$(BUILD)' CC='$(CC)' BACKEND='$(BACKEND)' SANITIZE='$(SANITIZE)' CROSS_COMPILE='$(CROSS_COMPILE)'|"
t_apr_install_DEPS := Makefile
# The drop-in against libaprutil, byte for byte (t_apr_diff).
include tests/apr/apr_diff.mk
t_apr_diff_DEPS	= $(APR_DIFF_BINS)

# --- plug-ins -----------------------------------------------------------

# One source each; linked with libulsm.so (LINK := shared), or finding
# the library in the test program that loads them.
plugin_keys_LINK	:= shared
plugin_tp_LINK		:= shared
plugin_bti_LINK		:= shared
plugin_bti_CFLAGS	:= -mbranch-protection=standard -nostartfiles
# The fault walk's and t_pending's: t_dlopen's plug-in without -lulsm.
plugin_walk_SRC		:= tests/static/plugin_keys.c
plugin_late_CPPFLAGS	:= -Itests/lsm
plugin_late_DEPS	:= $(wildcard tests/lsm/*.h)
PLUGIN_NAMES	:= $(notdir $(basename $(wildcard tests/*/plugin_*.c))) plugin_walk

define plugin_rule
$(1)_SRC	?= $(wildcard tests/*/$(1).c)
$(BUILD)/tests/$(1).so: $$($(1)_SRC) $$(wildcard $$(call test_dir,$$($(1)_SRC))/*.h) $$(HEADERS) $$(CONFIG_H) \
		$$(if $$(filter shared,$$($(1)_LINK)),$$(BUILD)/libulsm.so) $$($(1)_DEPS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS_ALL) -Itests/lib -I$$(call test_dir,$$<) $$($(1)_CPPFLAGS) $$(CFLAGS_ALL) $$($(1)_CFLAGS) \
		-fPIC -shared -o $$@ $$< $$(if $$(filter shared,$$($(1)_LINK)),-L$$(BUILD) -lulsm $$(LDLIBS_ALL))
endef

# Plug-ins of a host's hook set, built right and wrong (t_plugin_build,
# t_pin_lock): a lagging one, and one whose module the host registers.
PB_DEPS		:= $(wildcard tests/lsm/pluginbuild/*.h) $(HEADERS) $(CONFIG_H)
pb_flags_list	:= -DPB_OTHER_LIST
pb_flags_count	:= -DPB_COUNT=8
pb_flags_lag	:= -DPB_NAME=lag -DPB_LAG
pb_flags_manual	:= -DPB_NAME=manual -DPB_MANUAL
$(BUILD)/tests/pb_%.so: tests/lsm/pluginbuild/module.c $(PB_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/lsm $(pb_flags_$*) $(CFLAGS_ALL) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

$(BUILD)/tests/pb_host_nodyn: tests/lsm/t_plugin_build.c $(PB_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/lib -Itests/lsm -DPB_NO_RDYNAMIC $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/..' $(LDLIBS_ALL)

# Plug-ins of a set that allows unloading: one source, one object per
# module, each denying its own request; pgw_ without -lulsm (they find the
# library in the program, as the fault walk's do), libpg_boot.so linked
# by t_guard (DT_NEEDED).
PG_DEPS		:= $(wildcard tests/lsm/plugins/*.h) $(HEADERS) $(CONFIG_H)
pg_flags_rate	:= -DPG_DENY=7
pg_flags_audit	:= -DPG_DENY=100
pg_flags_slow	:= -DPG_DENY=200 -DPG_SLOW
pg_flags_spam	:= -DPG_DENY=5
pg_flags_keep	:= -DPG_DENY=400 -Wl,-z,nodelete
pg_flags_pre	:= -DPG_DENY=500
pg_flags_boot	:= -DPG_DENY=300 -Wl,-soname,libpg_boot.so
pgw_flags_rate	:= $(pg_flags_rate)
pgw_flags_lag	:= -DPG_DENY=7 -DPG_LAG
PG_CC		= $(CC) $(CPPFLAGS_ALL) -Itests/lsm -DPG_NAME=$* $(1) $(CFLAGS_ALL) -fPIC -shared -o $@ $<
$(BUILD)/tests/pg_%.so: tests/lsm/plugins/module.c $(PG_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(call PG_CC,$(pg_flags_$*)) -L$(BUILD) -lulsm $(LDLIBS_ALL)
$(BUILD)/tests/libpg_%.so: tests/lsm/plugins/module.c $(PG_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(call PG_CC,$(pg_flags_$*)) -L$(BUILD) -lulsm $(LDLIBS_ALL)
$(BUILD)/tests/pgw_%.so: tests/lsm/plugins/module.c $(PG_DEPS)
	@mkdir -p $(dir $@)
	$(call PG_CC,$(pgw_flags_$*))

# Plug-in churn for every dispatch shape (t_lsm_churn): one source for
# the four modules, a and b linked into the host, p1 and p2 plug-ins.
CH_DEPS		:= $(wildcard tests/lsm/churn/*.h) $(HEADERS) $(CONFIG_H)
ch_id_a		:= 1
ch_id_p1	:= 2
ch_id_b		:= 3
ch_id_p2	:= 4
CH_CC		= $(CC) $(CPPFLAGS_ALL) -Itests/lsm -DCH_NAME=$* -DCH_ID=$(ch_id_$*) $(CFLAGS_ALL)
$(BUILD)/tests/ch_%.o: tests/lsm/churn/module.c $(CH_DEPS)
	@mkdir -p $(dir $@)
	$(CH_CC) -fPIE -c -o $@ $<
$(BUILD)/tests/ch_%.so: tests/lsm/churn/module.c $(CH_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CH_CC) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

# t_retpoline's plug-ins and its APR unit, with the host's flags.
RP_DEPS		:= $(wildcard tests/lsm/retpoline/*.h) $(HEADERS) $(CONFIG_H)
$(BUILD)/tests/rp_%.so: tests/lsm/retpoline/plugin.c $(RP_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/lsm -DRP_NAME=$* $(CFLAGS_ALL) $(RP_CFLAGS) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)
$(BUILD)/tests/rp_apr.o: tests/lsm/retpoline/apr.c $(RP_DEPS) $(ULSM_APR_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ULSM_APR_CFLAGS) $(APR_CFLAGS) -Itests/lsm $(CFLAGS_ALL) $(RP_CFLAGS) -fPIE -c -o $@ $<

# t_apr_reload's module, with hooks of its own.
ifeq ($(HAVE_APR),y)
$(BUILD)/tests/apr_reload_mod.so: tests/apr/reload_mod.c tests/apr/reload.h $(ULSM_APR_DEPS) $(BUILD)/libulsm.so $(BUILD)/libulsm-apr.so
	@mkdir -p $(dir $@)
	$(CC) $(ULSM_APR_CFLAGS) $(APR_CFLAGS) -Itests/apr $(CFLAGS_ALL) -fPIC -shared -o $@ $< \
		-L$(BUILD) -lulsm-apr -lulsm $(APR_LIBS) $(LDLIBS_ALL)
endif

# The C++ unit expands a hook set's declarations; a C unit defines the set.
# musl-gcc has no C++ counterpart: without one, the test says it skipped.
HAVE_CXX	= $(eval HAVE_CXX := $(shell command -v $(firstword $(CXX)) >/dev/null 2>&1 && echo y))$(HAVE_CXX)
$(BUILD)/tests/t_cxx.t: tests/meta/cxx_headers.cc tests/meta/cxx_set.c $(TEST_DEPS)
	@mkdir -p $(dir $@)
ifeq ($(HAVE_CXX),y)
	$(CC) $(CPPFLAGS_ALL) -Itests -Itests/lib -Itests/meta $(CFLAGS_ALL) -c tests/meta/cxx_set.c -o $(BUILD)/tests/cxx_set.o
	$(CXX) $(CPPFLAGS_ALL) -Itests -Itests/lib -Itests/meta $(CXXFLAGS_ALL) -o $@ $< $(BUILD)/tests/cxx_set.o $(STATIC_LIB) $(LDLIBS_ALL)
else
	$(call skip_script,no C++ compiler $(CXX) for $(CC))
endif

# --- the rules ----------------------------------------------------------

link_static	= $(1) $(STATIC_LIB)
link_whole	= $(1) -Wl,--whole-archive $(STATIC_LIB) -Wl,--no-whole-archive
link_shared	= -L$(BUILD) $(1) -lulsm -Wl,-rpath,'$$ORIGIN/..'
link_deps_shared := $(BUILD)/libulsm.so
skip_script	= printf '\#!/bin/sh\necho "1..0 \# SKIP %s"\n' '$(subst ','\'',$(1))' > $@ && chmod +x $@

define test_rule
$(1)_SRC	?= $(wildcard tests/*/$(1).c)
$(1)_PIE	?= -fPIE -pie
$(1)_LINK	?= static
$(BUILD)/tests/$(1).t: $$($(1)_SRC) $$($(1)_SRCS) $$(wildcard $$(call test_dir,$$($(1)_SRC))/*.h $$(call test_dir,$$($(1)_SRC))/*/*.h) \
		$$(TEST_DEPS) $$(link_deps_$$($(1)_LINK)) $$($(1)_DEPS)
	@mkdir -p $$(dir $$@)
	$$(if $$($(1)_SKIP),$$(call skip_script,$$($(1)_SKIP)),$$(CC) $$(CPPFLAGS_ALL) -Isrc -Itests/lib -I$$(call test_dir,$$<) \
		$$($(1)_CPPFLAGS) $$(CFLAGS_ALL) $$($(1)_CFLAGS) $$($(1)_PIE) $$($(1)_LDFLAGS) -o $$@ $$< $$($(1)_SRCS) \
		$$(call link_$$($(1)_LINK),$$($(1)_LIBS)) $$($(1)_LDLIBS) $$(LDLIBS_ALL))
endef

define script_rule
$(BUILD)/tests/$(1).t: $(2) $$($(1)_DEPS)
	@mkdir -p $$(dir $$@)
	sed $$($(1)_SED) $$(TEST_SED) $$< > $$@
	chmod +x $$@
endef

$(foreach t,$(filter-out t_cxx,$(notdir $(TEST_SRCS:.c=))) t_key_semantics_nopie t_static_call_rp t_lsm_entry_rp,\
	$(eval $(call test_rule,$(t))))
$(foreach s,$(TEST_SCRIPTS),$(eval $(call script_rule,$(notdir $(basename $(s:.in=))),$(s))))
$(foreach p,$(PLUGIN_NAMES),$(eval $(call plugin_rule,$(p))))

# --- running them -------------------------------------------------------

# Build without running: CI builds everything with make -j from scratch.
tests: all $(TEST_BINS)

# make check runs the tests two at a time (CHECK_JOBS), then, alone, those
# that load every CPU or measure time (SERIAL_TESTS): a stress's threads
# or a timeout that another test's load could stretch. One prove run:
# the schedule is prove's rules file (testrules.yml, written here).
CHECK_JOBS	?= 2
# Each test's limit in seconds: one that hangs fails, named, at this
# point (tests/lib/test_exec.sh). The slowest test takes about a minute
# natively; emulators and sanitizers stretch that several times.
TEST_TIMEOUT	?= $(if $(EMU),1200,600)
SERIAL_TESTS	:= t_stress t_stress_mprotect t_sync_fallback t_static_call_stress \
		   t_grace t_lsm_toggle t_depart
# SOURCE_CHECKS=0: the checks that read only the source tree, the same
# in every build (t_man's pages against the headers, t_one_txn's reading
# of the sources' syntax trees by the host's clang), skip; CI runs them
# in one build of its seven.
SOURCE_CHECKS	?= 1
# Sanitizers make each APR seed 3-10 times slower: fewer seeds there.
APR_DIFF_SEEDS	?= $(if $(SANITIZE),100,300)
# The longest tests start first, so that two at a time end together
# rather than one running alone at the end (in CI's sanitizer and
# emulator runs, t_fault_walk alone takes two minutes): the order in
# which prove starts them, nothing else.
LONG_TESTS	:= t_fault_walk t_tp_fault t_trace_fuzz t_fork t_ulsmctl \
		   t_apr_diff t_static_call_inline t_lsm_plugins t_trace_tool \
		   t_tracepoint t_ulsmctl_door t_one_txn
CHECK_PAR	= $(foreach t,$(LONG_TESTS),$(filter $(t),$(TEST_NAMES))) \
		  $(filter-out $(SERIAL_TESTS) $(LONG_TESTS),$(TEST_NAMES))
CHECK_SEQ	= $(filter $(SERIAL_TESTS),$(TEST_NAMES))
check: all $(TEST_BINS)
	@{ echo '---'; echo 'seq:'; echo '  - par:'; \
	   for t in $(CHECK_PAR); do echo "      - ./$$t.t"; done; \
	   echo '  - seq:'; for t in $(CHECK_SEQ); do echo "      - ./$$t.t"; done; \
	} > $(BUILD)/tests/testrules.yml
	cd $(BUILD)/tests && ULSM_TEST_PLUGIN_DIR=. ULSM_EMU='$(EMU)' APR_DIFF_SEEDS=$(APR_DIFF_SEEDS) \
		ULSM_SOURCE_CHECKS=$(SOURCE_CHECKS) \
		ULSM_TEST_TIMEOUT=$(TEST_TIMEOUT) \
		prove -j$(CHECK_JOBS) --timer --exec 'sh $(CURDIR)/tests/lib/test_exec.sh' \
		$(patsubst %,./%.t,$(CHECK_PAR) $(CHECK_SEQ))

# make stress: what make check does not run, sized for CI (a few minutes
# on 2 CPUs): more threads than CPUs, longer runs of the grace periods,
# the tracepoints, the plug-ins and ulsm-trace's large files. make
# stress-full (STRESS=full) adds 50,000 updates of each kind with 3
# threads running them and every errno at every system call of each kind
# of update (about 15 minutes); its counts are each line's second.
STRESS		?=
full		= $(filter full,$(STRESS))
st		= $(if $(full),$(2),$(1))
STRESS_ARGS	?= --flips 50000 --threads 3
TRACE_FUZZ_ARGS	?= --scale $(call st,3,10) --seed 2
STRESS_TESTS	:= t_trace_fuzz t_grace t_lsm_plugins t_lsm_churn t_fault_walk t_stress \
		   t_sync_fallback t_static_call_stress t_lsm_toggle t_lsm_call_sites \
		   t_static_call_inline t_tracepoint
.PHONY: stress stress-full
stress-full:
	$(MAKE) stress STRESS=full
stress: all $(STRESS_TESTS:%=$(BUILD)/tests/%.t)
	$(if $(full),$(EMU) $(BUILD)/tests/t_stress.t $(STRESS_ARGS))
	$(if $(full),$(EMU) $(BUILD)/tests/t_static_call_stress.t --updates 50000 --threads 3)
	$(if $(full),$(EMU) $(BUILD)/tests/t_lsm_toggle.t --toggles 20000 --threads 3)
	$(if $(full),$(EMU) $(BUILD)/tests/t_lsm_call_sites.t --updates 50000 --threads 3)
	$(if $(full),$(EMU) $(BUILD)/tests/t_static_call_inline.t --updates 50000 --threads 3)
	$(if $(full),$(EMU) $(BUILD)/tests/t_sync_fallback.t --flips 3000 --threads 3)
	# More threads than CPUs: 16 and 64 on CI's 2.
	$(EMU) $(BUILD)/tests/t_stress.t --flips $(call st,500,1000) --threads 16
	$(EMU) $(BUILD)/tests/t_stress.t --flips $(call st,150,300) --threads 64
	$(EMU) $(BUILD)/tests/t_static_call_stress.t --updates $(call st,500,1000) --threads 16
	$(EMU) $(BUILD)/tests/t_lsm_toggle.t --toggles $(call st,250,500) --threads 16
	$(EMU) $(BUILD)/tests/t_sync_fallback.t --flips $(call st,50,100) --threads 16
	$(EMU) $(BUILD)/tests/t_grace.t --swaps $(call st,2000,5000)
	# Probe changes while 4 threads hit the tracepoint.
	cd $(BUILD)/tests && ULSM_TEST_PLUGIN_DIR=. $(EMU) ./t_tracepoint.t --rounds $(call st,4000,20000)
	ULSM_TEST_PLUGIN_DIR=$(BUILD)/tests $(EMU) $(BUILD)/tests/t_lsm_plugins.t --cycles $(call st,300,1000)
	ULSM_TEST_PLUGIN_DIR=$(BUILD)/tests $(EMU) $(BUILD)/tests/t_lsm_churn.t --cycles $(call st,300,1000)
	$(if $(full),ULSM_TEST_PLUGIN_DIR=$(BUILD)/tests $(EMU) $(BUILD)/tests/t_fault_walk.t --full)
	# ulsm-trace on generated files (about 20,000 and 400,000 events in full).
	cd $(BUILD)/tests && ULSM_EMU='$(EMU)' $(EMU) ./t_trace_fuzz.t $(TRACE_FUZZ_ARGS)
