# bench/httpd/httpd.mk: Apache httpd built against plain APR and against
# ulsm's drop-in for <apr_hooks.h>, compared side by side.
#
#   make -f bench/httpd/httpd.mk bench-httpd
#   make -f bench/httpd/httpd.mk bench-httpd HTTPD_VARIANTS="real-plain ulsm-plain"
#   make -f bench/httpd/httpd.mk bench-httpd HTTPD_BENCH_CMD=callgrind
#
# (or include it from another Makefile).  The httpd source tree must be
# configured already (./buildconf --with-apr=apr-1-config
# --with-apr-util=apu-1-config); the build needs libapr1-dev,
# libaprutil1-dev, libpcre2-dev, curl and ab (apache2-utils).  Every knob of
# bench/httpd/run.sh (HTTPD_SRC, HTTPD_WORK, ULSM_BUILD, ULSM_CPPFLAGS,
# ULSM_LIBS, RUNS, AB_N, ...) is read from the environment, so it can be
# given on the make command line and exported.

HTTPD_BENCH_DIR	:= $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
HTTPD_BENCH_CMD	?= compare
HTTPD_VARIANTS	?= real-plain ulsm-plain real-retpoline ulsm-retpoline

.PHONY: bench-httpd
bench-httpd:
	$(HTTPD_BENCH_DIR)/run.sh $(HTTPD_BENCH_CMD) $(HTTPD_VARIANTS)
