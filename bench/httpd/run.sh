#!/bin/bash
# bench/httpd/run.sh: Apache httpd as a real user of APR-util hooks, built
# against plain APR ("real") or with ulsm's drop-in for <apr_hooks.h>
# ("ulsm"), each plain or with retpolines.  Builds each variant out of tree,
# installs it into its own prefix, serves a fixed static site on 127.0.0.1,
# saves the responses to a list of requests (for diffing the variants) and
# measures requests/second with ab.
#
# usage: bench/httpd/run.sh [command] [variant...]
#
#   variant   MODE-FLAVOR: MODE is real or ulsm, FLAVOR plain or retpoline
#             (default: real-plain)
#   command   build     configure, build and install each variant
#             check     start each variant, fetch the request list, save
#                       OUT/<variant>.responses, stop; diff against the first
#             bench     start all the variants, warm up, then RUNS rounds of
#                       ab, the variants alternating; medians of requests/s
#                       and of the servers' CPU time per request
#             all       build + check + bench, one variant after another
#                       (the default)
#             compare   build + check + bench (alternating, so that drift
#                       of the machine hits all the variants alike)
#             callgrind instructions per request, and the share spent in
#                       the hook dispatch itself (self cost of ap_run_*, of
#                       ulsm's slot functions and trampolines), on a
#                       single-process server (-X) under callgrind: two runs,
#                       CG_WARM and CG_WARM + CG_N requests, subtracted
#             restarts  graceful restarts while ab runs, full restarts between
#                       ab runs: no request may fail, nothing in the error log
#             cgreport  the callgrind summary again, from the saved output
#             clean     remove each variant's build and prefix
#
# Environment (defaults in brackets):
#   HTTPD_SRC    httpd source tree, configure already generated (./buildconf)
#                [/work/httpd/src]
#   HTTPD_WORK   where builds, prefixes, the site and results go
#                [/work/httpd/build]; a variant lives in HTTPD_WORK/<variant>
#   OUT          results [HTTPD_WORK/results]
#   ULSM         ulsm source tree [the tree this script is in]
#   ULSM_BUILD   its build directory [$ULSM/build/gcc-x86_64]
#   ULSM_CPPFLAGS  [-I$ULSM/include/ulsm/apr -I$ULSM_BUILD/include -I$ULSM/include]
#   ULSM_CFLAGS    [empty] extra CFLAGS for mode ulsm
#   ULSM_LDFLAGS   [-L$ULSM_BUILD -Wl,-rpath,$ULSM_BUILD]
#   ULSM_LIBS      [-lulsm-apr -lulsm]
#   ULSM_MAKE_ARGS [UTIL_LDFLAGS=$ULSM_LDFLAGS $ULSM_LIBS]: make arguments in
#                  mode ulsm (the support programs are linked without LIBS)
#   BASE_CFLAGS    [-O2 -g]
#   RETPOLINE_CFLAGS [-mindirect-branch=thunk]
#   APR_CONFIG / APU_CONFIG / PCRE_CONFIG [/usr/bin/apr-1-config, apu-1-config, pcre2-config]
#   MPM          [event]
#   MODS         shared modules built and loaded
#                [unixd authz_core authz_host mime dir alias rewrite setenvif headers
#                log_config status info proxy proxy_http]; mod_proxy implements
#                hooks of its own in a shared object, which mod_proxy_http's
#                functions join (both unloaded and loaded again at a restart)
#   STATIC_MODS  1: build MODS into httpd instead of as shared objects [0]
#   PORT_BASE    variant i listens on PORT_BASE+i [18080]
#   AB_N AB_C RUNS  ab -n AB_N -c AB_C -k, RUNS times [20000 8 3]
#   AB_URL_PATH  [/small.html]
#   WARMUP_N     requests before measuring [2000]
#   CG_N         requests measured under callgrind [2000]
#   JOBS         make -j [2]; FORCE=1 rebuilds a variant already built
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
HTTPD_SRC=${HTTPD_SRC:-/work/httpd/src}
HTTPD_WORK=${HTTPD_WORK:-/work/httpd/build}
OUT=${OUT:-$HTTPD_WORK/results}
ULSM=${ULSM:-$(cd "$here/../.." && pwd)}
ULSM_BUILD=${ULSM_BUILD:-$ULSM/build/gcc-x86_64}
ULSM_CPPFLAGS=${ULSM_CPPFLAGS:--I$ULSM/include/ulsm/apr -I$ULSM_BUILD/include -I$ULSM/include}
ULSM_CFLAGS=${ULSM_CFLAGS:-}
ULSM_LDFLAGS=${ULSM_LDFLAGS:--L$ULSM_BUILD -Wl,-rpath,$ULSM_BUILD}
ULSM_LIBS=${ULSM_LIBS:--lulsm-apr -lulsm}
# httpd links its support programs without LIBS, and checkgid.c includes
# httpd.h, hence <apr_hooks.h>, whose ulsm headers give every unit a
# constructor calling ulsm_object_register(): they need the libraries too.
# (shell words: eval'd)
ULSM_MAKE_ARGS=${ULSM_MAKE_ARGS-UTIL_LDFLAGS=\"$ULSM_LDFLAGS $ULSM_LIBS\"}
BASE_CFLAGS=${BASE_CFLAGS:--O2 -g}
RETPOLINE_CFLAGS=${RETPOLINE_CFLAGS:--mindirect-branch=thunk}
APR_CONFIG=${APR_CONFIG:-/usr/bin/apr-1-config}
APU_CONFIG=${APU_CONFIG:-/usr/bin/apu-1-config}
PCRE_CONFIG=${PCRE_CONFIG:-/usr/bin/pcre2-config}
MPM=${MPM:-event}
MODS=${MODS:-unixd authz_core authz_host mime dir alias rewrite setenvif headers log_config status info proxy proxy_http}
STATIC_MODS=${STATIC_MODS:-0}
PORT_BASE=${PORT_BASE:-18080}
AB_N=${AB_N:-20000}
AB_C=${AB_C:-8}
RUNS=${RUNS:-3}
AB_URL_PATH=${AB_URL_PATH:-/small.html}
WARMUP_N=${WARMUP_N:-2000}
CG_N=${CG_N:-2000}
JOBS=${JOBS:-2}
FORCE=${FORCE:-0}
CC=${CC:-gcc}

DOCROOT=$HTTPD_WORK/site
export LC_ALL=C

die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "== $*" >&2; }

# ---------------------------------------------------------------- servers
# Every server this script starts is recorded here and stopped on exit,
# whatever the exit.
declare -A SERVER_PID=()
stop_server() {	# variant
	local v=$1 pid=${SERVER_PID[$1]:-}
	[ -n "$pid" ] || return 0
	unset "SERVER_PID[$v]"
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		local i
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "run.sh: $v (pid $pid) did not stop; SIGKILL" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	wait "$pid" 2>/dev/null || true
}
cleanup() {
	local v
	for v in "${!SERVER_PID[@]}"; do
		stop_server "$v"
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- variants
port_of() {	# variant
	case $1 in
	real-plain) echo $((PORT_BASE + 1)) ;;
	real-retpoline) echo $((PORT_BASE + 2)) ;;
	ulsm-plain) echo $((PORT_BASE + 3)) ;;
	ulsm-retpoline) echo $((PORT_BASE + 4)) ;;
	*) die "unknown variant $1 (real-plain, real-retpoline, ulsm-plain, ulsm-retpoline)" ;;
	esac
}
vdir() { echo "$HTTPD_WORK/$1"; }
prefix_of() { echo "$HTTPD_WORK/$1/prefix"; }

configure_args() {	# variant: prints the configure command, one word a line
	local v=$1 mode=${1%-*} flavor=${1#*-}
	local cflags=$BASE_CFLAGS cppflags="" ldflags="" libs=""
	[ "$flavor" = retpoline ] && cflags="$cflags $RETPOLINE_CFLAGS"
	if [ "$mode" = ulsm ]; then
		cppflags=$ULSM_CPPFLAGS
		cflags="$cflags $ULSM_CFLAGS"
		ldflags=$ULSM_LDFLAGS
		libs=$ULSM_LIBS
	fi
	local modarg
	if [ "$STATIC_MODS" = 1 ]; then
		modarg="--enable-mods-static=$MODS"
	else
		modarg="--enable-mods-shared=$MODS"
	fi
	printf '%s\n' "$HTTPD_SRC/configure" \
		"--prefix=$(prefix_of "$v")" \
		"--with-apr=$APR_CONFIG" "--with-apr-util=$APU_CONFIG" \
		"--with-pcre=$PCRE_CONFIG" "--with-mpm=$MPM" \
		"--enable-modules=none" "$modarg" \
		"CC=$CC" "CFLAGS=$cflags" "CPPFLAGS=$cppflags" \
		"LDFLAGS=$ldflags" "LIBS=$libs"
}

build() {	# variant
	local v=$1 d obj
	d=$(vdir "$v"); obj=$d/obj
	[ -x "$HTTPD_SRC/configure" ] ||
		die "$HTTPD_SRC/configure missing: run ./buildconf --with-apr=$APR_CONFIG --with-apr-util=$APU_CONFIG there"
	mkdir -p "$d"
	local -a args
	mapfile -t args < <(configure_args "$v")
	local want
	want=$(printf '%q ' "${args[@]}")
	[ "${v%-*}" != ulsm ] || want="$want
make $ULSM_MAKE_ARGS"
	if [ "$FORCE" != 1 ] && [ -x "$(prefix_of "$v")/bin/httpd" ] &&
	   [ "$(cat "$d/configure.cmd" 2>/dev/null)" = "$want" ]; then
		log "$v: built already ($d/configure.cmd)"
		return 0
	fi
	rm -rf "$obj" "$(prefix_of "$v")"
	mkdir -p "$obj"
	log "$v: configure ($d/configure.log)"
	echo "$want" > "$d/configure.cmd.new"
	local t0 t1 t2
	t0=$(date +%s)
	(cd "$obj" && nice "${args[@]}") > "$d/configure.log" 2>&1 ||
		{ tail -30 "$d/configure.log" >&2; die "$v: configure failed; $d/configure.log"; }
	t1=$(date +%s)
	log "$v: make -j$JOBS ($d/make.log)"
	local -a margs=()
	[ "${v%-*}" != ulsm ] || eval "margs=($ULSM_MAKE_ARGS)"
	(cd "$obj" && nice make -j"$JOBS" "${margs[@]}") > "$d/make.log" 2>&1 ||
		{ grep -E 'error|Error' "$d/make.log" | head -40 >&2; die "$v: make failed; $d/make.log"; }
	t2=$(date +%s)
	(cd "$obj" && nice make install "${margs[@]}") > "$d/install.log" 2>&1 ||
		{ tail -30 "$d/install.log" >&2; die "$v: make install failed; $d/install.log"; }
	if [ "${v%-*}" = ulsm ]; then
		# the drop-in is in: static-call trampolines per hook slot, and the attach call
		local n
		n=$(nm "$(prefix_of "$v")/bin/httpd" | grep -c ' T __SCT__ulsm_apr__' || true)
		nm -D "$(prefix_of "$v")/bin/httpd" | grep -q ' U ulsm_apr_hook_attach' && [ "$n" -gt 0 ] ||
			die "$v: built, but without ulsm's drop-in (no __SCT__ulsm_apr__* trampolines in httpd: is $ULSM_CPPFLAGS first on the include path?)"
		log "$v: drop-in active: $n static-call trampolines (ULSM_APR_SLOTS per hook) in httpd"
	fi
	mv "$d/configure.cmd.new" "$d/configure.cmd"
	local t3; t3=$(date +%s)
	printf '%s: configure %ds, make %ds, install %ds\n' "$v" $((t1 - t0)) $((t2 - t1)) $((t3 - t2)) |
		tee "$d/build-time" >&2
}

# ---------------------------------------------------------------- the site
make_site() {
	[ -f "$DOCROOT/.complete" ] && return 0
	rm -rf "$DOCROOT"
	mkdir -p "$DOCROOT/sub" "$DOCROOT/errors"
	printf '<!DOCTYPE html>\n<html><head><title>ulsm httpd bench</title></head>\n<body><h1>index</h1><p><a href="small.html">small</a> <a href="medium.bin">medium</a> <a href="large.bin">large</a></p></body></html>\n' > "$DOCROOT/index.html"
	printf '<!DOCTYPE html>\n<html><head><title>small</title></head><body><p>%s</p></body></html>\n' \
		"a small static page, the one ab fetches" > "$DOCROOT/small.html"
	perl -e 'for my $i (0..1023) { printf "%015x\n", $i * 2654435761 % 4294967296 }' > "$DOCROOT/medium.bin"	# 16 KiB
	perl -e 'for my $i (0..65535) { printf "%015x\n", $i * 40503 % 65521 }' > "$DOCROOT/large.bin"	# 1 MiB
	printf 'body { font-family: sans-serif; color: #333; }\nh1 { font-size: 2em; }\n' > "$DOCROOT/style.css"
	printf '{"name": "ulsm", "kind": "bench", "values": [1, 2, 3]}\n' > "$DOCROOT/data.json"
	printf 'a page under /sub/, served through an Alias too\n' > "$DOCROOT/sub/page.txt"
	printf '<!DOCTYPE html>\n<html><head><title>not here</title></head><body><h1>404: not here</h1></body></html>\n' > "$DOCROOT/errors/404.html"
	printf 'never served\n' > "$DOCROOT/forbidden.txt"
	find "$DOCROOT" -exec touch -h -d '2024-01-01 00:00:00 UTC' {} +
	chmod -R a+rX "$DOCROOT"
	touch "$DOCROOT/.complete"
}

write_conf() {	# variant: writes PREFIX/conf/bench.conf, prints its path
	local v=$1 p port conf m
	p=$(prefix_of "$v"); port=$(port_of "$v"); conf=$p/conf/bench.conf
	{
		echo "# written by bench/httpd/run.sh for $v"
		echo "ServerRoot \"$p\""
		echo "Listen 127.0.0.1:$port"
		echo "ServerName 127.0.0.1:$port"
		echo "PidFile logs/httpd.pid"
		if [ "$STATIC_MODS" != 1 ]; then
			for m in $MODS; do
				echo "LoadModule ${m}_module modules/mod_$m.so"
			done
		fi
		if [ "$(id -u)" = 0 ]; then
			echo "User daemon"
			echo "Group daemon"
		fi
		cat <<-EOF
		# a fixed set of processes and threads: nothing is forked while ab runs
		# (ServerLimit above the 2 processes: room for a graceful restart)
		StartServers 2
		ServerLimit 4
		ThreadsPerChild 25
		MaxRequestWorkers 50
		MinSpareThreads 1
		MaxSpareThreads 50
		MaxConnectionsPerChild 0
		KeepAlive On
		MaxKeepAliveRequests 100
		KeepAliveTimeout 5
		Timeout 30
		ServerTokens Full
		ServerSignature On
		TraceEnable Off
		ErrorLog logs/error_log
		LogLevel warn
		LogFormat "%h %l %u %t \"%r\" %>s %b \"%{User-Agent}i\"" bench
		CustomLog logs/access_log bench
		TypesConfig conf/mime.types
		AddType application/json .json
		DocumentRoot "$DOCROOT"
		<Directory />
		    AllowOverride None
		    Require all denied
		</Directory>
		<Directory "$DOCROOT">
		    Options None
		    AllowOverride None
		    Require all granted
		</Directory>
		<Files "forbidden.txt">
		    Require all denied
		</Files>
		DirectoryIndex index.html
		Alias /alias/ "$DOCROOT/sub/"
		ErrorDocument 404 /errors/404.html
		RewriteEngine On
		RewriteRule ^/old/(.*)\$ /\$1 [R=301,L]
		RewriteRule ^/internal\$ /small.html [PT,L]
		SetEnvIf User-Agent "^bench-ua" BENCH_UA
		Header set X-Bench-UA "seen" env=BENCH_UA
		Header always set X-Served-By "httpd-bench"
		<FilesMatch "\.css\$">
		    Header set Cache-Control "max-age=3600"
		</FilesMatch>
		<IfModule proxy_module>
		    ProxyPass "/proxy/" "http://127.0.0.1:$port/"
		    ProxyPassReverse "/proxy/" "http://127.0.0.1:$port/"
		</IfModule>
		<Location "/server-status">
		    SetHandler server-status
		    Require ip 127.0.0.1
		</Location>
		<Location "/server-info">
		    SetHandler server-info
		    Require ip 127.0.0.1
		</Location>
		EOF
	} > "$conf"
	echo "$conf"
}

start_server() {	# variant [wrapper...]: start in the foreground (our child), wait until it answers
	local v=$1; shift
	local p port conf pid i
	p=$(prefix_of "$v"); port=$(port_of "$v")
	[ -x "$p/bin/httpd" ] || die "$v not built ($p/bin/httpd)"
	make_site
	conf=$(write_conf "$v")
	"$p/bin/httpd" -t -f "$conf" > "$(vdir "$v")/configtest.log" 2>&1 ||
		{ cat "$(vdir "$v")/configtest.log" >&2; die "$v: httpd -t failed"; }
	if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/" 2>/dev/null; then
		die "$v: something already listens on 127.0.0.1:$port"
	fi
	rm -f "$p/logs/access_log" "$p/logs/error_log" "$p/logs/httpd.pid"
	if [ $# -gt 0 ]; then
		"$@" "$p/bin/httpd" -X -f "$conf" > "$(vdir "$v")/server.out" 2>&1 &
	else
		"$p/bin/httpd" -DFOREGROUND -f "$conf" > "$(vdir "$v")/server.out" 2>&1 &
	fi
	pid=$!
	SERVER_PID[$v]=$pid
	# ready when it listens: no request (callgrind counts would vary with the probes)
	for i in $(seq 1 600); do
		if [ -n "$(ss -Hltn "sport = :$port")" ]; then
			log "$v: up on 127.0.0.1:$port (pid $pid)"
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	cat "$(vdir "$v")/server.out" "$p/logs/error_log" >&2 2>/dev/null || true
	die "$v: server did not come up"
}

# ---------------------------------------------------------------- responses
# One request a line: name | curl arguments (path last).  The ETag of
# small.html is filled in at run time (the same in every variant: one site,
# fixed mtimes).
requests() {
	cat <<-'EOF'
	root|/
	index|/index.html
	small|/small.html
	medium|/medium.bin
	large|/large.bin
	css|/style.css
	json|/data.json
	sub-redirect|/sub
	sub-noindex|/sub/
	sub-page|/sub/page.txt
	alias|/alias/page.txt
	rewrite-redirect|/old/small.html
	rewrite-internal|/internal
	notfound|/no/such/file.html
	forbidden|/forbidden.txt
	dotdot|--path-as-is /sub/../small.html
	head|-I /small.html
	ims|-H @If-Modified-Since: Tue, 02 Jan 2024 00:00:00 GMT@ /small.html
	ims-old|-H @If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT@ /small.html
	inm|-H @If-None-Match: ETAG@ /small.html
	range|-H @Range: bytes=0-9@ /small.html
	range-multi|-H @Range: bytes=0-3,10-13@ /medium.bin
	range-bad|-H @Range: bytes=999999-@ /small.html
	post|-X POST --data x=1 /small.html
	delete|-X DELETE /small.html
	options|-X OPTIONS /small.html
	options-star|-X OPTIONS --request-target * /
	trace|-X TRACE /small.html
	bad-target|--request-target ../x /
	ua-env|-A bench-ua/1.0 /small.html
	http10|--http1.0 /small.html
	proxy-small|/proxy/small.html
	proxy-notfound|/proxy/no/such/file.html
	proxy-redirect|/proxy/sub
	proxy-range|-H @Range: bytes=5-20@ /proxy/medium.bin
	proxy-ims|-H @If-Modified-Since: Tue, 02 Jan 2024 00:00:00 GMT@ /proxy/small.html
	status|/server-status?auto
	info-hooks|/server-info?hooks
	info-list|/server-info?list
	EOF
}

sanitize() {	# variant: stdin -> stdout, the variant's port and paths replaced
	local v=$1
	sed -e "s|$(prefix_of "$v")|@PREFIX@|g" -e "s|$(vdir "$v")|@VDIR@|g" \
	    -e "s|127\.0\.0\.1:$(port_of "$v")|127.0.0.1:@PORT@|g" -e "s|Port $(port_of "$v")|Port @PORT@|g"
}

fetch_all() {	# variant tmpdir: the request list, to stdout
	local v=$1 tmp=$2 port name args etag
	port=$(port_of "$v")
	etag=$(curl -s -I -A run.sh-probe "http://127.0.0.1:$port/small.html" | tr -d '\r' | sed -n 's/^ETag: //p')
	while IFS='|' read -r name args; do
		args=${args//ETAG/$etag}
		local -a a=()
		# split on spaces, @...@ groups one argument
		while [ -n "$args" ]; do
			args=${args# }
			if [ "${args:0:1}" = @ ]; then
				args=${args#@}; a+=("${args%%@*}"); args=${args#*@}
			else
				a+=("${args%% *}")
				[ "${args#* }" = "$args" ] && args="" || args=${args#* }
			fi
		done
		local path=${a[-1]}; unset 'a[-1]'
		rm -f "$tmp/h" "$tmp/b"; touch "$tmp/b"	# curl writes no file for an empty body
		curl -s -D "$tmp/h" -o "$tmp/b" --max-time 20 "${a[@]}" "http://127.0.0.1:$port$path" || true
		# multipart/byteranges boundaries are made from the request time
		local boundary
		boundary=$(tr -d '\r' < "$tmp/h" | sed -n 's/^Content-Type: multipart.*boundary=//p')
		# (request time and pid in hex: its length, hence Content-Length, varies)
		if [ -n "$boundary" ]; then
			sed -i -e "s/$boundary/@BOUNDARY@/g" -e 's/^Content-Length: [0-9]*/Content-Length: @LEN@/' "$tmp/h"
			sed -i "s/$boundary/@BOUNDARY@/g" "$tmp/b"
		fi
		{
			echo "### $name: curl ${a[*]} $path"
			if [ "$name" = status ]; then
				tr -d '\r' < "$tmp/h" | grep -v -i -e '^Date:' -e '^Content-Length:' -e '^$'
			else
				# Allow: comes from an apr_hash walk, whose order changes each run
				tr -d '\r' < "$tmp/h" | grep -v -i -e '^Date:' -e '^$' | sanitize "$v" |
					perl -pe 's/^(Allow: )(.*)$/$1 . join(",", sort split(\/,\/, $2))/e'
			fi
			case $name in
			status) echo "body: (varies; not compared)" ;;
			head) echo "body: (HEAD: none)" ;;
			info-*) echo "body:"; sed -e 's/<[^>]*>//g' "$tmp/b" | grep -v -e '^\s*$' -e 'Server Built' \
					-e 'Current Time' -e 'Restart Time' -e 'Parent Server' -e 'Server uptime' | sanitize "$v" ;;
			*) printf 'body: %s bytes, sha256 %s\n' "$(wc -c < "$tmp/b")" \
					"$(sanitize "$v" < "$tmp/b" | sha256sum | cut -d' ' -f1)" ;;
			esac
		}
	done < <(requests)
}

generation() {	# variant: the server's configuration generation (mod_status)
	curl -s --max-time 5 -A run.sh-probe "http://127.0.0.1:$(port_of "$1")/server-status?auto" |
		sed -n 's/^ParentServerConfigGeneration: *//p' | tr -d '\r'
}

restart() {	# variant signal: restart the server (HUP: full, USR1: graceful), wait for it
	local v=$1 sig=$2 g0 g i
	g0=$(generation "$v")
	kill -"$sig" "${SERVER_PID[$v]}"
	for i in $(seq 1 300); do
		sleep 0.2
		kill -0 "${SERVER_PID[$v]}" 2>/dev/null || die "$v: the server died at SIG$sig (see $(prefix_of "$v")/logs/error_log)"
		g=$(generation "$v" || true)
		[ -n "$g" ] && [ "$g" != "$g0" ] && return 0
	done
	die "$v: no new generation after SIG$sig"
}

check() {	# variant: fetch the request list, restart twice, fetch again; save OUT/<variant>.responses
	local v=$1 tmp out
	mkdir -p "$OUT"
	out=$OUT/$v.responses
	tmp=$(mktemp -d "$HTTPD_WORK/check.XXXXXX")
	start_server "$v"
	{
		echo "##### first start"
		fetch_all "$v" "$tmp"
		restart "$v" HUP
		echo "##### after SIGHUP (restart: hooks deregistered, modules unloaded and loaded again)"
		fetch_all "$v" "$tmp"
		restart "$v" USR1
		echo "##### after SIGUSR1 (graceful restart)"
		fetch_all "$v" "$tmp"
	} > "$out"
	# A Connection: close reply and a log line for each request
	sleep 0.5
	stop_server "$v"
	{
		echo "### access_log (client, time removed; sorted: a proxied request and its backend request log in either order)"
		grep -v '"run.sh-probe"$' "$(prefix_of "$v")/logs/access_log" |
			sed -E 's/^[^ ]+ - - \[[^]]*\] //; s/^("GET \/server-(status|info)[^"]*" 200|"GET \/medium.bin HTTP\/1.1" 206) [0-9]+/\1 @SIZE@/' | sanitize "$v" | sort
		echo "### error_log (pids, times removed; notices dropped)"
		grep -v -e ':notice\]' "$(prefix_of "$v")/logs/error_log" |
			sed -E 's/^\[[^]]*\] //; s/\[pid [0-9]+(:tid [0-9]+)?\] //; s/\[client [^]]*\] //' | sanitize "$v" || true
	} >> "$out"
	rm -rf "$tmp"
	log "$v: $(grep -c '^### ' "$out") sections in $out"
}

# ---------------------------------------------------------------- ab
ab_once() {	# variant n: prints requests/second
	local v=$1 n=$2 port res rps failed non2xx
	port=$(port_of "$v")
	res=$(timeout 300 ab -q -s 30 -n "$n" -c "$AB_C" -k "http://127.0.0.1:$port$AB_URL_PATH" 2>&1) ||
		{ echo "$res" >&2; die "$v: ab failed"; }
	rps=$(echo "$res" | sed -n 's/^Requests per second: *\([0-9.]*\).*/\1/p')
	failed=$(echo "$res" | sed -n 's/^Failed requests: *//p')
	non2xx=$(echo "$res" | sed -n 's/^Non-2xx responses: *//p')
	[ -n "$rps" ] || { echo "$res" >&2; die "$v: no figure from ab"; }
	[ "${failed:-0}" = 0 ] || { echo "$res" >&2; die "$v: $failed failed requests"; }
	[ -z "$non2xx" ] || { echo "$res" >&2; die "$v: $non2xx non-2xx responses"; }
	echo "$rps"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# Nanoseconds on a CPU of all the threads of a variant's server (the parent
# and its children: a fixed set of processes and threads while ab runs),
# from /proc/<pid>/task/*/schedstat.  Less disturbed than requests/second
# by other load on the machine: waiting for a CPU does not count.
cpu_ns() {	# variant
	local pid=${SERVER_PID[$1]} p
	{
		for p in "$pid" $(pgrep -P "$pid" || true); do
			cat /proc/"$p"/task/*/schedstat 2>/dev/null || true
		done
	} | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

bench() {	# variant...: RUNS rounds, the variants alternating within each round
	local v r rps c0 c1 us
	declare -A all=() cpu=()
	for v in "$@"; do
		start_server "$v"
		ab_once "$v" "$WARMUP_N" > /dev/null
	done
	for r in $(seq 1 "$RUNS"); do
		for v in "$@"; do
			c0=$(cpu_ns "$v")
			rps=$(ab_once "$v" "$AB_N")
			c1=$(cpu_ns "$v")
			us=$(awk -v a="$c0" -v b="$c1" -v n="$AB_N" 'BEGIN { printf "%.2f", (b - a) / n / 1000 }')
			all[$v]="${all[$v]:-} $rps"
			cpu[$v]="${cpu[$v]:-} $us"
			log "round $r: $v $rps req/s, server CPU $us us/request"
		done
	done
	for v in "$@"; do
		stop_server "$v"
	done
	mkdir -p "$OUT"
	local stamp first m0 m c cm0; stamp=$(date -u +%Y%m%dT%H%M%SZ)
	{
		echo "# ab -n $AB_N -c $AB_C -k http://127.0.0.1:PORT$AB_URL_PATH, $RUNS rounds, variants alternating; $stamp; load $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "# median requests/s, and median server CPU time per request (all server threads, schedstat)"
		printf '%-16s %11s %8s %10s %8s   %s | %s\n' variant req/s vs_first cpu_us/req vs_first "req/s runs" "cpu us/req runs"
		first=""
		for v in "$@"; do
			m=$(echo "${all[$v]}" | median)
			c=$(echo "${cpu[$v]}" | median)
			[ -n "$first" ] || { first=$v; m0=$m; cm0=$c; }
			printf '%-16s %11.2f %8.3f %10.2f %8.3f  %s |%s\n' "$v" "$m" "$(echo "$m $m0" | awk '{print $1 / $2}')" \
				"$c" "$(echo "$c $cm0" | awk '{print $1 / $2}')" "${all[$v]}" "${cpu[$v]}"
		done
		# each round's ulsm-X / real-X, next to each other in time: drift cancels better
		local flavor rr ru
		for flavor in plain retpoline; do
			rr=${all[real-$flavor]:-}; ru=${all[ulsm-$flavor]:-}
			[ -n "$rr" ] && [ -n "$ru" ] || continue
			paste <(echo "$rr" | tr ' ' '\n' | grep .) <(echo "$ru" | tr ' ' '\n' | grep .) |
				awk '{ print $2 / $1 }' | sort -g |
				awk -v f="$flavor" '{ a[NR] = $1 } END {
					m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
					printf "ulsm-%s / real-%s, median of the %d rounds'"'"' ratios: %.3f (lowest %.3f, highest %.3f)\n", f, f, NR, m, a[1], a[NR] }'
		done
	} | tee -a "$OUT/bench.txt"
}

# ---------------------------------------------------------------- restarts
# Graceful restarts (SIGUSR1: the parent deregisters every hook, unloads
# and reloads the modules, registers and sorts again, forks new children)
# while ab runs, then full restarts (SIGHUP) between ab runs.  Every request
# must succeed, the server must answer after each, the error log must hold
# nothing new but notices.
RESTARTS=${RESTARTS:-10}
restarts() {	# variant
	local v=$1 port i abpid res
	port=$(port_of "$v")
	start_server "$v"
	timeout 300 ab -q -s 30 -n 200000 -c 8 -k -r "http://127.0.0.1:$port$AB_URL_PATH" > "$(vdir "$v")/restarts.ab" 2>&1 &
	abpid=$!
	sleep 1
	for i in $(seq 1 "$RESTARTS"); do
		restart "$v" USR1
		sleep 0.3
	done
	kill -INT "$abpid" 2>/dev/null || true	# ab prints its figures on SIGINT
	wait "$abpid" 2>/dev/null || true
	for i in $(seq 1 "$RESTARTS"); do
		restart "$v" HUP
		res=$(timeout 60 ab -q -s 30 -n 1000 -c 8 -k "http://127.0.0.1:$port$AB_URL_PATH" 2>&1) ||
			{ echo "$res" >&2; die "$v: ab failed after SIGHUP $i"; }
		echo "$res" | grep -q '^Failed requests: *0' || { echo "$res" >&2; die "$v: failed requests after SIGHUP $i"; }
	done
	stop_server "$v"
	local f=$(vdir "$v")/restarts.ab
	echo "$v: $RESTARTS graceful restarts under ab -c 8 -k: $(sed -n 's/^Complete requests: *//p' "$f") complete, $(sed -n 's/^Failed requests: *//p' "$f") failed $(sed -n '/^Failed requests/{n;s/^ *//;p}' "$f")$(sed -n 's/^Non-2xx responses: *\(.*\)/, \1 non-2xx/p' "$f"); $RESTARTS full restarts, 1000 requests after each: all succeeded"
	echo "$v: error_log, other than notices:"
	grep -v ':notice\]' "$(prefix_of "$v")/logs/error_log" | sed 's/^/    /' || echo "    (nothing)"
}

# ---------------------------------------------------------------- callgrind
# Two runs of httpd -X under callgrind, one serving CG_WARM requests and one
# CG_WARM + CG_N (ab -c 1 -k); the difference, function by function, is what
# CG_N requests cost, start-up, warm-up and shut-down cancelled out.  (No
# callgrind_control: vgdb cannot reach a server that dropped its privileges
# and sleeps in epoll_wait.)
cg_run() {	# variant n outfile
	local v=$1 n=$2 f=$3
	rm -f "$f"
	# the server drops to User daemon, then callgrind rewrites the file
	touch "$f"; [ "$(id -u)" != 0 ] || chown daemon:daemon "$f"
	start_server "$v" valgrind --tool=callgrind --callgrind-out-file="$f" --dump-instr=no --vgdb=no
	local AB_C=1
	ab_once "$v" "$n" > /dev/null
	stop_server "$v"
	[ -s "$f" ] || die "$v: no callgrind output $f"
}
CG_WARM=${CG_WARM:-200}
callgrind() {	# variant
	local v=$1 d
	d=$(vdir "$v")
	command -v valgrind > /dev/null || die "valgrind not installed"
	cg_run "$v" "$CG_WARM" "$d/callgrind.small"
	cg_run "$v" $((CG_WARM + CG_N)) "$d/callgrind.big"
	cg_report "$v"
}
cg_report() {	# variant: the summary of the two runs of callgrind()
	local v=$1 d k cg=$here/cg.pl
	d=$(vdir "$v")
	for k in small big; do
		[ -s "$d/callgrind.$k" ] || die "$v: no $d/callgrind.$k (run the callgrind command first)"
		"$cg" self "$d/callgrind.$k" > "$d/cg.self.$k"
		"$cg" calls "$d/callgrind.$k" > "$d/cg.calls.$k"
	done
	"$cg" diff "$d/cg.self.small" "$d/cg.self.big" > "$d/cg.self.diff"
	"$cg" diff "$d/cg.calls.small" "$d/cg.calls.big" > "$d/cg.calls.diff"
	local total
	total=$(( $(sed -n 's/^totals: *//p' "$d/callgrind.big") - $(sed -n 's/^totals: *//p' "$d/callgrind.small") ))
	{
		echo "# $v: callgrind, httpd -X, ab -c 1 -k $AB_URL_PATH: ($((CG_WARM + CG_N)) requests) - ($CG_WARM requests), per request"
		# hook dispatch: APR's or ulsm's run functions (ap_run_*), ulsm's
		# slot functions (ulsm__apr_*) and static-call trampolines (__SCT__*)
		awk -F'\t' -v n="$CG_N" -v total="$total" '
			function fname(x) { sub(/ \[[^]]*\]$/, "", x); return x }
			function disp(f) { return f ~ /^(ap_run_|ulsm__apr_|__SCT__)/ }
			FILENAME ~ /self/ { f = fname($2) }
			FILENAME ~ /self/ && f ~ /^ap_run_/ { hook += $1; nh++ }
			FILENAME ~ /self/ && f ~ /^ulsm__apr_/ { slots += $1; ns++ }
			FILENAME ~ /self/ && f ~ /^__SCT__/ { tramp += $1; nt++ }
			FILENAME ~ /self/ && f ~ /^__x86_(indirect|return)_thunk/ { thunk += $1 }
			FILENAME ~ /self/ && f ~ /^(ulsm_[^_]|static_call|static_key|__static_call)/ { rt += $1 }
			FILENAME ~ /calls/ { f = fname($2); g = fname($3) }
			FILENAME ~ /calls/ && disp(f) && !disp(g) { calls += $1; if (g ~ /_thunk/) icalls += $1 }
			END {
				d = hook + slots + tramp
				printf "instructions (Ir) per request: %.0f\n", total / n
				printf "hook dispatch, self Ir: %.1f per request, %.3f%% of all (ap_run_*: %.1f in %d functions; ulsm slot functions: %.1f in %d; static-call trampolines: %.1f in %d)\n", d / n, 100 * d / total, hook / n, nh, slots / n, ns, tramp / n, nt
				printf "retpoline/return thunks (all callers), self Ir: %.1f, %.3f%% of all\n", thunk / n, 100 * thunk / total
				printf "ulsm library (ulsm_*, static_call*), self Ir: %.1f, %.3f%% of all\n", rt / n, 100 * rt / total
				printf "hook functions called by the dispatch: %.2f per request, through a retpoline thunk: %.2f\n", calls / n, icalls / n
			}' "$d/cg.self.diff" "$d/cg.calls.diff"
		echo "# hook dispatch functions: self Ir per request"
		awk -F'\t' -v n="$CG_N" '{ f = $2; sub(/ \[[^]]*\]$/, "", f) }
			f ~ /^(ap_run_|ulsm__apr_|__SCT__|__x86_.*thunk|ulsm_|static_call)/ { printf "%10.1f  %s\n", $1 / n, $2 }' "$d/cg.self.diff"
		echo "# calls made by the hook dispatch, per request"
		awk -F'\t' '{ f = $2; g = $3; sub(/ \[[^]]*\]$/, "", f); sub(/ \[[^]]*\]$/, "", g) }
			f ~ /^(ap_run_|ulsm__apr_|__SCT__)/ { c[f " -> " g] += $1 }
			END { for (k in c) print c[k] "\t" k }' "$d/cg.calls.diff" |
			sort -t$'\t' -k1,1gr | awk -F'\t' -v n="$CG_N" '{ printf "%8.2f  %s\n", $1 / n, $2 }' | head -80
		echo "# top 25 functions by self Ir"
		head -25 "$d/cg.self.diff" | awk -F'\t' -v n="$CG_N" '{ printf "%10.1f  %s\n", $1 / n, $2 }'
	} > "$d/callgrind.summary"
	cp "$d/callgrind.summary" "$OUT/$v.callgrind"
	head -6 "$d/callgrind.summary"
}

# ---------------------------------------------------------------- main
cmd=${1:-all}; [ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- real-plain
for v in "$@"; do port_of "$v" > /dev/null; done
mkdir -p "$HTTPD_WORK" "$OUT"

diff_responses() {	# variant...: diff each against the first
	local first=$1 v rc=0; shift
	for v in "$@"; do
		if diff -u "$OUT/$first.responses" "$OUT/$v.responses" > "$OUT/$first--$v.diff"; then
			log "responses: $v identical to $first"
		else
			log "responses: $v DIFFERS from $first ($OUT/$first--$v.diff)"
			head -40 "$OUT/$first--$v.diff" >&2
			rc=1
		fi
	done
	return $rc
}

case $cmd in
build) for v in "$@"; do build "$v"; done ;;
check) for v in "$@"; do check "$v"; done; diff_responses "$@" ;;
bench) bench "$@" ;;
all) for v in "$@"; do build "$v"; check "$v"; bench "$v"; done; diff_responses "$@" || true ;;
compare)
	for v in "$@"; do build "$v"; done
	for v in "$@"; do check "$v"; done
	diff_responses "$@" || true
	bench "$@" ;;
callgrind) for v in "$@"; do callgrind "$v"; done ;;
cgreport) for v in "$@"; do cg_report "$v"; done ;;
restarts) for v in "$@"; do restarts "$v"; done ;;
clean) for v in "$@"; do rm -rf "$(vdir "$v")"; done ;;
*) die "unknown command $cmd (build check bench all compare callgrind clean)" ;;
esac
