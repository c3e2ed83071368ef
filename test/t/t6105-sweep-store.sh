#!/bin/sh
test_description='the sweep store conformance suite (test/unit/sweep_store_conf.c) on the project store: a private project'"'"'s MariaDB, its own transitioner making and timing out tickets'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1

# The suite runs once; each of its cases is a test point here.
test_expect_success 'setup: the suite runs every case on the project store' '
	test_project "$WSEQ_BUILDDIR/test/wseq_test" sweep conformance "$PROJECT_DIR/bin/transitioner" \
		>conf.out 2>conf.err
	plan=$(sed -n "s/^1\.\.\([0-9]*\)$/\1/p" conf.out) &&
	test "$plan" -gt 0 &&
	test "$(grep -c "^\(not \)\{0,1\}ok [0-9]* - " conf.out)" = "$plan"
'

plan=$(sed -n "s/^1\.\.\([0-9]*\)$/\1/p" conf.out 2>/dev/null)
n=1
while test "$n" -le "${plan:-0}"; do
	what=$(sed -n "s/^\(not \)\{0,1\}ok $n - //p" conf.out)
	test_expect_success "project store: $what" "
		grep -q '^ok $n - ' conf.out || { sed -n '/ok $n - /,/ok $((n + 1)) - /p' conf.out; false; }
	"
	n=$((n + 1))
done

test_expect_success 'the suite ran clean under the sanitizers, when built in' '
	! grep -i "sanitizer\|runtime error" conf.err
'

test_done
