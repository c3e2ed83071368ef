#!/bin/sh
# test-lib.sh's trash rule: a script whose every point passed removes its
# trash directory once its services have stopped; a failed or interrupted
# script, one whose logs hold a sanitizer report (written as late as its
# exit cleanups), or any script under WSEQ_KEEP_TRASH=1 keeps it.
test_description='a passing script leaves no trash; a failed one, a sanitizer report or WSEQ_KEEP_TRASH keeps it'
. "$WSEQ_SRCDIR/test/test-lib.sh"
# The inner trash holds a (made) sanitizer report: this script's own trash
# must not, or run-all.sh would fail the run on it.
test_atexit "rm -rf '$TRASH_DIRECTORY/b'"

# inner NAME BODY [EXIT-CLEANUP [BEFORE-DONE]]: a script on test-lib.sh with
# one point, run with its own build tree under ./b (its trash is
# b/test/trash.NAME) and WSEQ_KEEP_TRASH as $KEEP says.
inner() {
	mkdir -p b/test
	cat >"$1.sh" <<-INNER
	#!/bin/sh
	. "\$WSEQ_SRCDIR/test/test-lib.sh"
	test_atexit '${3:-:}'
	test_expect_success 'the point' '$2'
	${4:-:}
	test_done
	INNER
	WSEQ_BUILDDIR=$PWD/b WSEQ_KEEP_TRASH=${KEEP:-0} sh "./$1.sh" >"$1.out" 2>&1
}

test_expect_success 'a script that passed removes its trash after its cleanups ran' '
	inner pass "echo data >f" "echo cleaned >\"\$TRASH_DIRECTORY/../pass.cleaned\"" &&
	grep "^ok 1" pass.out &&
	test -f b/test/pass.cleaned &&
	test ! -e b/test/trash.pass
'

test_expect_success 'a script with a failed point keeps its trash' '
	test_must_fail inner fail "echo data >f; false" &&
	grep "^not ok 1" fail.out &&
	test -f b/test/trash.fail/f
'

test_expect_success 'a script that exits before test_done keeps its trash' '
	test_must_fail inner stop "echo data >f" : "exit 3" &&
	grep "^ok 1" stop.out &&
	test -d b/test/trash.stop
'

test_expect_success 'a sanitizer report written by an exit cleanup keeps the trash of a passed script' '
	inner leak "echo data >f" "echo \"==1==ERROR: Leak\"\"Sanitizer: detected memory leaks\" >\"\$TRASH_DIRECTORY/daemon.log\"" &&
	grep "^ok 1" leak.out &&
	grep "kept .*a sanitizer report" leak.out &&
	grep -q LeakSanitizer b/test/trash.leak/daemon.log
'

test_expect_success 'WSEQ_KEEP_TRASH=1 keeps a passed script'"'"'s trash' '
	KEEP=1 &&
	inner keep "echo data >f" &&
	test -f b/test/trash.keep/f
'

test_done
