#!/usr/bin/perl
# bench/httpd/cg.pl: read callgrind output for bench/httpd/run.sh.
#
#   cg.pl self FILE    "Ir<TAB>function [object]" per function, self cost
#   cg.pl calls FILE   "count<TAB>caller [object]<TAB>callee [object]" per pair
#   cg.pl diff A B     per key, B - A (for the two outputs above), biggest first
#
# Functions callgrind could not name (0x... addresses: the retpoline thunks,
# static-call trampolines, local symbols without debug information) are named
# from the object's symbol table (nm): "symbol" or "symbol+0xoffset".
use strict;
use warnings;

my %nm;
sub resolve {
	my ($name, $obj) = @_;
	$name =~ s/\x27\d+$//;	# callgrind's recursion levels: one function
	my ($hex) = $name =~ /^0x([0-9a-f]+)$/;
	return $name unless defined $hex && defined $obj && $obj =~ m{^/} && $obj !~ m{^/usr/lib/};
	my $addr = hex $hex;
	$nm{$obj} //= [
		map { my ($a, $t, $n) = split; [hex $a, $n] }
		grep { /^[0-9a-f]+ [tTwWiI] / } `nm -n --defined-only '$obj' 2>/dev/null`
	];
	my $best;
	for (@{$nm{$obj}}) { last if $_->[0] > $addr; $best = $_ }
	return $name unless $best;
	return $best->[0] == $addr ? $best->[1] : sprintf("%s+0x%x", $best->[1], $addr - $best->[0]);
}

# The callgrind format: positions/costs after fn= lines are self costs;
# cfn=/calls= lines announce a call, whose inclusive cost is the next line.
sub parse {
	my ($file, $want_calls) = @_;
	open my $f, '<', $file or die "$file: $!";
	my (%str, %self, %calls);
	my ($ob, $fn, $cob, $cfn, $pending_calls) = ('?', '?');
	my $name = sub {	# "(id) name" or "(id)" in namespace $kind
		my ($kind, $v) = @_;
		if ($v =~ /^\((\d+)\)\s*(.*)$/) {
			$str{$kind}{$1} = $2 if length $2;
			return $str{$kind}{$1} // "($1)";
		}
		return $v;
	};
	while (<$f>) {
		chomp;
		if (/^ob=(.*)/) { $ob = $name->('ob', $1); next }
		if (/^fn=(.*)/) { $fn = $name->('fn', $1); $fn = resolve($fn, $ob) . " [$ob]"; undef $cob; next }
		if (/^cob=(.*)/) { $cob = $name->('ob', $1); next }
		if (/^cfn=(.*)/) { $cfn = $name->('fn', $1); next }
		if (/^calls=(\d+)/) {
			my $o = $cob // $ob;
			$calls{"$fn\t" . resolve($cfn, $o) . " [$o]"} += $1 if $want_calls;
			$pending_calls = 1; undef $cob;
			next;
		}
		if (/^[+\-*]?\d|^\+|^-|^\*/) {	# a cost line: position(s) then the Ir count
			my @w = split;
			if ($pending_calls) { $pending_calls = 0; next }	# inclusive cost of the call
			$self{$fn} += $w[-1] if @w >= 2;
			next;
		}
		# cfi=, cfl=, fi=, fe=, fl=, jump=, totals, summary: nothing to count
	}
	return $want_calls ? \%calls : \%self;
}

my $cmd = shift // die "usage: cg.pl self|calls FILE | diff A B\n";
if ($cmd eq 'self' || $cmd eq 'calls') {
	my $h = parse($ARGV[0], $cmd eq 'calls');
	print "$h->{$_}\t$_\n" for sort { $h->{$b} <=> $h->{$a} } keys %$h;
} elsif ($cmd eq 'diff') {
	my %d;
	for my $i (0, 1) {
		open my $f, '<', $ARGV[$i] or die "$ARGV[$i]: $!";
		while (<$f>) { chomp; my ($c, $k) = split /\t/, $_, 2; $d{$k} += $i ? $c : -$c }
	}
	print "$d{$_}\t$_\n" for sort { $d{$b} <=> $d{$a} } grep { $d{$_} } keys %d;
} else {
	die "cg.pl: unknown command $cmd\n";
}
