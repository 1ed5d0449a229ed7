#!/bin/sh
# SPDX-License-Identifier: MIT
#
# ctf_compare.sh - a recording read by babeltrace2 through ulsm-trace --ctf
# compared, field by field, with ulsm-trace --text of the same recording.
#
#	tests/tools/ctf_compare.sh [-t ULSM_TRACE] [-q] RECORDING
#
# Any recording will do (ulsm_trace_write(), ULSM_TRACE, ulsmctl record;
# "-" is standard input). Per thread, in order, each event must have the
# same time (from the first event, in ns), tracepoint name, number of
# fields, field names and values in both; each thread its name, pid and
# lost events (babeltrace2's "discarded" warnings, summed per stream);
# the process its command and pid. Values compare by what they mean:
# integers as printed (so -13 must read -13 in both, and 255 not -1),
# bool as babeltrace2's enum label, pointers in hexadecimal whatever the
# case, float and double as babeltrace2's %g of the text's value,
# strings byte for byte (a NULL string is "(null)", a cut one ends with
# U+2026, a lost one is "(lost)" in the CTF trace).
#
# Exit status: 0 the same, 1 a difference (the first ones are printed),
# 2 a tool failed or a bad command line, 3 babeltrace2 is not installed
# (a caller's TAP test skips). -q prints nothing when they are the same.
# BABELTRACE2 names babeltrace2 (default: the one on the PATH); ULSM_EMU
# prefixes ulsm-trace (a cross build under qemu-user).
set -u
tool=${ULSM_TRACE_TOOL:-ulsm-trace}
bt=${BABELTRACE2:-babeltrace2}
quiet=
while [ $# -gt 1 ]; do
	case $1 in
	-t) tool=$2; shift 2 ;;
	-q) quiet=1; shift ;;
	*) break ;;
	esac
done
if [ $# -ne 1 ]; then
	echo "usage: ctf_compare.sh [-t ULSM_TRACE] [-q] RECORDING" >&2
	exit 2
fi
if ! command -v "$bt" >/dev/null 2>&1; then
	echo "ctf_compare: babeltrace2 is not installed" >&2
	exit 3
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
rec=$1
if [ "$rec" = - ]; then
	cat >"$tmp/rec.bin" || exit 2
	rec=$tmp/rec.bin
fi
if ! ${ULSM_EMU-} "$tool" --text "$rec" >"$tmp/text" 2>"$tmp/err" ||
   ! ${ULSM_EMU-} "$tool" --ctf "$tmp/ctf" "$rec" 2>>"$tmp/err"; then
	echo "ctf_compare: ulsm-trace failed:" >&2
	cat "$tmp/err" >&2
	exit 2
fi
# Raw clock values (ns: the clock's frequency is 1e9), no deltas, and no
# colours; the "discarded" warnings go to standard error.
if ! BABELTRACE_TERM_COLOR=NEVER "$bt" --clock-cycles --no-delta "$tmp/ctf" \
	>"$tmp/bt" 2>"$tmp/bt.err"; then
	echo "ctf_compare: babeltrace2 could not read the trace:" >&2
	head -20 "$tmp/bt.err" >&2
	exit 1
fi
perl - "$tmp/text" "$tmp/bt" "$tmp/bt.err" "$quiet" <<'EOF'
use strict;
use warnings;

my ($text_file, $bt_file, $err_file, $quiet) = @ARGV;
my @diffs;
sub differ { push @diffs, join('', @_) if @diffs < 20; }

# The bytes a well-formed UTF-8 sequence starts with, its length and the
# range of its second byte (the Unicode Standard, table 3-7).
sub utf8_len {
	my ($s, $i) = @_;
	my @forms = ([0xc2, 0xdf, 0x80, 0xbf, 2], [0xe0, 0xe0, 0xa0, 0xbf, 3],
		     [0xe1, 0xec, 0x80, 0xbf, 3], [0xed, 0xed, 0x80, 0x9f, 3],
		     [0xee, 0xef, 0x80, 0xbf, 3], [0xf0, 0xf0, 0x90, 0xbf, 4],
		     [0xf1, 0xf3, 0x80, 0xbf, 4], [0xf4, 0xf4, 0x80, 0x8f, 4]);
	my $c = ord(substr($s, $i, 1));
	return $c ? 1 : 0 if $c < 0x80;
	for my $f (@forms) {
		next if $c < $f->[0] || $c > $f->[1];
		my $n = $f->[4];
		return 0 if $i + $n > length($s);
		my $c1 = ord(substr($s, $i + 1, 1));
		return 0 if $c1 < $f->[2] || $c1 > $f->[3];
		for my $k (2 .. $n - 1) {
			return 0 if (ord(substr($s, $i + $k, 1)) & 0xc0) != 0x80;
		}
		return $n;
	}
	return 0;
}

# What a CTF string holds of these bytes: a NUL or a byte that is not
# UTF-8 as U+FFFD, at most $max bytes, cut at a character's start.
sub ctf_text {
	my ($s, $max) = @_;
	my $out = '';
	for (my $i = 0; $i < length($s);) {
		my $n = utf8_len($s, $i);
		my $piece = $n ? substr($s, $i, $n) : "\xef\xbf\xbd";
		last if defined $max && length($out) + length($piece) > $max;
		$out .= $piece;
		$i += $n ? $n : 1;
	}
	return $out;
}

# ulsm-trace --text's escapes: \" \\ \xNN.
sub text_unescape {
	my ($s) = @_;
	$s =~ s/\\(x([0-9a-fA-F]{2})|.)/defined $2 ? chr(hex($2)) : $1/ge;
	return $s;
}

# babeltrace2's (its pretty sink's print_escape_string()).
my %bt_esc = (0 => "\0", a => "\a", b => "\b", e => "\e", f => "\f",
	      n => "\n", r => "\r", t => "\t", v => "\x0b");
sub bt_unescape {
	my ($s) = @_;
	$s =~ s/\\(x([0-9a-fA-F]{2})|.)/defined $2 ? chr(hex($2)) :
		exists $bt_esc{$1} ? $bt_esc{$1} : $1/ge;
	return $s;
}

# --- ulsm-trace --text ------------------------------------------------
my (%threads, %text_events, %text_lost, $pid, $cmd);
my $text_count = 0;
open(my $tf, '<', $text_file) or die "$text_file: $!";
while (my $line = <$tf>) {
	chomp $line;
	if ($line =~ /^# pid (\d+) (\S+)$/) {
		($pid, $cmd) = ($1, $2);
		next;
	}
	if ($line =~ /^# thread (\d+) (\S+): (\d+) events, (\d+) lost(?: \(pid (\d+)\))?$/) {
		$threads{$1} = { name => $2, events => $3, lost => $4, pid => $5 };
		next;
	}
	my ($sec, $tid, $name, $rest) = $line =~ /^(\d+)\.(\d{9}) (\d+) (\S+)(.*)$/
		? ("$1$2", $3, $4, $5) : ();
	if (!defined $name) {
		differ("text: a line I cannot read: $line");
		next;
	}
	if ($name eq '(lost)') {
		$text_lost{$tid} += $rest =~ / events=(\d+)$/ ? $1 : 0;
		next;
	}
	my @fields;
	while ($rest =~ s/^ ([^=\s]*)=//) {
		my $fname = $1;
		my $v;
		if ($rest =~ s/^"((?:[^"\\]|\\.)*)"(\.\.\.)?//) {
			$v = { str => ctf_text(text_unescape($1), 768) .
				      (defined $2 ? "\xe2\x80\xa6" : '') };
		} elsif ($rest =~ s/^(\S+)//) {
			$v = $1 eq 'NULL' ? { str => '(null)' } :
			     $1 eq '(lost)' ? { str => '(lost)' } : { num => $1 };
		} else {
			$v = { num => '' };
		}
		push @fields, [$fname, $v];
	}
	differ("text: left over in \"$line\": $rest") if length $rest;
	push @{$text_events{$tid}}, { ns => $sec + 0, name => $name,
				      fields => \@fields, line => $line };
	$text_count++;
}
close $tf;

# --- babeltrace2 ------------------------------------------------------
# A line: [cycles] procname:(vpid) name: { packet context }, { payload }.
# Names have no spaces: ulsm-trace writes them as its text shows them.
sub bt_value {
	my ($r) = @_;
	if ($$r =~ s/^"((?:[^"\\]|\\.)*)"//) {
		return { str => bt_unescape($1) };
	}
	if ($$r =~ s/^\( (?:"((?:[^"\\]|\\.)*)"|<unknown>) : container = (-?\w+) \)//) {
		return { label => defined $1 ? $1 : '<unknown>', num => $2 };
	}
	if ($$r =~ /^\{/) {
		return { group => bt_group($r) };
	}
	$$r =~ s/^([^,\s}]+)// or return { num => '' };
	return { num => $1 };
}

sub bt_group {
	my ($r) = @_;
	my @f;
	$$r =~ s/^\{// or return undef;
	while ($$r =~ s/^ (\w+) = //) {
		my $n = $1;
		push @f, [$n, bt_value($r)];
		$$r =~ s/^,//;
	}
	$$r =~ s/^ \}// or return undef;
	return \@f;
}

my (%bt_events, %bt_threads, $bt_pid, $bt_cmd, $bt_t0);
my $bt_count = 0;
open(my $bf, '<', $bt_file) or die "$bt_file: $!";
while (my $line = <$bf>) {
	chomp $line;
	my ($cyc, $rest) = $line =~ /^\[(\d+)\] (.*)$/;
	if (!defined $cyc) {
		differ("babeltrace2: a line I cannot read: $line");
		next;
	}
	if ($rest =~ s/^(\S*):\((\d+)\) //) {
		($bt_cmd, $bt_pid) = ($1, $2);
	}
	my ($name) = $rest =~ s/^(\S*): // ? ($1) : ();
	my $ctx = bt_group(\$rest);
	$rest =~ s/^, //;
	my $payload = bt_group(\$rest);
	if (!defined $name || !$ctx || !$payload || length $rest) {
		differ("babeltrace2: a line I cannot read: $line");
		next;
	}
	my %c = map { $_->[0] => $_->[1] } @$ctx;
	my $tid = $c{tid}{num};
	$bt_threads{$tid} = { name => $c{thread_name}{str}, pid => $c{pid}{num} };
	$bt_t0 = $cyc if !defined $bt_t0 || $cyc < $bt_t0;
	push @{$bt_events{$tid}}, { cyc => $cyc, name => $name,
				    fields => $payload, line => $line };
	$bt_count++;
}
close $bf;
my %bt_lost;
open(my $ef, '<', $err_file) or die "$err_file: $!";
while (my $line = <$ef>) {
	if ($line =~ /discarded (\d+) events? .*within stream "[^"]*\/stream_(\d+)"/) {
		$bt_lost{$2} += $1;
	} elsif ($line =~ /WARNING|ERROR/) {
		differ("babeltrace2 said: $line");
	}
}
close $ef;

# --- the comparison ---------------------------------------------------
sub same_value {
	my ($t, $b) = @_;
	if (exists $t->{str}) {
		return exists $b->{str} && $t->{str} eq $b->{str};
	}
	my $v = $t->{num};
	if (exists $b->{label}) {	# bool
		return ($v eq 'true' || $v eq 'false') && $b->{label} eq $v;
	}
	return 0 unless exists $b->{num};
	my $w = $b->{num};
	return 1 if $v eq $w;
	if ($v =~ /^0x([0-9a-f]+)$/i && $w =~ /^0x([0-9a-f]+)$/i) {
		(my $x = lc substr($v, 2)) =~ s/^0+(?=.)//;
		(my $y = lc substr($w, 2)) =~ s/^0+(?=.)//;
		return $x eq $y;
	}
	# A float or double: babeltrace2 prints %g.
	if ($w =~ /^-?(nan|inf)/i) {
		(my $x = lc $v) =~ s/^-(?=nan)//;
		(my $y = lc $w) =~ s/^-(?=nan)//;
		return $x eq $y;
	}
	return $w =~ /[.e]/ && $v =~ /^-?[\d.]+(e[-+]?\d+)?$/i &&
	       sprintf('%g', $v) eq $w;
}

sub show { my ($v) = @_; return exists $v->{str} ? "\"$v->{str}\"" :
	exists $v->{label} ? "($v->{label}: $v->{num})" : $v->{num}; }

my $t0;
for my $tid (keys %text_events) {
	my $ns = $text_events{$tid}[0]{ns};
	$t0 = $ns if !defined $t0 || $ns < $t0;
}
my $nfields = 0;
my %tids = map { $_ => 1 } keys %text_events, keys %bt_events;
for my $tid (sort { $a <=> $b } keys %tids) {
	my $te = $text_events{$tid} || [];
	my $be = $bt_events{$tid} || [];
	differ("thread $tid: ", scalar @$te, " events in the text, ",
	       scalar @$be, " in babeltrace2") if @$te != @$be;
	for my $i (0 .. ($#$te < $#$be ? $#$te : $#$be)) {
		my ($x, $y) = ($te->[$i], $be->[$i]);
		my $where = "thread $tid, event $i ($x->{name})";
		my $dt = ($y->{cyc} - $bt_t0) - $x->{ns};
		differ("$where: at $x->{ns} ns in the text, ",
		       $y->{cyc} - $bt_t0, " in babeltrace2") if abs($dt) > 1;
		differ("$where: named $y->{name} in babeltrace2")
			if $x->{name} ne $y->{name};
		my ($tf, $bf) = ($x->{fields}, $y->{fields});
		if (@$tf != @$bf) {
			differ("$where: ", scalar @$tf, " fields in the text, ",
			       scalar @$bf, " in babeltrace2");
			next;
		}
		for my $k (0 .. $#$tf) {
			my ($tn, $tv) = @{$tf->[$k]};
			my ($bn, $bv) = @{$bf->[$k]};
			$nfields++;
			my $name_ok = $tn eq 'arg' ? $bn =~ /^arg\d/ :
				      $tn !~ /^[A-Za-z_]\w*$/ ||
				      $bn =~ /^\Q$tn\E(?:_\d+)*$/;
			differ("$where: field $k is $tn in the text, $bn in ",
			       "babeltrace2") unless $name_ok;
			differ("$where: $tn is ", show($tv), " in the text, ",
			       show($bv), " in babeltrace2")
				unless same_value($tv, $bv);
		}
	}
	my $lt = $text_lost{$tid} || 0;
	my $lb = $bt_lost{$tid} || 0;
	differ("thread $tid: $lt events lost in the text, $lb discarded in ",
	       "babeltrace2") if $lt != $lb;
	next unless @$be && $threads{$tid};
	my $tn = ctf_text(text_unescape($threads{$tid}{name} eq '""' ? '' :
			  $threads{$tid}{name}), 255);
	differ("thread $tid: named \"$tn\" in the text, ",
	       "\"$bt_threads{$tid}{name}\" in babeltrace2")
		if $tn ne $bt_threads{$tid}{name};
	my $tp = $threads{$tid}{pid} // $pid;
	differ("thread $tid: pid $tp in the text, $bt_threads{$tid}{pid} in ",
	       "babeltrace2") if defined $tp && $tp ne $bt_threads{$tid}{pid};
}
for my $tid (keys %bt_lost) {
	differ("thread $tid: $bt_lost{$tid} discarded in babeltrace2, none ",
	       "in the text") if !$tids{$tid} && $bt_lost{$tid} != ($text_lost{$tid} || 0);
}
if (defined $pid && $bt_count) {
	differ("the process: $cmd ($pid) in the text, ",
	       ($bt_cmd // '?'), " (", ($bt_pid // '?'), ") in babeltrace2")
		if !defined $bt_pid || $bt_pid ne $pid || $bt_cmd ne $cmd;
}
if (@diffs) {
	print "ctf_compare: $_\n" for @diffs;
	exit 1;
}
my $lost = 0;
$lost += $_ for values %text_lost;
printf "ctf_compare: %d events (%d fields) and %d lost events on %d threads: " .
       "the same in ulsm-trace --text and babeltrace2\n",
       $text_count, $nfields, $lost, scalar keys %tids unless $quiet;
exit 0;
EOF
