#!/bin/sh
# The ops pages of issue 32: a host's page shows its reliability per app
# version (host_app_version, filled by the validator's verdicts) and whether
# adaptive replication trusts it; the errors page counts invalid results by
# what the verdict rests on (validate_why), each count a link to the list;
# an admin revalidates a workunit (POST, CSRF): its judged, not valid
# results go back to the validator, valid ones keep their credit and are
# never granted again; refused for a workunit assimilated or not found, and
# every bad form field gets the page's own error, never a 500. Screenshots
# of the host page and the errors page stay in web/*.png.
test_description='ops pages: per-version reliability, invalid results by check outcome, revalidate a workunit'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1
. "$WSEQ_SRCDIR/test/t/lib-ops.sh"
verdict() { q "select validate_state, outcome, round(granted_credit) from result where name=\"$1\""; }
why() { q "select validate_why from result where name=\"$1\""; }
host_credit() { q "select round(total_credit) from host where id=1"; }

cat >"$TRASH_DIRECTORY/check.sh" <<'EOT'
#!/bin/sh
# check.sh FILE: invalid when FILE holds a NaN
grep -qi nan "$1" && exit 1
exit 0
EOT
printf '#!/bin/sh\nexit 0\n' >"$TRASH_DIRECTORY/same.sh"
chmod +x "$TRASH_DIRECTORY/check.sh" "$TRASH_DIRECTORY/same.sh"
CHECK="--check_cmd $TRASH_DIRECTORY/check.sh"

# rep RESULT REPORT-OPTIONS...: report RESULT, by host 1 and version $AV1, due in an
# hour (inside the errors page's window)
rep() {
	_r=$1 && shift &&
	tool report "$_r" "$@" &&
	q "update result set app_version_id=$(cat AV1), hostid=1,
		report_deadline=unix_timestamp()+3600 where name=\"$_r\""
}

test_expect_success 'setup: a host, two versions of testapp (one a GPU plan class), jobs judged every way' '
	tool wu R --quorum 2 --target 2 --max_total 6 >/dev/null &&
	q "insert into host (id, userid, domain_name, os_name, create_time, rpc_time)
		values (1, 1, \"crunch-1\", \"Linux\", unix_timestamp(), unix_timestamp())
		on duplicate key update domain_name=\"crunch-1\";
	   update app set target_nresults=2, trust_after=3 where name=\"testapp\";
	   insert into app_version (create_time, appid, version_num, platformid, xml_doc, plan_class)
		select unix_timestamp(), id, 100, 1, \"\", \"\" from app where name=\"testapp\";
	   insert into app_version (create_time, appid, version_num, platformid, xml_doc, plan_class)
		select unix_timestamp(), id, 102, 1, \"\", \"cuda\" from app where name=\"testapp\"" &&
	q "select id from app_version where plan_class=\"\" and version_num=100" >AV1 &&
	q "select id from app_version where plan_class=\"cuda\"" >AV2 &&
	q "insert into host_app_version (host_id, app_version_id, n_jobs, n_valid, consecutive_valid,
		error_rate, flops_avg, turnaround_avg) values (1, $(cat AV2), 6, 5, 5, 0.05, 2.5e9, 5400)" &&
	tool wu A --quorum 1 --target 1 >/dev/null &&
	in_project transitioner --one_pass 2>/dev/null &&
	rep A_0 --output "1 2 3" &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator $CHECK --credit 7 --one_pass 2>val.log &&
	in_project assimilator --one_pass 2>/dev/null &&
	test "$(wu_col A assimilate_state)" = 2 &&
	rep R_0 --output "1 2 3" && rep R_1 --output "1 2 4" &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator $CHECK --credit 7 --one_pass 2>val.log &&
	in_project transitioner --one_pass 2>/dev/null &&
	rep R_2 --output "1 2 3" &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator $CHECK --credit 7 --one_pass 2>val.log &&
	test "$(verdict R_0)" = "1	1	7" && test "$(verdict R_2)" = "1	1	7" &&
	test "$(verdict R_1)" = "2	1	0" && test "$(why R_1)" = 5 && test "$(why R_0)" = 4 &&
	for w in N M; do
		tool wu $w --quorum 1 --target 1 >/dev/null || return 1
	done &&
	in_project transitioner --one_pass 2>/dev/null &&
	rep N_0 --output "1 nan" && rep M_0 --missing &&
	in_project transitioner --one_pass 2>/dev/null &&
	in_project validator $CHECK --credit 7 --one_pass 2>val.log &&
	test "$(why N_0)" = 2 && test "$(why M_0)" = 3 && test "$(why A_0)" = 1 &&
	test "$(q "select concat(n_valid, \" \", n_invalid) from host_app_version
		where host_id=1 and app_version_id=$(cat AV1)")" = "3 3"
'

test_expect_success 'the host page: a row per version with its counts, speed and trust' '
	test "$(signin jar)" = 303 &&
	test "$(status -b jar "${OPS}host?id=1")" = 200 && cp out.html host.html &&
	sed -n "/<table id=\"host_versions\">/,/<\/table>/p" host.html >hv.html &&
	test "$(grep -c "^<tr><td>testapp</td>" hv.html)" = 2 &&
	test_grep "<td class=\"num\">1.00</td><td>-</td>" hv.html &&
	test_grep "<td class=\"num\">1.02</td><td>cuda</td>" hv.html &&
	test_grep "2.50 GFLOPS</td><td class=\"ok\">trusted</td>" hv.html &&
	cv=$(q "select consecutive_valid from host_app_version where app_version_id=$(cat AV1)") &&
	test "$cv" -lt 3 &&
	test_grep "<td>not yet ($((3 - cv)) more valid)</td>" hv.html &&
	q "update app set target_nresults=1 where name=\"testapp\"" &&
	status -b jar "${OPS}host?id=1" >/dev/null &&
	test "$(grep -c "no adaptive replication" out.html)" = 2 &&
	q "update app set target_nresults=2 where name=\"testapp\""
'

test_expect_success 'the errors page: invalid results by app and check outcome, each count a list' '
	test "$(status -b jar "${OPS}errors")" = 200 && cp out.html errors.html &&
	sed -n "/<table id=\"by_why\">/,/<\/table>/p" errors.html >why.html && cat why.html &&
	test "$(grep -c "^<tr><td>testapp</td>" why.html)" = 3 &&
	test_grep "check failed</td><td class=\"num\"><a href=\"[^\"]*invalid?days=7&amp;app=[0-9]*&amp;why=2\">1</a>" why.html &&
	test_grep "output files missing or bad</td><td class=\"num\"><a [^>]*why=3\">1</a>" why.html &&
	test_grep "disagreed with the canonical result</td><td class=\"num\"><a [^>]*why=5\">1</a>" why.html &&
	app=$(q "select id from app where name=\"testapp\"") &&
	test "$(status -b jar "${OPS}invalid?days=7&app=$app&why=2")" = 200 &&
	test_grep ">N_0</a>" out.html && ! grep -q ">M_0</a>" out.html &&
	test "$(status -b jar "${OPS}invalid?days=30&app=$app&why=5")" = 200 &&
	test_grep ">R_1</a>" out.html
'

test_expect_success 'bad parameters of the list: 400 pages, never a 500' '
	for u in "invalid" "invalid?app=1" "invalid?app=abc&why=2" "invalid?app=1&why=9" \
		 "invalid?app=1&why=-1" "invalid?app=1&why=2&days=0" "invalid?app=1&why=2x"; do
		c=$(status -b jar "$OPS$u") &&
		{ test "$c" = 400 || { echo "$u: $c"; return 1; }; } &&
		test_grep "Bad request" out.html || return 1
	done &&
	test "$(status -b jar "${OPS}invalid?app=424242&why=2")" = 200 &&
	test_grep "none" out.html
'

test_expect_success 'the workunit page shows each verdict'"'"'s reason and the revalidate form' '
	rid=$(wu_col R id) && echo $rid >rid &&
	test "$(status -b jar "${OPS}wu?id=$rid")" = 200 &&
	test_grep "disagreed with the canonical result" out.html &&
	test_grep "id=\"revalidate\"" out.html &&
	status -b jar "${OPS}wu?id=$(wu_col A id)" >/dev/null &&
	! grep -q "id=\"revalidate\"" out.html
'

test_expect_success 'revalidate: a missing or wrong CSRF token, a GET, bad ids are refused, nothing changes' '
	rid=$(cat rid) &&
	status -b jar "${OPS}wu?id=$rid" >/dev/null && t=$(csrf_of out.html) && test -n "$t" &&
	test "$(status -b jar --data "id=$rid" "${OPS}revalidate")" = 403 &&
	test "$(status -b jar --data "id=$rid&csrf=0123456789abcdef0123456789abcdef" "${OPS}revalidate")" = 403 &&
	test "$(status -b jar "${OPS}revalidate?id=$rid&csrf=$t")" = 405 &&
	test "$(status --data "id=$rid&csrf=$t" "${OPS}revalidate")" = 401 &&
	for id in "" abc -1 0 "1;drop" 99999999999999999999999; do
		c=$(status -b jar --data-urlencode "id=$id" --data "csrf=$t" "${OPS}revalidate") &&
		{ test "$c" = 400 || { echo "id $id: $c"; return 1; }; } || return 1
	done &&
	test "$(status -b jar --data "id=424242&csrf=$t" "${OPS}revalidate")" = 404 &&
	test_grep "no workunit with that id" out.html &&
	test "$(status -b jar --data "id=$(wu_col A id)&csrf=$t" "${OPS}revalidate")" = 409 &&
	test_grep "already assimilated" out.html &&
	test "$(verdict R_1)" = "2	1	0" && test "$(wu_col R need_validate)" = 0
'

test_expect_success 'revalidate a workunit: the invalid result goes back, the valid ones keep their credit' '
	rid=$(cat rid) && before=$(host_credit) && echo $before >credit_before &&
	status -b jar "${OPS}wu?id=$rid" >/dev/null && t=$(csrf_of out.html) &&
	test "$(status -b jar --data "id=$rid&csrf=$t" "${OPS}revalidate")" = 200 &&
	test_grep "1 result put back to be validated" out.html &&
	test "$(verdict R_1)" = "0	1	0" && test "$(why R_1)" = 0 &&
	test "$(verdict R_0)" = "1	1	7" && test "$(verdict R_2)" = "1	1	7" &&
	test "$(wu_col R need_validate)" = 1 &&
	test_grep "admin admin (user 1) \[127.0.0.1\] revalidated workunit $rid R: 1 results put back" \
		"$PROJECT_DIR/log/ops.log" &&
	test "$(status -b jar --data "id=$rid&csrf=$t" "${OPS}revalidate")" = 409 &&
	test_grep "nothing to revalidate" out.html && test "$(verdict R_1)" = "0	1	0"
'

test_expect_success 'the validator (a more permissive comparison) credits it once; valid ones are not granted again' '
	before=$(cat credit_before) &&
	in_project validator $CHECK --compare_cmd "$TRASH_DIRECTORY/same.sh" --credit 7 \
		--one_pass 2>val.log &&
	test "$(verdict R_1)" = "1	1	7" && test "$(why R_1)" = 4 &&
	test "$(verdict R_0)" = "1	1	7" && test "$(verdict R_2)" = "1	1	7" &&
	test "$(host_credit)" = $((before + 7)) &&
	in_project validator $CHECK --compare_cmd "$TRASH_DIRECTORY/same.sh" --credit 7 \
		--one_pass 2>val.log &&
	test "$(host_credit)" = $((before + 7)) &&
	status -b jar "${OPS}wu?id=$(cat rid)" >/dev/null && t=$(csrf_of out.html) &&
	test "$(status -b jar --data "id=$(cat rid)&csrf=$t" "${OPS}revalidate")" = 409 &&
	test_grep "nothing to revalidate" out.html
'

test_expect_success 'a result that failed its check goes back too, and is judged by the check again' '
	nid=$(wu_col N id) &&
	status -b jar "${OPS}wu?id=$nid" >/dev/null && t=$(csrf_of out.html) &&
	test "$(status -b jar --data "id=$nid&csrf=$t" "${OPS}revalidate")" = 200 &&
	test "$(verdict N_0)" = "0	1	0" &&
	in_project validator $CHECK --credit 7 --one_pass 2>val.log &&
	test "$(verdict N_0)" = "2	6	0" && test "$(why N_0)" = 2
'

test_expect_success 'Chromium: the host page and the errors page' '
	ops admin login "$ADMIN_AUTHENTICATOR" "host?id=1" >login.out &&
	test_grep "^h1: Host 1$" login.out &&
	ops admin shot "host?id=1" ops-20-host-reliability "table#host_versions tr" >h.out &&
	test_grep "^table#host_versions tr: 3$" h.out &&
	ops admin shot errors ops-21-errors-why "table#by_why tr" >e.out &&
	test_grep "^table#by_why tr: 3$" e.out &&
	ls web/ops-20-host-reliability.png web/ops-21-errors-why.png
'

test_done
