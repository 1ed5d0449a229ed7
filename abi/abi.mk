# SPDX-License-Identifier: MIT
#
# The ABI baselines (docs/abi.md): abi/<version>/ holds what abidw saw of
# a release's libraries, built by gcc for x86-64 without a sanitizer, and
# the public headers that release installed (include.tar.gz, with its
# config.h). tests/meta/t_abidiff compares the built libraries with every
# baseline; tests/meta/t_abi_compat builds programs and a plug-in with a
# baseline's headers and runs them with the built library.
#
# make abi-baseline writes this release's baseline: run at a release,
# from the gcc x86-64 build, and commit abi/$(VERSION)/.

ABI_DIR		:= abi/$(VERSION)
# Only the types of the public headers; no paths of this machine.
ABIDW_FLAGS	:= --no-corpus-path --no-comp-dir-path --no-show-locs \
		   --drop-undefined-syms
ABI_BASE_OK	:= $(if $(filter gcc,$(notdir $(CC))),$(if $(filter x86_64,$(BACKEND_EFF)),$(if $(SANITIZE)$(CROSS_COMPILE),,y)))

abi-baseline: $(SHARED_LIB) $(if $(filter y,$(HAVE_APR)),$(APR_SHARED_LIB)) $(CONFIG_H)
	@test "$(ABI_BASE_OK)" = y || { echo "abi-baseline: from the gcc x86-64 build without a sanitizer" >&2; exit 1; }
	mkdir -p $(ABI_DIR)
	abidw $(ABIDW_FLAGS) --headers-dir include/ulsm --header-file $(CONFIG_H) \
		$(SHARED_LIB) > $(ABI_DIR)/libulsm.abi
ifeq ($(HAVE_APR),y)
	abidw $(ABIDW_FLAGS) --headers-dir include/ulsm/apr --header-file include/ulsm/apr_hooks.h \
		$(APR_SHARED_LIB) > $(ABI_DIR)/libulsm-apr.abi
endif
	rm -rf $(BUILD)/abi-headers && mkdir -p $(BUILD)/abi-headers/ulsm
	cp -r include/ulsm/. $(BUILD)/abi-headers/ulsm/
	cp $(CONFIG_H) $(BUILD)/abi-headers/ulsm/config.h
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-C $(BUILD)/abi-headers -cf - ulsm | gzip -n -9 > $(ABI_DIR)/include.tar.gz
	@echo "abi-baseline: $(ABI_DIR); commit it"

.PHONY: abi-baseline
