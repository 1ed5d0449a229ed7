# SPDX-License-Identifier: MIT
#
# ulsm - static keys, static calls and LSM-style hooks for user space.
#
#   make                 libraries (static and shared) into $(BUILD)
#   make check           build and run the test suite (TAP, under prove)
#   make stress          the stress tests, sized for CI (make stress-full: long)
#   make bench           the benchmarks
#   make demo            the demonstration program
#   make install PREFIX=/usr/local DESTDIR=
#   make uninstall       the same PREFIX and DESTDIR: removes what install put
#
# Knobs: CC=clang, BACKEND=generic (data-only back end on any machine),
# SANITIZE=address,undefined or SANITIZE=thread, EMU="qemu-aarch64 -L ..."
# (prefix for running cross-built tests), CROSS_COMPILE=aarch64-linux-gnu-
# (or riscv64-linux-gnu-), WERROR=-Werror, CHECK_JOBS=N (tests run at once),
# SOURCE_CHECKS=0 (skip the checks of the source tree alone: tests/tests.mk).
# Each combination builds into its own directory under build/.

VERSION		:= 0.2.0
SOVERSION	:= 1
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
# The patching back ends: one folder each under src/engine/arch/, beside
# the generic one, which any other machine gets.
ARCH_BACKENDS	:= $(filter-out generic,$(notdir $(patsubst %/,%,$(wildcard src/engine/arch/*/))))
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
# gcc says at each atomic_thread_fence that TSan does not model fences
# (-Wtsan): known, and what it costs is a false report, never a missed
# one; quiet, so that the TSan build can be -Werror. clang has no -Wtsan.
SANFLAGS	+= $(if $(and $(findstring thread,$(SANITIZE)),$(if $(findstring clang,$(CC)),,y)),-Wno-tsan)
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
# A back end's sources are its folder's .c files, and each of the generic
# back end's for which its folder has no file of the same name (musl's
# rule): the generic back end's files are every back end's defaults
# (src/engine/arch.h).
ARCH_SRCS	:= $(wildcard src/engine/arch/$(BACKEND_EFF)/*.c)
ARCH_SRCS	+= $(filter-out $(ARCH_SRCS:src/engine/arch/$(BACKEND_EFF)/%=src/engine/arch/generic/%),$(wildcard src/engine/arch/generic/*.c))
LIB_SRCS	:= $(foreach l,$(LIB_LAYERS),$(wildcard src/$(l)/*.c)) src/init.c src/dump.c \
		   $(ARCH_SRCS)
LIB_OBJS	:= $(LIB_SRCS:%.c=$(BUILD)/%.o)

STATIC_LIB	:= $(BUILD)/libulsm.a
SHARED_NAME	:= libulsm.so.$(SOVERSION)
SHARED_LIB	:= $(BUILD)/libulsm.so.$(VERSION)
CONFIG_H	:= $(BUILD)/include/ulsm/config.h
HEADERS		:= $(wildcard include/ulsm/*.h include/ulsm/arch/*.h)

# The README's small examples, run by make check (t_examples), and the
# demonstrations.
SMALL_EXAMPLES	:= $(BUILD)/examples/static_key $(BUILD)/examples/static_call \
		   $(BUILD)/examples/hooks $(BUILD)/examples/plugins/host
EXAMPLE_BINS	:= $(SMALL_EXAMPLES) $(BUILD)/examples/keys_demo $(BUILD)/examples/lsm_demo

.PHONY: all tests examples check stress bench demo demo-keys demo-trace install uninstall clean distclean dist version
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

# Every exported symbol versioned (libulsm.map, docs/abi.md).
$(SHARED_LIB): $(LIB_OBJS) libulsm.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -shared -Wl,-soname,$(SHARED_NAME) -Wl,--version-script=libulsm.map \
		$(ZDEFS) -o $@ $(LIB_OBJS) $(LDLIBS_ALL)

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

# Run path $ORIGIN: libulsm.so.1 is installed next to libulsm-apr.so.1 (and
# built next to it), and a program's own run path does not apply to the
# dependencies of its libraries (t_apr_install).
$(APR_SHARED_LIB): $(BUILD)/apr/apr_hooks.o $(BUILD)/libulsm.so libulsm-apr.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -shared -Wl,-soname,$(APR_SHARED_NAME) -Wl,--version-script=libulsm-apr.map \
		$(ZDEFS) -o $@ $< \
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


# The recorder's converter (tools/ulsm-trace/, a file per job), installed
# with the library. Its objects have a rule of their own (the library's
# flags are not a program's); the more specific pattern wins.
TRACE_TOOL_SRCS	:= $(wildcard tools/ulsm-trace/*.c)
TRACE_TOOL_OBJS	:= $(TRACE_TOOL_SRCS:%.c=$(BUILD)/%.o)
-include $(TRACE_TOOL_OBJS:.o=.d)

$(BUILD)/tools/ulsm-trace/%.o: tools/ulsm-trace/%.c $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(DEPFLAGS) -c $< -o $@

$(BUILD)/ulsm-trace: $(TRACE_TOOL_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^

# The control endpoint's client (tools/ulsmctl/, a file per job),
# installed with the library; its --json runs the ulsm-trace built (or
# installed) next to it.
ULSMCTL_SRCS	:= $(wildcard tools/ulsmctl/*.c)
$(BUILD)/ulsmctl: $(ULSMCTL_SRCS) $(wildcard tools/ulsmctl/*.h) $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -Itools/ulsmctl $(CFLAGS_ALL) -o $@ $(ULSMCTL_SRCS)

# The examples and demonstrations, the tests (make check, make stress) and
# the benchmarks (make bench): each in its own file, with its rules.
include examples/examples.mk
include tests/tests.mk
include tests/fuzz/fuzz.mk
include bench/bench.mk
include abi/abi.mk

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

# --- the release tarball ------------------------------------------------
#
# make dist writes ulsm-$(VERSION).tar.gz: the tree as committed (git
# archive of HEAD, so what a clean clone holds, less what .gitattributes
# marks export-ignore: CI's script and git's own files). It is
# reproducible: its files carry the commit's time and gzip writes no name
# or time, so two runs on one commit give the same bytes (CI checks).
# Uncommitted changes to tracked files would be left out: refused.
# CI builds, tests and installs the tarball unpacked outside the clone.
DIST		:= ulsm-$(VERSION)
dist:
	@git rev-parse --git-dir >/dev/null 2>&1 || \
		{ echo "make dist: needs the git checkout (it archives HEAD)" >&2; exit 1; }
	@git diff --quiet HEAD -- || \
		{ echo "make dist: uncommitted changes to tracked files would be left out; commit or stash them" >&2; exit 1; }
	git archive --format=tar --prefix=$(DIST)/ HEAD | gzip -n -9 > $(DIST).tar.gz
	@echo "make dist: $(DIST).tar.gz"

# The version, for scripts (CI's tarball name).
version:
	@echo $(VERSION)

clean:
	rm -rf $(BUILD)

distclean:
	rm -rf build
