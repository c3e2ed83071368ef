#!/bin/sh
test_description='BOINC remote job submission RPCs through Apache: ping, templates, batches, job files, submit, status, output, abort, lease, retire, and their errors'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
SB="$TRASH_DIRECTORY/sb"
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"

# rpc SCRIPT FILE: POST FILE as the form field "request" (multipart, as boinc_gahp does)
rpc() {
	curl -sS -F "request=<$2" "$URL$1"
}
# the same urlencoded, as BOINC's Python client does
rpc_urlenc() {
	curl -sS --data-urlencode "request@$2" "$URL$1"
}
req() {
	printf '%s\n' "$1" >req.xml
}

test_expect_success 'setup: the sample app; the admin may submit, user 2 has an account only' '
	test_setup_sample_app &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	test_user other otherauth0123456789 &&
	printf "input one\n" >in1 && printf "input two\n" >in2 &&
	md1=$(md5sum <in1 | cut -c1-32) && md2=$(md5sum <in2 | cut -c1-32) &&
	echo "$md1 $md2" >mds
'
read md1 md2 <mds 2>/dev/null

test_expect_success 'get_templates answers no account without a right to submit to the app' '
	req "<get_templates><authenticator>otherauth0123456789</authenticator><app_name>wseq_sample</app_name></get_templates>" &&
	rpc submit_rpc_handler.php req.xml >out &&
	grep "<error_msg>no submit access</error_msg>" out && ! grep "<templates>" out &&
	test_sql "$WSEQ_DB_NAME" -e "insert into app (name, user_friendly_name) values (\"other_app\", \"other\");
		insert into user_submit (user_id) select id from user where name=\"other\";
		insert into user_submit_app (user_id, app_id) select u.id, a.id from user u, app a
			where u.name=\"other\" and a.name=\"other_app\"" &&
	rpc submit_rpc_handler.php req.xml >out &&
	grep "<error_msg>no submit access</error_msg>" out && ! grep "<templates>" out &&
	test_sql "$WSEQ_DB_NAME" -e "delete from user_submit_app; delete from user_submit where user_id=(select id from user where name=\"other\"); delete from app where name=\"other_app\""
'

test_expect_success 'ping answers success, multipart and urlencoded, <ping/> too' '
	req "<ping> </ping>" && rpc submit_rpc_handler.php req.xml >out &&
	grep "<ping>" out && grep "<success>1</success>" out &&
	rpc_urlenc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	req "<ping/>" && rpc submit_rpc_handler.php req.xml | grep "<success>1</success>"
'

test_expect_success 'an unparsable request, or none, gets a bare error element' '
	req "<ping><oops></ping>" && rpc submit_rpc_handler.php req.xml >out &&
	grep "<error_msg>cannot parse the request</error_msg>" out && ! grep "<ping>" out &&
	curl -sS -F "other=1" "${URL}submit_rpc_handler.php" | grep "<error_msg>no request</error_msg>" &&
	grep "unparsable request" "$PROJECT_DIR/log/submit.log"
'

test_expect_success 'an unknown command is an error inside its root' '
	req "<frobnicate><authenticator>$AUTH</authenticator></frobnicate>" &&
	rpc submit_rpc_handler.php req.xml >out &&
	grep "<frobnicate>" out && grep "<error_msg>bad command</error_msg>" out
'

test_expect_success 'get_templates gives the app templates; a wrong authenticator or app is refused' '
	req "<get_templates><authenticator>$AUTH</authenticator><app_name>wseq_sample</app_name></get_templates>" &&
	rpc submit_rpc_handler.php req.xml >out &&
	grep "<templates>" out && grep "<input_template>" out && grep "<output_template>" out &&
	req "<get_templates><authenticator>nope</authenticator><app_name>wseq_sample</app_name></get_templates>" &&
	rpc submit_rpc_handler.php req.xml >out &&
	grep "<get_templates>" out && grep "<error_num>-1</error_num>" out &&
	grep "<error_msg>bad authenticator</error_msg>" out &&
	! grep -r "$AUTH" "$PROJECT_DIR/log/" &&
	req "<get_templates><authenticator>$AUTH</authenticator><app_name>nosuch</app_name></get_templates>" &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>no app named nosuch</error_msg>"
'

test_expect_success 'create_batch makes a batch in INIT; while it is empty, the same request gives it again' '
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>b1</batch_name><app_name>wseq_sample</app_name><expire_time>0</expire_time></create_batch>" &&
	rpc submit_rpc_handler.php req.xml >out &&
	sed -n "s|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p" out >b1 && test -s b1 &&
	test "$(test_sql_value "select concat(state, name) from batch where id=$(cat b1)")" = "0b1" &&
	rpc submit_rpc_handler.php req.xml | grep "<batch_id>$(cat b1)</batch_id>" &&
	test "$(test_sql_value "select count(*) from batch where name=\"b1\"")" = 1
'

test_expect_success 'a user without submit rights is refused' '
	req "<create_batch><authenticator>otherauth0123456789</authenticator><batch_name>bx</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>no submit access</error_msg>" &&
	test "$(test_sql_value "select count(*) from batch where name=\"bx\"")" = 0
'

files_req() {
	req "<$1><authenticator>$AUTH</authenticator><batch_id>$(cat b1)</batch_id><delete_time>$2</delete_time><phys_name>$md1.txt</phys_name><phys_name>$md2.txt</phys_name></$1>"
}

test_expect_success 'query_files lists the absent files; upload_files stores them by name' '
	files_req query_files 1000 && rpc job_file.php req.xml >out &&
	grep "<file>0</file>" out && grep "<file>1</file>" out &&
	files_req upload_files 1000 &&
	curl -sS -F "request=<req.xml" -F "file_0=@in1" -F "file_1=@in2" "${URL}job_file.php" >out &&
	grep "<success/>" out &&
	p=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download $md1.txt) && cmp "$p" in1 &&
	grep "^$md1 10" "$p.md5" &&
	files_req query_files 2000 && rpc job_file.php req.xml >out &&
	grep "<absent_files>" out && ! grep "<file>" out &&
	test "$(test_sql_value "select count(*) from job_file j join batch_file_assoc a on a.job_file_id=j.id where a.batch_id=$(cat b1) and j.delete_time=2000")" = 2
'

test_expect_success 'upload_files refuses a wrong count, a content that does not match its MD5 name, an escaping name' '
	files_req upload_files 0 &&
	curl -sS -F "request=<req.xml" -F "file_0=@in1" "${URL}job_file.php" |
		grep "<error_msg># of uploaded files (1) does not agree with the request (2)</error_msg>" &&
	req "<upload_files><authenticator>$AUTH</authenticator><phys_name>0123456789abcdef0123456789abcdef.txt</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@in1" "${URL}job_file.php" |
		grep "<error_msg>content of 0123456789abcdef0123456789abcdef.txt does not match its name (truncated upload?)</error_msg>" &&
	req "<upload_files><authenticator>$AUTH</authenticator><phys_name>../escape</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@in1" "${URL}job_file.php" | grep "<error_msg>bad filename ../escape: a file.*s name is a job file.*s (&lt;md5&gt;\[.ext\] or jf_&lt;md5&gt;\[.ext\]) or one of your own" &&
	! test -e "$PROJECT_DIR/escape" && ! test -e "$PROJECT_DIR/download/escape"
'

test_expect_success 'a truncated multipart body is refused in the protocol form and logged' '
	files_req upload_files 0 &&
	curl -sS -F "request=<req.xml" -F "file_0=@in1" -F "file_1=@in2" --trace-ascii /dev/null \
		-o /dev/null "${URL}job_file.php" &&
	printf -- "--XyZ\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n<ping/>\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file_0\"; filename=\"a\"\r\n\r\npartial" >trunc &&
	curl -sS -H "Content-Type: multipart/form-data; boundary=XyZ" --data-binary @trunc "${URL}job_file.php" >out &&
	grep "<error_msg>truncated or malformed multipart body</error_msg>" out &&
	grep "bad request: truncated" "$PROJECT_DIR/log/submit.log"
'

job() {      # job NAME FILE...
	n=$1; shift
	printf "<job><name>%s</name><command_line>--steps 3 </command_line>" "$n"
	for f in "$@"; do printf "<input_file><mode>local_staged</mode><source>%s</source></input_file>" "$f"; done
	printf "</job>\n"
}

test_expect_success 'submit_batch makes every job in one go, in the batch, IN_PROGRESS' '
	{ printf "<submit_batch><authenticator>%s</authenticator><batch><batch_id>%s</batch_id><app_name>wseq_sample</app_name><app_version_num>0</app_version_num>" "$AUTH" "$(cat b1)"
	  printf "<job_params><rsc_fpops_est>2e9</rsc_fpops_est><delay_bound>777</delay_bound></job_params>"
	  job j1 $md1.txt; job j2 $md2.txt; job j3 $md1.txt
	  printf "</batch></submit_batch>\n"; } >req.xml &&
	rpc submit_rpc_handler.php req.xml >out &&
	grep "<batch_id>$(cat b1)</batch_id>" out &&
	test "$(test_sql_value "select concat(state, \" \", njobs) from batch where id=$(cat b1)")" = "1 3" &&
	test "$(test_sql_value "select count(*) from workunit where batch=$(cat b1) and delay_bound=777 and rsc_fpops_est=2e9")" = 3 &&
	test_sql_value "select xml_doc from workunit where name=\"j2\"" | grep "$md2.txt" &&
	test_sql_value "select xml_doc from workunit where name=\"j2\"" | grep -- "--steps 3"
'

test_expect_success 'a bad job spoils the whole batch: nothing is created' '
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>b2</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	rpc submit_rpc_handler.php req.xml | sed -n "s|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p" >b2 &&
	{ printf "<submit_batch><authenticator>%s</authenticator><batch><batch_id>%s</batch_id><app_name>wseq_sample</app_name>" "$AUTH" "$(cat b2)"
	  job k1 $md1.txt; job k2 $md1.txt $md2.txt; printf "</batch></submit_batch>\n"; } >req.xml &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>wrong # of input files for job 1: need 1, got 2</error_msg>" &&
	{ printf "<submit_batch><authenticator>%s</authenticator><batch><batch_id>%s</batch_id><app_name>wseq_sample</app_name>" "$AUTH" "$(cat b2)"
	  job k1 $md1.txt; job j1 $md1.txt; printf "</batch></submit_batch>\n"; } >req.xml &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>cannot create job j1" &&
	{ printf "<submit_batch><authenticator>%s</authenticator><batch><batch_id>%s</batch_id><app_name>wseq_sample</app_name>" "$AUTH" "$(cat b2)"
	  job k1 ffffffffffffffffffffffffffffffff.txt; printf "</batch></submit_batch>\n"; } >req.xml &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>input file ffffffffffffffffffffffffffffffff.txt is not on the server</error_msg>" &&
	test "$(test_sql_value "select count(*) from workunit where name like \"k%\"")" = 0 &&
	test "$(test_sql_value "select state from batch where id=$(cat b2)")" = 0
'

qb() {
	req "<query_batch2><authenticator>$AUTH</authenticator><min_mod_time>$1</min_mod_time><batch_name>b1</batch_name>$2</query_batch2>"
	rpc submit_rpc_handler.php req.xml
}

test_expect_success 'query_batch2: every job with its status, the server time, changes since a time' '
	qb 0 >out &&
	grep "<batch_size>3</batch_size>" out &&
	test "$(grep -c "<status>UNSENT</status>" out)" = 3 &&
	test_project bin/transitioner --one_pass >/dev/null 2>&1 &&
	sleep 1.1 && qb 0 >out &&
	t=$(sed -n "s|.*<server_time>\([0-9.]*\)</server_time>.*|\1|p" out) && test -n "$t" &&
	sleep 1.1 &&
	qb "$t" | grep "<batch_size>0</batch_size>" &&
	test_sql "$WSEQ_DB_NAME" -e "update result set server_state=4, sent_time=unix_timestamp() where name=\"j2_0\"" &&
	qb "$t" >out && grep "<job><job_name>j2</job_name><status>IN_PROGRESS</status></job>" out &&
	grep "<batch_size>1</batch_size>" out &&
	qb 0 "<batch_name>nosuch</batch_name>" | grep "<error_msg>no batch named nosuch</error_msg>"
'

test_expect_success 'query_completed_job and get_output give the canonical result and its file' '
	printf "output of j1 \001\002 binary" >o1 &&
	test_sql "$WSEQ_DB_NAME" -e "update result set server_state=5, outcome=1, exit_status=0, elapsed_time=12.5, cpu_time=10.25,
			stderr_out=\"<stderr_txt>a & b < c</stderr_txt>\" where name=\"j1_0\";
		update workunit set canonical_resultid=(select id from result where name=\"j1_0\") where name=\"j1\"" &&
	out1=$(test_sql_value "select xml_doc_in from result where name=\"j1_0\"" | sed -n "s|.*<name>\([^<]*\)</name>.*|\1|p" | head -1) &&
	p=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path upload "$out1") && cp o1 "$p" && chmod 644 "$p" &&
	req "<query_completed_job><authenticator>$AUTH</authenticator><job_name>j1</job_name></query_completed_job>" &&
	rpc submit_rpc_handler.php req.xml >out &&
	grep "<canonical_resultid>" out && grep "<exit_status>0</exit_status>" out &&
	grep "<elapsed_time>12.5" out && grep "<cpu_time>10.25" out &&
	grep "<!\[CDATA\[&lt;stderr_txt&gt;a &amp; b &lt; c" out &&
	curl -sS -f -o got "${URL}get_output.php?cmd=workunit_file&auth_str=$AUTH&wu_name=j1&file_num=0" &&
	cmp got o1 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "${URL}get_output.php?cmd=workunit_file&auth_str=wrong&wu_name=j1&file_num=0")" = 403 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "${URL}get_output.php?cmd=workunit_file&auth_str=$AUTH&wu_name=j1&file_num=5")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "${URL}get_output.php?cmd=workunit_file&auth_str=$AUTH&wu_name=j3&file_num=0")" = 404 &&
	qb 0 | grep "<job><job_name>j1</job_name><status>DONE</status></job>"
'

test_expect_success 'abort_jobs cancels a job; another user may not' '
	req "<abort_jobs><authenticator>otherauth0123456789</authenticator><job_name>j3</job_name></abort_jobs>" &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>not owner of j3</error_msg>" &&
	req "<abort_jobs><authenticator>$AUTH</authenticator><job_name>j3</job_name></abort_jobs>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test "$(test_sql_value "select error_mask & 16 from workunit where name=\"j3\"")" = 16 &&
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid where w.name=\"j3\" and r.server_state=2")" = 0 &&
	qb 0 | grep "<job><job_name>j3</job_name><status>ERROR</status></job>"
'

test_expect_success 'query_batches lists the user batches with their progress' '
	req "<query_batches><authenticator>$AUTH</authenticator></query_batches>" &&
	rpc submit_rpc_handler.php req.xml >out &&
	test "$(grep -c "<batch>" out)" = 2 &&
	sed -n "/<name>b1<\/name>/,/<\/batch>/p;/<id>$(cat b1)<\/id>/,/<\/batch>/p" out >b1.out &&
	grep "<njobs>3</njobs>" b1.out && grep "<nerror_jobs>1</nerror_jobs>" b1.out &&
	grep "<fraction_done>0.666667</fraction_done>" b1.out && grep "<app_name>wseq_sample</app_name>" b1.out &&
	req "<query_batches><authenticator>otherauth0123456789</authenticator></query_batches>" &&
	rpc submit_rpc_handler.php req.xml >out && ! grep "<batch>" out && grep "<query_batches>" out
'

test_expect_success 'set_expire_time sets the lease of the batch and of its files' '
	req "<set_expire_time><authenticator>$AUTH</authenticator><batch_name>b1</batch_name><expire_time>99999</expire_time></set_expire_time>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test "$(test_sql_value "select expire_time from batch where name=\"b1\"")" = 99999 &&
	test "$(test_sql_value "select min(delete_time) from job_file where name in (\"$md1.txt\", \"$md2.txt\")")" = 99999
'

test_expect_success 'retire_batch retires it; an unknown batch is an error' '
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_name>b1</batch_name></retire_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test "$(test_sql_value "select state from batch where name=\"b1\"")" = 4 &&
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_name>zz</batch_name></retire_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>no batch named zz</error_msg>"
'

new_batch() {
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>$1</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	rpc submit_rpc_handler.php req.xml | sed -n "s|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p"
}

test_expect_success 'a job file shared by two batches survives the retirement of one, and goes after both' '
	printf "shared input\n" >in3 && md3=$(md5sum <in3 | cut -c1-32) &&
	b3=$(new_batch b3) && b4=$(new_batch b4) && test -n "$b3" && test -n "$b4" &&
	req "<upload_files><authenticator>$AUTH</authenticator><batch_id>$b3</batch_id><delete_time>1</delete_time><phys_name>$md3</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@in3" "${URL}job_file.php" | grep "<success/>" &&
	req "<query_files><authenticator>$AUTH</authenticator><batch_id>$b4</batch_id><delete_time>1</delete_time><phys_name>$md3</phys_name></query_files>" &&
	rpc job_file.php req.xml >out && ! grep "<file>" out &&
	p=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download $md3) && test -f "$p" &&
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_id>$b3</batch_id></retire_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test_project bin/file_deleter --one_pass 2>fd.log &&
	test -f "$p" && test "$(test_sql_value "select count(*) from job_file where name=\"$md3\"")" = 1 &&
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_id>$b4</batch_id></retire_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test_project bin/file_deleter --one_pass 2>>fd.log &&
	! test -e "$p" && ! test -e "$p.md5" &&
	test "$(test_sql_value "select count(*) from job_file where name=\"$md3\"")" = 0
'

test_expect_success 'a job file whose lease has not passed stays, even with no batch' '
	printf "leased\n" >in4 && md4=$(md5sum <in4 | cut -c1-32) &&
	req "<upload_files><authenticator>$AUTH</authenticator><delete_time>$(( $(date +%s) + 3600 ))</delete_time><phys_name>$md4</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@in4" "${URL}job_file.php" | grep "<success/>" &&
	test_project bin/file_deleter --one_pass 2>>fd.log &&
	p=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download $md4) && test -f "$p"
'

test_expect_success 'a batch a failed submit left empty in INIT is made again by its owner (same id, its old file ties dropped), nobody else' '
	printf "left input\n" >in5 && md5=$(md5sum <in5 | cut -c1-32) &&
	b=$(new_batch left) && test -n "$b" &&
	req "<upload_files><authenticator>$AUTH</authenticator><batch_id>$b</batch_id><phys_name>$md5</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@in5" "${URL}job_file.php" | grep "<success/>" &&
	test "$(test_sql_value "select count(*) from batch_file_assoc where batch_id=$b")" = 1 &&
	test "$(new_batch left)" = "$b" &&
	test "$(test_sql_value "select count(*) from batch_file_assoc where batch_id=$b")" = 0 &&
	test "$(test_sql_value "select count(*) from batch where name=\"left\"")" = 1 &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) select id, 1 from user where name=\"other\"" &&
	req "<create_batch><authenticator>otherauth0123456789</authenticator><batch_name>left</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>batch name left is already in use</error_msg>" &&
	test_sql "$WSEQ_DB_NAME" -e "delete from user_submit where user_id=(select id from user where name=\"other\")" &&
	{ printf "<submit_batch><authenticator>%s</authenticator><batch><batch_name>left</batch_name><app_name>wseq_sample</app_name>" "$AUTH"
	  job left1 $md1.txt; printf "</batch></submit_batch>\n"; } >req.xml &&
	rpc submit_rpc_handler.php req.xml | grep "<batch_id>$b</batch_id>" &&
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>left</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>batch name left is already in use</error_msg>" &&
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>sweep:abc</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<error_msg>batch names beginning with &apos;sweep:&apos; are the parameter sweep&apos;s</error_msg>"
'

test_expect_success 'retiring a batch that never had a job discards it; an INIT batch past its expire time holds no file' '
	printf "gone input\n" >in6 && md6=$(md5sum <in6 | cut -c1-32) &&
	b=$(new_batch empty1) && test -n "$b" &&
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_id>$b</batch_id></retire_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test "$(test_sql_value "select count(*) from batch where id=$b")" = 0 &&
	req "<query_batches><authenticator>$AUTH</authenticator></query_batches>" &&
	! rpc submit_rpc_handler.php req.xml | grep "<name>empty1</name>" &&
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>expired</batch_name><app_name>wseq_sample</app_name><expire_time>$(( $(date +%s) - 10 ))</expire_time></create_batch>" &&
	b=$(rpc submit_rpc_handler.php req.xml | sed -n "s|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p") && test -n "$b" &&
	req "<upload_files><authenticator>$AUTH</authenticator><batch_id>$b</batch_id><phys_name>$md6</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@in6" "${URL}job_file.php" | grep "<success/>" &&
	p=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download $md6) && test -f "$p" &&
	test_project bin/file_deleter --one_pass 2>>fd.log &&
	! test -e "$p"
'

test_expect_success 'app_version_num pins the jobs to that version: the scheduler sends them only with it' '
	v=$(test_sql_value "select version_num from app_version limit 1") &&
	for pin in "$v" 999; do
		req "<create_batch><authenticator>$AUTH</authenticator><batch_name>pin$pin</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
		b=$(rpc submit_rpc_handler.php req.xml | sed -n "s|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p") &&
		{ printf "<submit_batch><authenticator>%s</authenticator><batch><batch_id>%s</batch_id><app_name>wseq_sample</app_name><app_version_num>%s</app_version_num>" "$AUTH" "$b" "$pin"
		  printf "<job_params><rsc_fpops_est>1e9</rsc_fpops_est></job_params>"
		  job pinned$pin $md1.txt; printf "</batch></submit_batch>\n"; } >req.xml &&
		rpc submit_rpc_handler.php req.xml | grep "<batch_id>$b</batch_id>" &&
		test "$(test_sql_value "select app_version_num from workunit where name=\"pinned$pin\"")" = "$pin" || return 1
	done &&
	test_sql "$WSEQ_DB_NAME" -e "update result set server_state=5, outcome=5 where server_state=2" &&
	test_project bin/transitioner --one_pass 2>/dev/null &&
	. "$WSEQ_SRCDIR/test/t/lib-sched.sh" &&
	sched_request 0 >sreq && sched_rpc sreq sreply &&
	grep "<wu_name>pinned$v</wu_name>" sreply &&
	! grep "pinned999" sreply
'

test_expect_success 'with the database stopped: a clear error in the protocol form, logged' '
	pid=$(cat "$SB/mysql/mariadbd.pid") && kill "$pid" &&
	test_wait_for 60 sh -c "! kill -0 $pid 2>/dev/null" &&
	req "<ping> </ping>" && rpc submit_rpc_handler.php req.xml >out &&
	grep "<ping>" out && grep "<error_msg>the project database is unavailable; try again later</error_msg>" out &&
	req "<query_batch2><authenticator>$AUTH</authenticator><min_mod_time>0</min_mod_time><batch_name>b1</batch_name></query_batch2>" &&
	rpc submit_rpc_handler.php req.xml | grep "database is unavailable" &&
	wseq_sandbox up --no-daemons "$SB" 2>/dev/null &&
	req "<ping> </ping>" && rpc submit_rpc_handler.php req.xml | grep "<success>1</success>"
'

test_done
