#!/bin/sh
test_description='boinc_gahp speaks the GAHP protocol: every case of test/data/gahp against a fake project'
. "$WSEQ_SRCDIR/test/test-lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	test_skip 'the GAHP protocol cases' 'python3 is not installed'
	test_done
fi

test_expect_success 'boinc_gahp --help prints its usage and options, and no banner' '
	boinc_gahp --help </dev/null >help 2>err &&
	grep -i usage help && grep -e --config help && grep -e --workers help &&
	test_grep -v GahpVersion help
'

test_expect_success '--version prints the version string and does not speak the protocol' '
	boinc_gahp --version </dev/null >out 2>err &&
	test_line_count = 1 out && grep "GahpVersion: 1.0.2" out
'

test_expect_success 'an unknown option or argument: status 2, nothing on stdout' '
	test_expect_code() { want=$1; shift; "$@"; test $? = "$want"; } &&
	test_expect_code 2 boinc_gahp --no-such-option </dev/null >out1 2>err1 &&
	test_expect_code 2 boinc_gahp extra </dev/null >out2 2>err2 &&
	test ! -s out1 && test ! -s out2 && test -s err1
'

test_expect_success 'a --config file that cannot be read: status 1 before the banner' '
	test_must_fail boinc_gahp --config nonexistent </dev/null >out 2>err &&
	test ! -s out && test_grep nonexistent err
'

for case in "$WSEQ_SRCDIR"/test/data/gahp/[0-9]*.txt; do
	name=$(basename "$case" .txt)
	what=$(sed -n '1s/^# //p' "$case")
	test_expect_success "$name: $what" '
		python3 "$WSEQ_SRCDIR/test/data/gahp/gahp-driver.py" "$case" "$TRASH_DIRECTORY/$name"
	'
done

test_done
