#!/bin/sh
# Every test in the tree is registered, once, and every registered test is
# in the tree. make check passes the registered lists (WSEQ_REGISTERED: the
# unit tests, the shell tests of test/t/Makefile.inc and the fuzz targets;
# WSEQ_TEST_LIBS: the libraries the shell tests source) and this test holds
# them against the files: a test/t/t*.sh, test/unit/test_*.c or
# test/fuzz/fuzz_*.c that make check would never run is a failure, as is a
# name in a list with no file behind it. test/README.md has the rules.
test_description='every test/t/t*.sh, unit test and fuzz target is registered exactly once, and every registered one exists'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# registered_problems SRCDIR "REGISTERED" "LIBS": one line per problem found.
registered_problems() {
	src=$1 reg=" $2 " libs=" $3 "
	printf '%s\n' $2 | sort | uniq -d | sed 's/^/listed twice: /'
	for f in "$src"/test/t/t[0-9]*.sh; do
		n=test/t/${f##*/}
		case $reg in *" $n "*) ;; *) echo "not registered in test/t/Makefile.inc: $n" ;; esac
	done
	for f in "$src"/test/t/lib-*.sh; do
		n=test/t/${f##*/}
		case $libs in *" $n "*) ;; *) echo "not in SHELL_TEST_LIBS: $n" ;; esac
	done
	for f in "$src"/test/unit/test_*.c; do
		n=test/unit/$(basename "$f" .c)
		case $reg in *" $n "*) continue ;; esac
		# A unit program a shell test runs (as "$WSEQ_BUILDDIR/NAME") counts.
		grep -qF "BUILDDIR/$n\"" "$src"/test/t/t*.sh ||
			echo "not in UNIT_TESTS and run by no shell test: $n"
	done
	for f in "$src"/test/fuzz/fuzz_*.c; do
		n=test/fuzz/$(basename "$f" .c)
		[ "$n" = test/fuzz/fuzz_util ] && continue
		case $reg in *" $n "*) ;; *) echo "not in FUZZ_TARGETS: $n" ;; esac
		[ -d "$src/test/fuzz/corpus/${n##*/fuzz_}" ] || echo "no corpus to replay: $n"
	done
	for n in $2 $3; do
		case $n in
		*.sh) f=$n ;;
		*) f=$n.c ;;
		esac
		[ -f "$src/$f" ] || echo "registered but not in the tree: $f"
	done
}

test_expect_success 'make check passed the registered lists' '
	test -n "$WSEQ_REGISTERED" && test -n "$WSEQ_TEST_LIBS"
'

test_expect_success 'every test in the tree is registered once and every registered test exists' '
	registered_problems "$WSEQ_SRCDIR" "$WSEQ_REGISTERED" "$WSEQ_TEST_LIBS" >problems &&
	test_line_count = 0 problems
'

# The check itself, on a copy of the test tree with one test added without
# registering it, one registered test removed, and one name listed twice.
test_expect_success 'an unregistered, a missing and a doubly listed test are each named' '
	mkdir -p copy/test &&
	cp -R "$WSEQ_SRCDIR/test/t" "$WSEQ_SRCDIR/test/unit" "$WSEQ_SRCDIR/test/fuzz" \
		"$WSEQ_SRCDIR/test/test-lib.sh" "$WSEQ_SRCDIR/test/lib-one-account.sh" copy/test/ &&
	chmod -R u+w copy &&
	echo "test_done" >copy/test/t/t9999-forgotten.sh &&
	echo "int main(void) { return 0; }" >copy/test/unit/test_forgotten.c &&
	rm copy/test/t/t0010-help.sh &&
	registered_problems copy "$WSEQ_REGISTERED test/t/t8000-sim.sh" "$WSEQ_TEST_LIBS" >problems &&
	cat >expect <<-\EOF &&
	listed twice: test/t/t8000-sim.sh
	not registered in test/t/Makefile.inc: test/t/t9999-forgotten.sh
	not in UNIT_TESTS and run by no shell test: test/unit/test_forgotten
	registered but not in the tree: test/t/t0010-help.sh
	EOF
	test_cmp expect problems
'

# Every schema upgrade file installs (db/Makefile.inc's dist_pkgdata_DATA), or
# db_upgrade on an installed wseq would stop short of the code's version.
test_expect_success 'every db/upgrade/NNN_*.sql is installed, and nothing else is listed' '
	(cd "$WSEQ_SRCDIR" && ls db/upgrade/[0-9][0-9][0-9]_*.sql) | sort >upgrades.tree &&
	sed -n "s/^dist_pkgdata_DATA += \(db\/upgrade\/[0-9]*_.*\.sql\)$/\1/p" \
		"$WSEQ_SRCDIR/db/Makefile.inc" | sort >upgrades.installed &&
	test -s upgrades.tree &&
	test_cmp upgrades.tree upgrades.installed
'

test_done
