# SPDX-License-Identifier: MIT
#
# ulsm - static keys, static calls and LSM-style hooks for user space.
#
#   make                 libraries (static and shared) into $(BUILD)
#   make check           build and run the test suite (TAP, under prove)
#   make stress          the long stress tests
#   make bench           the benchmarks
#   make demo            the demonstration program
#   make install PREFIX=/usr/local DESTDIR=
#   make uninstall       the same PREFIX and DESTDIR: removes what install put
#
# Knobs: CC=clang, BACKEND=generic (data-only back end on any machine),
# SANITIZE=address,undefined or SANITIZE=thread, EMU="qemu-aarch64 -L ..."
# (prefix for running cross-built tests), CROSS_COMPILE=aarch64-linux-gnu-
# (or riscv64-linux-gnu-).
# Each combination builds into its own directory under build/.

VERSION		:= 0.1.0
SOVERSION	:= 0
PREFIX		?= /usr/local
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
CMAKEDIR	?= $(LIBDIR)/cmake/ulsm
DESTDIR		?=

CROSS_COMPILE	?=
ifeq ($(origin CC),default)
CC		:= $(CROSS_COMPILE)gcc
endif
ifeq ($(origin AR),default)
AR		:= $(CROSS_COMPILE)ar
endif
CXX_FOR_CC	:= $(if $(findstring clang,$(CC)),$(subst clang,clang++,$(CC)),$(subst gcc,g++,$(CC)))
CXX		?= $(CXX_FOR_CC)
ifeq ($(origin CXX),default)
CXX		:= $(CXX_FOR_CC)
endif

MACHINE		:= $(shell $(CC) -dumpmachine 2>/dev/null)
ARCH		?= $(firstword $(subst -, ,$(MACHINE)))
BACKEND		?= auto
# The patching back ends: one folder each under src/engine/arch/ (its
# sources are the folder's .c files), beside the generic one, which any
# other machine gets.
ARCH_BACKENDS	:= $(filter-out generic,$(notdir $(wildcard src/engine/arch/*)))
ifeq ($(BACKEND),auto)
BACKEND_EFF	:= $(if $(filter $(ARCH_BACKENDS),$(ARCH)),$(ARCH),generic)
else
BACKEND_EFF	:= $(BACKEND)
endif
ifneq ($(filter-out $(ARCH_BACKENDS) generic,$(BACKEND_EFF)),)
$(error BACKEND must be auto, $(ARCH_BACKENDS) or generic)
endif
GENERIC		:= $(if $(filter generic,$(BACKEND_EFF)),1,0)

SANITIZE	?=
EMU		?=
comma		:= ,
BUILD		?= build/$(notdir $(CC))-$(BACKEND_EFF)$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))

OPT		?= -O2 -g
WARN		:= -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
		   -Wundef -Wformat=2 -Wpointer-arith -Wcast-qual -Wvla \
		   -Wno-missing-field-initializers
WERROR		?=
SANFLAGS	:= $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all)
CPPFLAGS_ALL	:= -I$(BUILD)/include -Iinclude -D_GNU_SOURCE $(CPPFLAGS)
CFLAGS_ALL	:= -std=gnu11 $(OPT) $(WARN) $(WERROR) $(SANFLAGS) -pthread $(CFLAGS)
CXXFLAGS_ALL	:= -std=gnu++17 $(OPT) -Wall -Wextra $(WERROR) $(SANFLAGS) -pthread $(CXXFLAGS)
# ULSM_BUILDING_LIBRARY: the public headers emit no object constructor
# into the library's own files, whatever they include first.
LIB_CFLAGS	:= -fPIC -fvisibility=hidden -DULSM_BUILDING_LIBRARY=1
# No undefined symbols in the shared library, except that clang does not
# link sanitizer runtimes into shared objects.
ZDEFS		:= $(if $(SANITIZE),,-Wl,-z,defs)
LDLIBS_ALL	:= -pthread -ldl $(LDLIBS)

# The library's layers, each using only those below it (README, "Layout"):
# the base (errors, configuration, system calls, loaded objects), the
# patching engine and its back end, static keys and calls, the hook
# framework and the tracepoints, and on top the start-up and the dump.
LIB_LAYERS	:= base engine static lsm trace control
LIB_SRCS	:= $(foreach l,$(LIB_LAYERS),$(wildcard src/$(l)/*.c)) src/init.c src/dump.c \
		   $(wildcard src/engine/arch/$(BACKEND_EFF)/*.c)
LIB_OBJS	:= $(LIB_SRCS:%.c=$(BUILD)/%.o)

STATIC_LIB	:= $(BUILD)/libulsm.a
SHARED_NAME	:= libulsm.so.$(SOVERSION)
SHARED_LIB	:= $(BUILD)/libulsm.so.$(VERSION)
CONFIG_H	:= $(BUILD)/include/ulsm/config.h
HEADERS		:= $(wildcard include/ulsm/*.h include/ulsm/arch/*.h)

# Tests: each is one program, linked statically with the library so that
# internal hooks (fault injection) are reachable; t_dlopen links the shared
# library because its plug-in must share the library with it.
TESTS_C		:= $(sort $(wildcard tests/t_*.c))
TEST_BINS	:= $(TESTS_C:tests/%.c=$(BUILD)/tests/%.t) \
		   $(BUILD)/tests/t_key_semantics_nopie.t $(BUILD)/tests/t_cxx.t \
		   $(BUILD)/tests/t_compile.t $(BUILD)/tests/t_examples.t \
		   $(BUILD)/tests/t_man.t $(BUILD)/tests/t_sys_wrapped.t \
		   $(BUILD)/tests/t_layers.t $(BUILD)/tests/t_trace_tool.t \
		   $(BUILD)/tests/t_ulsmctl.t \
		   $(BUILD)/tests/t_apr_diff.t $(BUILD)/tests/t_apr_install.t \
		   $(BUILD)/tests/t_static_call_rp.t $(BUILD)/tests/t_lsm_entry_rp.t
# The README's small examples, run by make check (t_examples), and the
# demonstrations.
SMALL_EXAMPLES	:= $(BUILD)/examples/static_key $(BUILD)/examples/static_call \
		   $(BUILD)/examples/hooks $(BUILD)/examples/plugins/host
EXAMPLE_BINS	:= $(SMALL_EXAMPLES) $(BUILD)/examples/keys_demo $(BUILD)/examples/lsm_demo
STRESS_ARGS	?= --flips 50000 --threads 3

.PHONY: all tests examples check stress bench demo demo-keys demo-trace install uninstall clean distclean
all: $(STATIC_LIB) $(BUILD)/libulsm.so $(BUILD)/ulsm.pc $(BUILD)/ulsm-uninstalled.pc $(BUILD)/ulsm-trace $(BUILD)/ulsmctl

$(CONFIG_H): Makefile
	@mkdir -p $(dir $@)
	@printf '/* Generated by the Makefile. */\n#ifndef ULSM_CONFIG_H\n#define ULSM_CONFIG_H\n#define ULSM_CONFIG_GENERIC %s\n#define ULSM_VERSION "%s"\n#endif\n' $(GENERIC) $(VERSION) > $@.tmp && mv $@.tmp $@

# Each object's headers are those its compiler read (-MMD: $(BUILD)/....d,
# read back below); config.h is made before any is compiled.
DEPFLAGS	:= -MMD -MP
$(BUILD)/%.o: %.c $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc $(CFLAGS_ALL) $(LIB_CFLAGS) $(DEPFLAGS) -c $< -o $@

# Every rule creates the directory it writes into: with make -j, nothing
# guarantees that another rule has made it first.
# The static library holds one object, the whole library linked together
# (ld -r), as the shared one is: a program that uses any of it gets all of
# it, start-up included. Start-up (src/init.c) is the top layer, which no
# other file calls; as a member of its own, it was left out of programs
# that only use keys (no object constructor on the generic back end), and
# with it the fork handlers and the dump at exit.
-include $(LIB_OBJS:.o=.d)

$(BUILD)/libulsm-all.o: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -r -nostdlib -o $@ $^

$(STATIC_LIB): $(BUILD)/libulsm-all.o
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(SHARED_LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -shared -Wl,-soname,$(SHARED_NAME) $(ZDEFS) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/libulsm.so: $(SHARED_LIB)
	ln -sf libulsm.so.$(VERSION) $(BUILD)/$(SHARED_NAME)
	ln -sf $(SHARED_NAME) $@

# The .pc file install writes, for a look before installing.
PC_SED		= -e 's|@PREFIX@|$(PREFIX)|' \
		  -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
		  -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
		  -e 's|@VERSION@|$(VERSION)|' -e 's|@BACKEND@|$(BACKEND_EFF)|'
$(BUILD)/ulsm.pc: ulsm.pc.in Makefile
	@mkdir -p $(dir $@)
	sed $(PC_SED) $< > $@

# Building against the tree without installing: pkg-config reads
# ulsm-uninstalled.pc before ulsm.pc in each PKG_CONFIG_PATH directory.
$(BUILD)/ulsm-uninstalled.pc: ulsm-uninstalled.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@SRCDIR@|$(CURDIR)|' -e 's|@BUILDDIR@|$(abspath $(BUILD))|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@SOVERSION@|$(SOVERSION)|' \
	    -e 's|@BACKEND@|$(BACKEND_EFF)|' $< > $@

# --- APR hooks, dispatched by static calls (libulsm-apr) ------------------
# Built when APR-util's development files are there for this compiler: not
# when cross-compiling, nor with musl (Debian's APR is built for glibc).
# ULSM_APR_CFLAGS / ULSM_APR_LIBS are what `pkg-config ulsm-apr` gives a
# program, for the tests and benchmarks built here.
HAVE_APR	:= $(if $(CROSS_COMPILE)$(findstring musl,$(CC)),,$(shell pkg-config --exists apr-util-1 apr-1 2>/dev/null && echo y))
ifeq ($(HAVE_APR),y)
APR_CFLAGS	:= $(shell pkg-config --cflags apr-util-1 apr-1)
APR_LIBS	:= $(shell pkg-config --libs apr-util-1 apr-1)
APR_LIB		:= $(BUILD)/libulsm-apr.a
APR_SHARED_NAME	:= libulsm-apr.so.$(SOVERSION)
APR_SHARED_LIB	:= $(BUILD)/libulsm-apr.so.$(VERSION)
APR_HEADERS	:= include/ulsm/apr_hooks.h $(wildcard include/ulsm/apr/*.h)
ULSM_APR_CFLAGS	:= -Iinclude/ulsm/apr $(CPPFLAGS_ALL)
ULSM_APR_LIBS	:= $(APR_LIB) $(STATIC_LIB) $(LDLIBS_ALL)
ULSM_APR_DEPS	:= $(APR_LIB) $(STATIC_LIB) $(HEADERS) $(APR_HEADERS) $(CONFIG_H)
all: $(APR_LIB) $(BUILD)/libulsm-apr.so $(BUILD)/ulsm-apr.pc $(BUILD)/ulsm-apr-uninstalled.pc

$(BUILD)/apr/apr_hooks.o: src/apr/apr_hooks.c $(HEADERS) $(APR_HEADERS) $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(APR_CFLAGS) $(CFLAGS_ALL) -fPIC -c $< -o $@

$(APR_LIB): $(BUILD)/apr/apr_hooks.o
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Run path $ORIGIN: libulsm.so.0 is installed next to libulsm-apr.so.0 (and
# built next to it), and a program's own run path does not apply to the
# dependencies of its libraries (t_apr_install).
$(APR_SHARED_LIB): $(BUILD)/apr/apr_hooks.o $(SHARED_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -shared -Wl,-soname,$(APR_SHARED_NAME) $(ZDEFS) -o $@ $< \
		-Wl,-rpath,'$$ORIGIN' -L$(BUILD) -lulsm $(APR_LIBS) $(LDLIBS_ALL)

$(BUILD)/libulsm-apr.so: $(APR_SHARED_LIB) $(BUILD)/libulsm.so
	ln -sf libulsm-apr.so.$(VERSION) $(BUILD)/$(APR_SHARED_NAME)
	ln -sf $(APR_SHARED_NAME) $@

$(BUILD)/ulsm-apr.pc: ulsm-apr.pc.in Makefile
	@mkdir -p $(dir $@)
	sed $(PC_SED) $< > $@

$(BUILD)/ulsm-apr-uninstalled.pc: ulsm-apr-uninstalled.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@SRCDIR@|$(CURDIR)|' -e 's|@BUILDDIR@|$(abspath $(BUILD))|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@
endif

# The drop-in against libaprutil, byte for byte (t_apr_diff).
include tests/apr/apr_diff.mk

# An installed libulsm-apr, used as the README says (t_apr_install): the
# test runs make install into a temporary PREFIX with this build's
# variables, then builds and runs a program against it.
$(BUILD)/tests/t_apr_install.t: tests/t_apr_install.sh.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@MAKE@|$(MAKE)|' -e 's|@SRCDIR@|$(CURDIR)|' -e 's|@CC@|$(CC)|' \
	    -e "s|@MAKEARGS@|BUILD='$(BUILD)' CC='$(CC)' BACKEND='$(BACKEND)' SANITIZE='$(SANITIZE)' CROSS_COMPILE='$(CROSS_COMPILE)'|" \
	    -e 's|@SANFLAGS@|$(SANFLAGS)|' -e 's|@HAVE_APR@|$(HAVE_APR)|' $< > $@
	chmod +x $@

# --- tests -------------------------------------------------------------

TEST_DEPS	:= tests/tap.h $(HEADERS) $(CONFIG_H) $(STATIC_LIB)

$(BUILD)/tests/%.t: tests/%.c $(TEST_DEPS) $(wildcard tests/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc -Itests $(CFLAGS_ALL) -fPIE -pie -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

# The drop-in's run functions read after registration (t_apr_tail):
# built against ulsm-apr where APR is installed; elsewhere it skips.
# (Here, after TEST_DEPS: a rule's prerequisites are expanded as it is read.)
$(BUILD)/tests/t_apr_tail.t: tests/t_apr_tail.c $(TEST_DEPS) $(if $(filter y,$(HAVE_APR)),$(ULSM_APR_DEPS))
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(if $(filter y,$(HAVE_APR)),$(ULSM_APR_CFLAGS) $(APR_CFLAGS) -DHAVE_APR=1) \
		$(CFLAGS_ALL) -fPIE -pie -o $@ $< \
		$(if $(filter y,$(HAVE_APR)),$(ULSM_APR_LIBS) $(APR_LIBS),$(STATIC_LIB)) $(LDLIBS_ALL)

# httpd's graceful restart (t_apr_reload): a module with hooks of its own,
# loaded and unloaded; it and the program share the shared libraries.
ifeq ($(HAVE_APR),y)
$(BUILD)/tests/apr_reload_mod.so: tests/apr/reload_mod.c tests/apr/reload.h $(ULSM_APR_DEPS) $(BUILD)/libulsm.so $(BUILD)/libulsm-apr.so
	@mkdir -p $(dir $@)
	$(CC) $(ULSM_APR_CFLAGS) $(APR_CFLAGS) -Itests $(CFLAGS_ALL) -fPIC -shared -o $@ $< \
		-L$(BUILD) -lulsm-apr -lulsm $(APR_LIBS) $(LDLIBS_ALL)
$(BUILD)/tests/t_apr_reload.t: tests/t_apr_reload.c tests/apr/reload.h $(TEST_DEPS) $(ULSM_APR_DEPS) $(BUILD)/tests/apr_reload_mod.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(ULSM_APR_CFLAGS) $(APR_CFLAGS) -DHAVE_APR=1 \
		$(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm-apr -lulsm \
		$(APR_LIBS) -Wl,-rpath,'$$ORIGIN/..' -rdynamic $(LDLIBS_ALL)
endif

# Hook-framework tests share the test hook set and its modules.
$(BUILD)/tests/t_lsm_%.t: tests/t_lsm_%.c tests/lsm/test_lsm.c tests/lsm/test_lsm.h tests/lsm/test_hook_defs.h $(TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc -Itests/lsm $(CFLAGS_ALL) -fPIE -pie -o $@ $< tests/lsm/test_lsm.c $(STATIC_LIB) $(LDLIBS_ALL)

# The control endpoint's tests: the test hook set (a toggle, a sealed
# set), and ulsm-trace to read a recording.
# t_control also loads a plug-in with a switch, built as t_depart's is
# (no -lulsm: it finds the library in the test program, -rdynamic).
CONTROL_TEST_DEPS := tests/control_client.h tests/lsm/test_lsm.c tests/lsm/test_lsm.h \
		   tests/lsm/test_hook_defs.h $(TEST_DEPS) $(BUILD)/ulsm-trace
$(BUILD)/tests/plugin_switch.so: tests/plugin_switch.c $(HEADERS) $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fPIC -shared -o $@ $<

$(BUILD)/tests/t_control.t: tests/t_control.c $(CONTROL_TEST_DEPS) $(BUILD)/tests/plugin_switch.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc -Itests -Itests/lsm -DTC_TRACE_TOOL='"$(abspath $(BUILD))/ulsm-trace"' \
		-DTC_PLUGIN='"$(abspath $(BUILD))/tests/plugin_switch.so"' \
		$(CFLAGS_ALL) -fPIE -pie -rdynamic -o $@ $< tests/lsm/test_lsm.c \
		-Wl,--whole-archive $(STATIC_LIB) -Wl,--no-whole-archive $(LDLIBS_ALL)

$(BUILD)/tests/t_control_door.t: tests/t_control_door.c $(CONTROL_TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc -Itests -Itests/lsm -DTC_TRACE_TOOL='"$(abspath $(BUILD))/ulsm-trace"' \
		$(CFLAGS_ALL) -fPIE -pie -o $@ $< tests/lsm/test_lsm.c $(STATIC_LIB) $(LDLIBS_ALL)

$(BUILD)/tests/t_control_walk.t: tests/t_control_walk.c $(CONTROL_TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc -Itests -Itests/lsm \
		$(CFLAGS_ALL) -fPIE -pie -o $@ $< tests/lsm/test_lsm.c $(STATIC_LIB) $(LDLIBS_ALL)

$(BUILD)/tests/t_control_fuzz.t: tests/t_control_fuzz.c $(CONTROL_TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc -Itests -Itests/lsm \
		$(CFLAGS_ALL) -fPIE -pie -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

# t_lsm_arrival's own set, besides the shared one.
$(BUILD)/tests/t_lsm_arrival.t: tests/lsm/arrival_hook_defs.h

$(BUILD)/tests/t_key_semantics_nopie.t: tests/t_key_semantics.c $(TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc $(CFLAGS_ALL) -fno-pie -no-pie -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

# The C++ unit expands a hook set's declarations; a C unit defines the set.
# musl-gcc has no C++ counterpart: without one, the test says it skipped.
HAVE_CXX	= $(eval HAVE_CXX := $(shell command -v $(firstword $(CXX)) >/dev/null 2>&1 && echo y))$(HAVE_CXX)
$(BUILD)/tests/t_cxx.t: tests/cxx_headers.cc tests/cxx_set.c $(TEST_DEPS)
	@mkdir -p $(dir $@)
ifeq ($(HAVE_CXX),y)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -c tests/cxx_set.c -o $(BUILD)/tests/cxx_set.o
	$(CXX) $(CPPFLAGS_ALL) -Itests $(CXXFLAGS_ALL) -o $@ $< $(BUILD)/tests/cxx_set.o $(STATIC_LIB) $(LDLIBS_ALL)
else
	printf '#!/bin/sh\necho "1..0 # SKIP no C++ compiler $(CXX) for $(CC)"\n' > $@
	chmod +x $@
endif

# Compiled as users' programs are: no _GNU_SOURCE.
$(BUILD)/tests/t_compile.t: tests/t_compile.sh.in $(wildcard tests/compile/*.c tests/compile/*/*) $(HEADERS) $(APR_HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	sed -e 's|@CC@|$(CC)|' -e 's|@SRCDIR@|$(CURDIR)|' \
	    -e 's|@INCS@|-I$(abspath $(BUILD))/include -I$(CURDIR)/include|' \
	    -e 's|@CFLAGS@|-I$(CURDIR)/tests $(CPPFLAGS) -std=gnu11 -Wall -Wextra $(SANFLAGS) -pthread|' \
	    -e 's|@LIBS@|$(abspath $(STATIC_LIB)) $(LDLIBS_ALL)|' \
	    -e 's|@APR_INCS@|$(if $(filter y,$(HAVE_APR)),-I$(CURDIR)/include/ulsm/apr -I$(abspath $(BUILD))/include -I$(CURDIR)/include $(APR_CFLAGS))|' $< > $@
	chmod +x $@

$(BUILD)/tests/t_examples.t: tests/t_examples.sh.in $(SMALL_EXAMPLES) $(BUILD)/libulsm.so $(BUILD)/ulsm-uninstalled.pc
	@mkdir -p $(dir $@)
	sed -e 's|@CC@|$(CC)|' -e 's|@SRCDIR@|$(CURDIR)|' -e 's|@BUILDDIR@|$(abspath $(BUILD))|' \
	    -e 's|@CFLAGS@|$(CFLAGS_ALL)|' $< > $@
	chmod +x $@

# The manual pages name every public function and macro of the headers.
$(BUILD)/tests/t_sys_wrapped.t: tests/t_sys_wrapped.sh.in $(wildcard src/*.c src/*/*.c src/engine/arch/*/*.c)
	@mkdir -p $(dir $@)
	sed -e 's|@SRCDIR@|$(CURDIR)|' $< > $@
	chmod +x $@

# The layers only look down: read from the library's object files.
NM		?= $(CROSS_COMPILE)nm
$(BUILD)/tests/t_layers.t: tests/t_layers.pl.in $(LIB_OBJS)
	@mkdir -p $(dir $@)
	sed -e 's|@OBJDIR@|$(abspath $(BUILD))|' -e 's|@NM@|$(NM)|' $< > $@
	chmod +x $@

$(BUILD)/tests/t_man.t: tests/t_man.sh.in $(wildcard man/*) $(HEADERS) $(CONFIG_H)
	@mkdir -p $(dir $@)
	sed -e 's|@SRCDIR@|$(CURDIR)|' -e 's|@CONFIG_H@|$(abspath $(CONFIG_H))|' $< > $@
	chmod +x $@

$(BUILD)/tests/plugin_keys.so: tests/plugin_keys.c $(HEADERS) $(CONFIG_H) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

# Plug-ins of a host's hook set, built right and wrong (t_plugin_build).
PB_DEPS		:= tests/pluginbuild/set.h tests/pluginbuild/hook_defs.h \
		   tests/pluginbuild/other_hook_defs.h $(HEADERS) $(CONFIG_H)
PB_PLUGINS	:= $(BUILD)/tests/pb_rate.so $(BUILD)/tests/pb_list.so $(BUILD)/tests/pb_count.so
pb_flags_rate	:=
pb_flags_list	:= -DPB_OTHER_LIST
pb_flags_count	:= -DPB_COUNT=8
pb_flags_lag	:= -DPB_NAME=lag -DPB_LAG
pb_flags_manual	:= -DPB_NAME=manual -DPB_MANUAL
$(BUILD)/tests/pb_%.so: tests/pluginbuild/module.c $(PB_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(pb_flags_$*) $(CFLAGS_ALL) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

$(BUILD)/tests/pb_host_nodyn: tests/t_plugin_build.c $(PB_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests -DPB_NO_RDYNAMIC $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/..' $(LDLIBS_ALL)

$(BUILD)/tests/t_plugin_build.t: tests/t_plugin_build.c tests/tap.h $(PB_DEPS) $(BUILD)/libulsm.so $(PB_PLUGINS) $(BUILD)/tests/pb_host_nodyn
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/..' -rdynamic $(LDLIBS_ALL)

# Pinning an object while the dynamic linker loads another (t_pin_lock):
# a lagging plug-in and one whose module the host registers itself.
$(BUILD)/tests/t_pin_lock.t: tests/t_pin_lock.c tests/tap.h $(PB_DEPS) $(BUILD)/libulsm.so \
		$(BUILD)/tests/pb_rate.so $(BUILD)/tests/pb_lag.so $(BUILD)/tests/pb_manual.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/..' -rdynamic $(LDLIBS_ALL)

# Plug-ins of a set that allows unloading (t_lsm_plugins): one source,
# one object per module, each denying its own request.
PG_DEPS		:= tests/plugins/set.h tests/plugins/hook_defs.h tests/plugins/acl.h \
		   tests/plugins/dump.h $(HEADERS) $(CONFIG_H)
PG_PLUGINS	:= $(BUILD)/tests/pg_rate.so $(BUILD)/tests/pg_audit.so \
		   $(BUILD)/tests/pg_slow.so $(BUILD)/tests/pg_spam.so
pg_flags_rate	:= -DPG_DENY=7
pg_flags_audit	:= -DPG_DENY=100
pg_flags_slow	:= -DPG_DENY=200 -DPG_SLOW
pg_flags_spam	:= -DPG_DENY=5
pg_flags_keep	:= -DPG_DENY=400 -Wl,-z,nodelete
pg_flags_pre	:= -DPG_DENY=500
$(BUILD)/tests/pg_%.so: tests/plugins/module.c $(PG_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests -DPG_NAME=$* $(pg_flags_$*) $(CFLAGS_ALL) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

$(BUILD)/tests/t_lsm_plugins.t: tests/t_lsm_plugins.c tests/tap.h tests/runtime.h $(PG_DEPS) $(BUILD)/libulsm.so $(PG_PLUGINS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/..' -rdynamic $(LDLIBS_ALL)

# Who pays for unloading (t_guard): the same set, with a module in a
# shared object that the program links (DT_NEEDED), a plug-in, and a
# plug-in linked with -z nodelete (never unloaded).
$(BUILD)/tests/libpg_boot.so: tests/plugins/module.c $(PG_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests -DPG_NAME=boot -DPG_DENY=300 $(CFLAGS_ALL) -fPIC -shared -Wl,-soname,libpg_boot.so -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

$(BUILD)/tests/t_guard.t: tests/t_guard.c tests/plugins/hold.h tests/tap.h $(PG_DEPS) $(BUILD)/libulsm.so $(BUILD)/tests/libpg_boot.so $(BUILD)/tests/pg_audit.so $(BUILD)/tests/pg_keep.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-L$(BUILD)/tests -Wl,--push-state,--no-as-needed -lpg_boot -Wl,--pop-state \
		-Wl,-rpath,'$$ORIGIN/..' -Wl,-rpath,'$$ORIGIN' -rdynamic $(LDLIBS_ALL)

# A module in a preloaded object (t_guard_preload runs itself again with
# pg_pre.so in LD_PRELOAD), and a plug-in opened after it.
$(BUILD)/tests/t_guard_preload.t: tests/t_guard_preload.c tests/plugins/hold.h tests/tap.h $(PG_DEPS) $(BUILD)/libulsm.so $(BUILD)/tests/pg_pre.so $(BUILD)/tests/pg_audit.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/..' -rdynamic $(LDLIBS_ALL)

# A departure that cannot finish: the same set, a plug-in built without
# -lulsm (it finds the library in the program, -rdynamic), as the fault
# walk's, since the test injects faults into the static library.
$(BUILD)/tests/pgw_rate.so: tests/plugins/module.c $(PG_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests -DPG_NAME=rate $(pg_flags_rate) $(CFLAGS_ALL) -fPIC -shared -o $@ $<

$(BUILD)/tests/pgw_lag.so: tests/plugins/module.c $(PG_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests -DPG_NAME=lag -DPG_DENY=7 -DPG_LAG $(CFLAGS_ALL) -fPIC -shared -o $@ $<

$(BUILD)/tests/t_depart.t: tests/t_depart.c tests/tap.h tests/runtime.h $(PG_DEPS) $(BUILD)/tests/pgw_rate.so $(BUILD)/tests/pgw_lag.so $(TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc -Itests $(CFLAGS_ALL) -fPIE -pie -rdynamic -o $@ $< -Wl,--whole-archive $(STATIC_LIB) -Wl,--no-whole-archive $(LDLIBS_ALL)

# Plug-in churn for every dispatch shape (t_lsm_churn): one source for
# the four modules, a and b linked into the host, p1 and p2 plug-ins.
CH_DEPS		:= tests/churn/set.h tests/churn/hook_defs.h $(HEADERS) $(CONFIG_H)
ch_id_a		:= 1
ch_id_p1	:= 2
ch_id_b		:= 3
ch_id_p2	:= 4
$(BUILD)/tests/ch_%.o: tests/churn/module.c $(CH_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests -DCH_NAME=$* -DCH_ID=$(ch_id_$*) $(CFLAGS_ALL) -fPIE -c -o $@ $<

$(BUILD)/tests/ch_%.so: tests/churn/module.c $(CH_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests -DCH_NAME=$* -DCH_ID=$(ch_id_$*) $(CFLAGS_ALL) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

$(BUILD)/tests/t_lsm_churn.t: tests/t_lsm_churn.c tests/tap.h tests/runtime.h $(CH_DEPS) $(BUILD)/libulsm.so \
		$(BUILD)/tests/ch_a.o $(BUILD)/tests/ch_b.o $(BUILD)/tests/ch_p1.so $(BUILD)/tests/ch_p2.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -fPIE -pie -o $@ $< $(BUILD)/tests/ch_a.o $(BUILD)/tests/ch_b.o \
		-L$(BUILD) -lulsm -Wl,-rpath,'$$ORIGIN/..' -rdynamic $(LDLIBS_ALL)

# The recorder's converter (tools/), installed with the library.
$(BUILD)/ulsm-trace: tools/ulsm-trace.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $<

# The control endpoint's client (tools/), installed with the library; its
# --json runs the ulsm-trace built (or installed) next to it.
$(BUILD)/ulsmctl: tools/ulsmctl.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $<

$(BUILD)/tests/t_trace_tool.t: tests/t_trace_tool.sh.in $(BUILD)/ulsm-trace $(BUILD)/examples/trace/trace_demo
	@mkdir -p $(dir $@)
	sed -e 's|@BUILDDIR@|$(abspath $(BUILD))|' $< > $@
	chmod +x $@

$(BUILD)/tests/t_ulsmctl.t: tests/t_ulsmctl.sh.in $(BUILD)/ulsmctl $(BUILD)/ulsm-trace $(BUILD)/examples/control/control_demo
	@mkdir -p $(dir $@)
	sed -e 's|@BUILDDIR@|$(abspath $(BUILD))|' $< > $@
	chmod +x $@

# make demo-control: the demo with its endpoint on, shown, switched and
# recorded by ulsmctl, then stopped (a few seconds).
$(BUILD)/examples/control/control_demo: examples/control/control_demo.c examples/control/demo_hook_defs.h $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Iexamples/control $(CFLAGS_ALL) -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

.PHONY: demo-control
demo-control: $(BUILD)/examples/control/control_demo $(BUILD)/ulsmctl $(BUILD)/ulsm-trace
	@rm -f $(BUILD)/control_demo.pid
	ULSM_CONTROL=1 $(EMU) $(BUILD)/examples/control/control_demo $(BUILD)/control_demo.pid 20 & \
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -s $(BUILD)/control_demo.pid ] && break; sleep 0.2; done; \
	pid=$$(cat $(BUILD)/control_demo.pid); sleep 0.2; \
	$(BUILD)/ulsmctl list && \
	$(BUILD)/ulsmctl show -p $$pid && \
	$(BUILD)/ulsmctl switch -p $$pid verbose_log on && sleep 0.1 && \
	$(BUILD)/ulsmctl switch -p $$pid verbose_log off && \
	$(BUILD)/ulsmctl toggle -p $$pid demo deny off && \
	$(BUILD)/ulsmctl record -p $$pid 'req_*' -d 1s -o $(BUILD)/control_demo.bin && \
	$(BUILD)/ulsm-trace --text $(BUILD)/control_demo.bin | head -5; \
	st=$$?; kill $$pid; wait; exit $$st

# ulsm-trace on hostile files: the tool is the one built here, with the
# same sanitizers.
$(BUILD)/tests/t_trace_fuzz.t: tests/t_trace_fuzz.c tests/trace_check.h $(TEST_DEPS) $(BUILD)/ulsm-trace
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests -DTF_TOOL='"$(abspath $(BUILD))/ulsm-trace"' $(CFLAGS_ALL) -fPIE -pie -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

# libFuzzer on ulsm-trace's reader (clang; not in make check): seeds from
# t_trace_fuzz, FUZZ_TIME seconds, findings in build/fuzz-trace/.
FUZZ_TIME	?= 300
FUZZ_DIR	:= build/fuzz-trace
.PHONY: fuzz-trace
fuzz-trace: $(BUILD)/tests/t_trace_fuzz.t
	@mkdir -p $(FUZZ_DIR)/corpus
	clang -std=gnu11 -g -O1 -D_GNU_SOURCE -Itests -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $(FUZZ_DIR)/fuzz_trace tests/fuzz_trace.c
	cd $(BUILD)/tests && ./t_trace_fuzz.t --corpus $(abspath $(FUZZ_DIR))/corpus >/dev/null
	cd $(FUZZ_DIR) && ./fuzz_trace -max_total_time=$(FUZZ_TIME) -max_len=65536 \
		-rss_limit_mb=1024 -malloc_limit_mb=256 corpus

# Tracepoints: one in a plug-in, which the test loads (shared library).
$(BUILD)/tests/plugin_tp.so: tests/plugin_tp.c tests/trace/tp_defs.h $(HEADERS) $(CONFIG_H) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

$(BUILD)/tests/t_tracepoint.t: tests/t_tracepoint.c tests/trace/tp_defs.h $(TEST_DEPS) $(BUILD)/libulsm.so $(BUILD)/tests/plugin_tp.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/..' -rdynamic $(LDLIBS_ALL)

# No bare indirect branch on a dispatch path (t_retpoline): a host and
# its plug-ins built with the compiler's retpolines (and return thunks
# where it has them: the benchmarks' SC_RETPOLINE and SC_RETHUNK, below)
# and ULSM_RETPOLINE, linked with libulsm.so so that the plug-ins share
# it; APR's drop-in too, where APR is installed. Without a retpoline
# option the test says it skipped.
RP_FLAGS	= $(SC_RETPOLINE)$(if $(SC_RETPOLINE),$(if $(SC_RETHUNK), $(SC_RETHUNK)))
RP_CFLAGS	= $(if $(SC_RETPOLINE),$(RP_FLAGS) -DULSM_RETPOLINE=1 $(if $(SC_RETHUNK),-DULSM_RETURN_THUNK=1)) \
		  -DRP_FLAGS='"$(RP_FLAGS)"'
RP_DEPS		:= tests/retpoline/set.h tests/retpoline/hook_defs.h $(HEADERS) $(CONFIG_H)
RP_APR_OBJ	:= $(if $(filter y,$(HAVE_APR)),$(BUILD)/tests/rp_apr.o)
$(BUILD)/tests/rp_%.so: tests/retpoline/plugin.c $(RP_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests -DRP_NAME=$* $(CFLAGS_ALL) $(RP_CFLAGS) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

$(BUILD)/tests/rp_apr.o: tests/retpoline/apr.c $(RP_DEPS) $(ULSM_APR_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(ULSM_APR_CFLAGS) $(APR_CFLAGS) -Itests $(CFLAGS_ALL) $(RP_CFLAGS) -fPIE -c -o $@ $<

$(BUILD)/tests/t_retpoline.t: tests/t_retpoline.c tests/tap.h tests/runtime.h $(RP_DEPS) $(BUILD)/libulsm.so \
		$(BUILD)/tests/rp_p1.so $(BUILD)/tests/rp_p2.so $(RP_APR_OBJ) $(if $(RP_APR_OBJ),$(BUILD)/libulsm-apr.so)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests $(if $(RP_APR_OBJ),-DRP_APR=1) $(CFLAGS_ALL) $(RP_CFLAGS) -fPIE -pie -o $@ $< $(RP_APR_OBJ) \
		-L$(BUILD) $(if $(RP_APR_OBJ),-lulsm-apr $(APR_LIBS)) -lulsm -Wl,-rpath,'$$ORIGIN/..' -rdynamic $(LDLIBS_ALL)

# The trampolines' and the entries' own tests again, built for retpolines
# (the retpoline layouts: every form, its updates, calls mid-patch). No
# return thunks: t_lsm_entry reads its first set's returns as plain ret.
RP_ONLY_CFLAGS	= $(if $(SC_RETPOLINE),$(SC_RETPOLINE) -DULSM_RETPOLINE=1)
# Without a retpoline option (aarch64) they would only repeat the others:
# each says it skipped.
RP_NO_OPTION	= printf '\#!/bin/sh\necho "1..0 \# SKIP $(CC) has no retpoline option"\n' > $@ && chmod +x $@
$(BUILD)/tests/t_static_call_rp.t: tests/t_static_call.c $(TEST_DEPS)
	@mkdir -p $(dir $@)
	$(if $(RP_ONLY_CFLAGS),$(CC) $(CPPFLAGS_ALL) -Isrc -Itests $(CFLAGS_ALL) $(RP_ONLY_CFLAGS) -fPIE -pie -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL),$(RP_NO_OPTION))

$(BUILD)/tests/t_lsm_entry_rp.t: tests/t_lsm_entry.c tests/lsm/test_lsm.c tests/lsm/test_lsm.h tests/lsm/test_hook_defs.h $(TEST_DEPS)
	@mkdir -p $(dir $@)
	$(if $(RP_ONLY_CFLAGS),$(CC) $(CPPFLAGS_ALL) -Isrc -Itests/lsm $(CFLAGS_ALL) $(RP_ONLY_CFLAGS) -fPIE -pie -o $@ $< tests/lsm/test_lsm.c $(STATIC_LIB) $(LDLIBS_ALL),$(RP_NO_OPTION))

$(BUILD)/tests/t_dlopen.t: tests/t_dlopen.c $(TEST_DEPS) $(BUILD)/libulsm.so $(BUILD)/tests/plugin_keys.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/..' -rdynamic $(LDLIBS_ALL)

# The fault walk links the library statically (its fault injection is
# hidden) and exports it (-rdynamic) to a plug-in built without -lulsm, so
# that the plug-in registers with the same library instance.
$(BUILD)/tests/plugin_walk.so: tests/plugin_keys.c $(HEADERS) $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fPIC -shared -o $@ $<

$(BUILD)/tests/plugin_fdhog.so: tests/plugin_fdhog.c $(HEADERS) $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fPIC -shared -o $@ $<

$(BUILD)/tests/t_hostile.t: tests/t_hostile.c tests/sites.h $(TEST_DEPS) $(BUILD)/tests/plugin_fdhog.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc $(CFLAGS_ALL) -fPIE -pie -rdynamic -o $@ $< -Wl,--whole-archive $(STATIC_LIB) -Wl,--no-whole-archive $(LDLIBS_ALL)

# Plug-ins loaded while registration fails: the plug-in, built without
# -lulsm, finds the library and main_key in the program (-rdynamic).
$(BUILD)/tests/t_pending.t: tests/t_pending.c tests/sites.h $(TEST_DEPS) $(BUILD)/tests/plugin_walk.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc $(CFLAGS_ALL) -fPIE -pie -rdynamic -o $@ $< -Wl,--whole-archive $(STATIC_LIB) -Wl,--no-whole-archive $(LDLIBS_ALL)

# Names in the dump come from the dynamic symbol table: -rdynamic; its
# plug-in uses the program's library (no -lulsm), as plugin_walk.so does.
$(BUILD)/tests/plugin_slowfini.so: tests/plugin_slowfini.c $(HEADERS) $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fPIC -shared -o $@ $<

$(BUILD)/tests/t_dump.t: tests/t_dump.c tests/lsm/test_lsm.c tests/lsm/test_lsm.h tests/lsm/test_hook_defs.h $(TEST_DEPS) $(BUILD)/tests/plugin_slowfini.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc -Itests/lsm $(CFLAGS_ALL) -fPIE -pie -rdynamic -o $@ $< tests/lsm/test_lsm.c $(STATIC_LIB) $(LDLIBS_ALL)

$(BUILD)/tests/plugin_late.so: tests/plugin_late.c tests/lsm/test_lsm.h tests/lsm/test_hook_defs.h $(HEADERS) $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itests/lsm $(CFLAGS_ALL) -fPIC -shared -o $@ $<

$(BUILD)/tests/t_fault_walk.t: tests/t_fault_walk.c tests/lsm/test_lsm.c tests/lsm/test_lsm.h tests/lsm/test_hook_defs.h tests/maps.h $(TEST_DEPS) $(BUILD)/tests/plugin_walk.so $(BUILD)/tests/plugin_late.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Isrc -Itests/lsm $(CFLAGS_ALL) -fPIE -pie -rdynamic -o $@ $< tests/lsm/test_lsm.c -Wl,--whole-archive $(STATIC_LIB) -Wl,--no-whole-archive $(LDLIBS_ALL)

# Build without running: CI builds everything with make -j from scratch.
tests: all $(TEST_BINS)
examples: $(EXAMPLE_BINS)

# Cross-built tests run under $(EMU); tests/emu_exec.sh leaves scripts to
# the build machine.
# BTI (aarch64): the plug-in is built with branch protection and without
# the C runtime's start files, which Debian 12 does not mark, so that the
# linker marks it and the loader guards its text; the test links the
# shared library, as t_dlopen does.
BTI_PLUGIN	:= $(if $(filter aarch64,$(BACKEND_EFF)),$(BUILD)/tests/plugin_bti.so)
$(BUILD)/tests/plugin_bti.so: tests/plugin_bti.c $(HEADERS) $(CONFIG_H) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -mbranch-protection=standard -fPIC -shared -nostartfiles \
		-o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

$(BUILD)/tests/t_bti.t: tests/t_bti.c $(TEST_DEPS) $(BUILD)/libulsm.so $(BTI_PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/..' $(LDLIBS_ALL)

# Sanitizers make each APR seed 3-10 times slower: fewer seeds there.
APR_DIFF_SEEDS	?= $(if $(SANITIZE),100,300)
check: all $(TEST_BINS)
	cd $(BUILD)/tests && ULSM_TEST_PLUGIN_DIR=. ULSM_EMU='$(EMU)' APR_DIFF_SEEDS=$(APR_DIFF_SEEDS) \
		prove $(if $(EMU),--exec 'sh $(CURDIR)/tests/emu_exec.sh') $(addprefix ./,$(notdir $(TEST_BINS)))

# The fuzz of ulsm-trace, 10 times make check's random files, another seed.
TRACE_FUZZ_ARGS	?= --scale 10 --seed 2
stress: all $(BUILD)/tests/t_trace_fuzz.t $(BUILD)/tests/t_grace.t $(BUILD)/tests/t_lsm_plugins.t $(BUILD)/tests/t_lsm_churn.t $(BUILD)/tests/t_fault_walk.t $(BUILD)/tests/t_stress.t $(BUILD)/tests/t_sync_fallback.t $(BUILD)/tests/t_static_call_stress.t $(BUILD)/tests/t_lsm_toggle.t $(BUILD)/tests/t_lsm_call_sites.t $(BUILD)/tests/t_static_call_inline.t $(BUILD)/tests/t_tracepoint.t
	$(EMU) $(BUILD)/tests/t_stress.t $(STRESS_ARGS)
	$(EMU) $(BUILD)/tests/t_static_call_stress.t --updates 50000 --threads 3
	$(EMU) $(BUILD)/tests/t_lsm_toggle.t --toggles 20000 --threads 3
	$(EMU) $(BUILD)/tests/t_lsm_call_sites.t --updates 50000 --threads 3
	$(EMU) $(BUILD)/tests/t_static_call_inline.t --updates 50000 --threads 3
	$(EMU) $(BUILD)/tests/t_sync_fallback.t --flips 3000 --threads 3
	# More threads than CPUs: 16 and 64 on CI's 2.
	$(EMU) $(BUILD)/tests/t_stress.t --flips 1000 --threads 16
	$(EMU) $(BUILD)/tests/t_stress.t --flips 300 --threads 64
	$(EMU) $(BUILD)/tests/t_static_call_stress.t --updates 1000 --threads 16
	$(EMU) $(BUILD)/tests/t_lsm_toggle.t --toggles 500 --threads 16
	$(EMU) $(BUILD)/tests/t_sync_fallback.t --flips 100 --threads 16
	$(EMU) $(BUILD)/tests/t_grace.t --swaps 5000
	# 20,000 probe changes while 4 threads hit the tracepoint.
	cd $(BUILD)/tests && ULSM_TEST_PLUGIN_DIR=. $(EMU) ./t_tracepoint.t --long
	ULSM_TEST_PLUGIN_DIR=$(BUILD)/tests $(EMU) $(BUILD)/tests/t_lsm_plugins.t --cycles 1000
	ULSM_TEST_PLUGIN_DIR=$(BUILD)/tests $(EMU) $(BUILD)/tests/t_lsm_churn.t --cycles 1000
	ULSM_TEST_PLUGIN_DIR=$(BUILD)/tests $(EMU) $(BUILD)/tests/t_fault_walk.t --full
	# ulsm-trace on about 20,000 generated files and 400,000 events.
	cd $(BUILD)/tests && ULSM_EMU='$(EMU)' $(EMU) ./t_trace_fuzz.t $(TRACE_FUZZ_ARGS)

# --- benchmarks and demonstration ---------------------------------------

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
bench: $(BUILD)/bench/bench_updaters $(BUILD)/bench/bench_tracepoint $(BUILD)/bench/bench_static_key $(BUILD)/bench/bench_static_call $(BUILD)/bench/bench_workload $(BUILD)/bench/bench_hooks $(BUILD)/bench/bench_hooks-nodebug $(BUILD)/bench/bench_unload $(BUILD)/bench/bench_update $(BA_BINS)
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
	@for c in $(BENCH_CHARTS); do \
		if command -v gnuplot >/dev/null 2>&1; then \
			gnuplot $(BUILD)/bench/$$c.gp && echo "chart: $(BUILD)/bench/$$c.png"; \
		else \
			echo "gnuplot not installed: chart $(BUILD)/bench/$$c.png skipped (apt-get install gnuplot-nox)"; \
		fi; \
	done
	@bench/targets.sh $(BENCH_TARGETS)

$(BUILD)/examples/%: examples/%.c $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

# The README's examples are built as a program of yours would be: the
# headers and config.h on the include path, no _GNU_SOURCE.
EXAMPLE_CPPFLAGS := -I$(BUILD)/include -Iinclude $(CPPFLAGS)
$(BUILD)/examples/static_key: examples/static_key.c $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CPPFLAGS) $(CFLAGS_ALL) -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

$(BUILD)/examples/static_call: examples/static_call.c $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CPPFLAGS) $(CFLAGS_ALL) -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

HOOKS_SRCS	:= $(wildcard examples/hooks/*.c)
$(BUILD)/examples/hooks: $(HOOKS_SRCS) $(wildcard examples/hooks/*.h) $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CPPFLAGS) -Iexamples/hooks $(CFLAGS_ALL) -o $@ $(HOOKS_SRCS) $(STATIC_LIB) $(LDLIBS_ALL)

# The demonstration: a host program with hooks and three modules.
LSM_DEMO_SRCS	:= $(wildcard examples/lsm_demo/*.c)
$(BUILD)/examples/lsm_demo: $(LSM_DEMO_SRCS) $(wildcard examples/lsm_demo/*.h) $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Iexamples/lsm_demo $(CFLAGS_ALL) -o $@ $(LSM_DEMO_SRCS) $(STATIC_LIB) $(LDLIBS_ALL)

demo: $(BUILD)/examples/lsm_demo
	$(EMU) $(BUILD)/examples/lsm_demo $(DEMO_ARGS)

# Static keys flipped while threads run them.
# Tracepoints recorded by the built-in recorder, converted for Perfetto,
# and drawn as a timeline when gnuplot is installed.
$(BUILD)/examples/trace/trace_demo: examples/trace/trace_demo.c $(HEADERS) $(CONFIG_H) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(STATIC_LIB) $(LDLIBS_ALL)

demo-trace: $(BUILD)/examples/trace/trace_demo $(BUILD)/ulsm-trace
	rm -f $(BUILD)/trace_demo.bin
	ULSM_TRACE='req_*,cache_miss' ULSM_TRACE_FILE=$(BUILD)/trace_demo.bin $(EMU) $(BUILD)/examples/trace/trace_demo
	$(EMU) $(BUILD)/ulsm-trace --json $(BUILD)/trace_demo.bin > $(BUILD)/trace_demo.json
	$(EMU) $(BUILD)/ulsm-trace --text $(BUILD)/trace_demo.bin > $(BUILD)/trace_demo.txt
	@echo "trace: $(BUILD)/trace_demo.json (open it in ui.perfetto.dev), $(BUILD)/trace_demo.txt"
	@if command -v gnuplot >/dev/null 2>&1; then \
		examples/trace/timeline.sh $(BUILD)/trace_demo.txt $(BUILD)/trace_demo.png && \
		echo "timeline: $(BUILD)/trace_demo.png"; fi

demo-keys: $(BUILD)/examples/keys_demo
	$(EMU) $(BUILD)/examples/keys_demo $(DEMO_ARGS)

# A request server whose modules are plug-ins, loaded, unloaded and
# reloaded while its threads dispatch (examples/plugins/), built as
# t_lsm_plugins is: the host defines the set and exports it to the
# plug-ins (-rdynamic), and finds libulsm.so through its rpath; each
# plug-in is a shared object linked with libulsm.so. make demo-plugins
# runs its selftest (DEMO_ARGS=-v shows each reload).
RQ_DEPS		:= examples/plugins/req.h examples/plugins/req_hooks.h $(HEADERS) $(CONFIG_H)
RQ_PLUGINS	:= $(addprefix $(BUILD)/examples/plugins/,mod_ratelimit.so mod_deny_admin.so mod_audit.so)
$(RQ_PLUGINS): $(BUILD)/examples/plugins/%.so: examples/plugins/%.c $(RQ_DEPS) $(BUILD)/libulsm.so
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Iexamples/plugins $(CFLAGS_ALL) -fPIC -shared -o $@ $< -L$(BUILD) -lulsm $(LDLIBS_ALL)

$(BUILD)/examples/plugins/host: examples/plugins/host.c $(RQ_DEPS) $(BUILD)/libulsm.so $(RQ_PLUGINS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Iexamples/plugins $(CFLAGS_ALL) -fPIE -pie -o $@ $< -L$(BUILD) -lulsm \
		-Wl,-rpath,'$$ORIGIN/../..' -rdynamic $(LDLIBS_ALL)

.PHONY: demo-plugins
demo-plugins: $(BUILD)/examples/plugins/host
	$(EMU) $(BUILD)/examples/plugins/host --selftest $(DEMO_ARGS)

# Apache httpd built against plain APR and against the drop-in, side by
# side (bench/httpd/run.sh; HTTPD_SRC must name a configured httpd source
# tree): not part of check or bench, it takes minutes and needs the tree.
include bench/httpd/httpd.mk

# --- install ------------------------------------------------------------
#
# What install puts where; uninstall removes the same list. Paths are
# $(DESTDIR) + these.
I_HEADERS	:= $(addprefix $(INCLUDEDIR)/ulsm/,$(notdir $(wildcard include/ulsm/*.h)) config.h) \
		   $(addprefix $(INCLUDEDIR)/ulsm/arch/,$(notdir $(wildcard include/ulsm/arch/*.h))) \
		   $(addprefix $(INCLUDEDIR)/ulsm/apr/,$(notdir $(wildcard include/ulsm/apr/*.h)))
I_LIBS		:= $(addprefix $(LIBDIR)/,libulsm.a libulsm.so.$(VERSION) $(SHARED_NAME) libulsm.so)
I_PKG		:= $(PKGCONFIGDIR)/ulsm.pc $(CMAKEDIR)/ulsmConfig.cmake \
		   $(CMAKEDIR)/ulsmConfigVersion.cmake
# libulsm-apr, where APR-util's development files are
ifeq ($(HAVE_APR),y)
I_LIBS		+= $(addprefix $(LIBDIR)/,libulsm-apr.a libulsm-apr.so.$(VERSION) $(APR_SHARED_NAME) libulsm-apr.so)
I_PKG		+= $(PKGCONFIGDIR)/ulsm-apr.pc
endif
MAN_PAGES	:= $(wildcard man/*.[137])
# Each name in a page's NAME section but the page's own gets a one-line
# page that sources it, so that man static_branch_enable finds static_key(3).
# MAN_LINKS holds <installed link>=<what it sources>.
man_names	= $(filter-out $(basename $(notdir $(1))),$(subst $(comma), ,$(shell \
		  sed -n '/^\.SH NAME/,/^\.SH [^N]/{/^\.SH/d;p;}' $(1) | tr '\n' ' ' | \
		  sed 's/ *\\-.*//')))
man_sec		= man$(subst .,,$(suffix $(1)))
MAN_LINKS	:= $(foreach m,$(MAN_PAGES),$(foreach l,$(call man_names,$(m)),\
		   $(MANDIR)/$(call man_sec,$(m))/$(l)$(suffix $(m))=$(call man_sec,$(m))/$(notdir $(m))))
I_MAN		:= $(foreach m,$(MAN_PAGES),$(MANDIR)/$(call man_sec,$(m))/$(notdir $(m))) \
		   $(foreach l,$(MAN_LINKS),$(firstword $(subst =, ,$(l))))
BINDIR		?= $(PREFIX)/bin
I_BIN		:= $(BINDIR)/ulsm-trace $(BINDIR)/ulsmctl
INSTALLED	:= $(I_HEADERS) $(I_LIBS) $(I_PKG) $(I_MAN) $(I_BIN)

# One prefix holds one back end. The two differ in ulsm/config.h (which
# the inline fast paths follow) and in libulsm.so itself, and a program
# built with one back end's headers does not work with the other's library.
# So install refuses to put a build over another back end's: it names both
# and stops before writing anything.
INSTALLED_CONFIG_H = $(DESTDIR)$(INCLUDEDIR)/ulsm/config.h
define install_check_backend
	@if [ -f '$(INSTALLED_CONFIG_H)' ] && \
	    ! grep -q '^#define ULSM_CONFIG_GENERIC $(GENERIC)$$' '$(INSTALLED_CONFIG_H)'; then \
		if grep -q '^#define ULSM_CONFIG_GENERIC 1$$' '$(INSTALLED_CONFIG_H)'; then \
			other=generic; else other=x86_64; fi; \
		echo "make install: $(DESTDIR)$(PREFIX) already holds ulsm's $$other back end" \
		     "($(INSTALLED_CONFIG_H)), and this build is $(BACKEND_EFF)." >&2; \
		echo "One prefix holds one back end: their ulsm/config.h and libulsm.so differ." >&2; \
		echo "Install under another PREFIX, or first remove the other one:" \
		     "make uninstall PREFIX=$(PREFIX)$(if $(DESTDIR), DESTDIR=$(DESTDIR))" >&2; \
		exit 1; \
	fi
endef

# The CMake files find everything relative to their own directory, so a
# tree installed with DESTDIR works where it lands.
relpath		= $(shell realpath -m -s --relative-to='$(1)' '$(2)')
POINTER_BYTES	= $(shell echo __SIZEOF_POINTER__ | $(CC) -E -P -x c - 2>/dev/null | tr -d ' ')
CMAKE_SED	= -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOVERSION@|$(SOVERSION)|g' \
		  -e 's|@MAJOR@|$(firstword $(subst ., ,$(VERSION)))|g' \
		  -e 's|@BACKEND@|$(BACKEND_EFF)|g' \
		  -e 's|@CMAKE_INCLUDEDIR@|$${CMAKE_CURRENT_LIST_DIR}/$(call relpath,$(CMAKEDIR),$(INCLUDEDIR))|g' \
		  -e 's|@CMAKE_LIBDIR@|$${CMAKE_CURRENT_LIST_DIR}/$(call relpath,$(CMAKEDIR),$(LIBDIR))|g' \
		  -e 's|@POINTER_BYTES@|$(POINTER_BYTES)|g' \
		  -e 's|@POINTER_BITS@|$(shell expr 8 \* $(POINTER_BYTES))|g'

install: all
	$(install_check_backend)
	install -d $(DESTDIR)$(INCLUDEDIR)/ulsm/arch $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR) \
		$(sort $(dir $(addprefix $(DESTDIR),$(I_MAN))))
	install -m 644 include/ulsm/*.h $(CONFIG_H) $(DESTDIR)$(INCLUDEDIR)/ulsm/
	install -m 644 include/ulsm/arch/*.h $(DESTDIR)$(INCLUDEDIR)/ulsm/arch/
	install -d $(DESTDIR)$(INCLUDEDIR)/ulsm/apr
	install -m 644 include/ulsm/apr/*.h $(DESTDIR)$(INCLUDEDIR)/ulsm/apr/
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $(BUILD)/ulsm-trace $(BUILD)/ulsmctl $(DESTDIR)$(BINDIR)/
	ln -sf libulsm.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SHARED_NAME)
	ln -sf $(SHARED_NAME) $(DESTDIR)$(LIBDIR)/libulsm.so
	# Written here, not in $(BUILD): PREFIX may differ from the build's.
	sed $(PC_SED) ulsm.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/ulsm.pc
ifeq ($(HAVE_APR),y)
	install -m 644 $(APR_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(APR_SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libulsm-apr.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(APR_SHARED_NAME)
	ln -sf $(APR_SHARED_NAME) $(DESTDIR)$(LIBDIR)/libulsm-apr.so
	sed $(PC_SED) ulsm-apr.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/ulsm-apr.pc
endif
	sed $(CMAKE_SED) cmake/ulsmConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/ulsmConfig.cmake
	sed $(CMAKE_SED) cmake/ulsmConfigVersion.cmake.in > $(DESTDIR)$(CMAKEDIR)/ulsmConfigVersion.cmake
	for m in $(MAN_PAGES); do \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/ || exit 1; \
	done
	for l in $(MAN_LINKS); do \
		echo ".so $${l#*=}" > "$(DESTDIR)$${l%%=*}" || exit 1; \
	done

# Only the directories that are ulsm's own go too, when empty.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rmdir $(DESTDIR)$(INCLUDEDIR)/ulsm/arch $(DESTDIR)$(INCLUDEDIR)/ulsm/apr \
		$(DESTDIR)$(INCLUDEDIR)/ulsm \
		$(DESTDIR)$(CMAKEDIR) 2>/dev/null || true

clean:
	rm -rf $(BUILD)

distclean:
	rm -rf build
