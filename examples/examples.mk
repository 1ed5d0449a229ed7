# SPDX-License-Identifier: MIT
#
# The examples and the demonstrations (make demo, demo-keys, demo-trace,
# demo-control, demo-plugins), included by the Makefile after the
# library's variables.

examples: $(EXAMPLE_BINS)

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
