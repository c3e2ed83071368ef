#!/bin/sh
test_description='the submit RPCs of lib/submit_api.py in upstream request forms -- query_batch, query_job, abort_batch, estimate_batch -- and get_output.php / get_output2.php (one file, a job or a batch as a zip): real content, another user refused, malformed requests answered in upstream error form'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-host-upload.sh"

test_sandbox_up sb --no-daemons || exit 1
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"
OTHER=otherauth0123456789
CGI="$WSEQ_BUILDDIR/submit/submit"
LOG="$PROJECT_DIR/log/submit.log"

req() {
	printf '%s\n' "$1" >req.xml
}
# rpc: POST req.xml urlencoded as the field "request", as lib/submit_api.py does
rpc() {
	curl -sS --data-urlencode "request@req.xml" "${URL}submit_rpc_handler.php"
}
# the value of the first <TAG> of stdin
val() {
	sed -n "s|.*<$1>\([^<]*\)</$1>.*|\1|p" | head -1
}
md5s() { printf %s "$1" | md5sum | cut -c1-32; }
# fetch URL_TAIL OUT: GET, the body in OUT; prints the HTTP status and content type
fetch() {
	curl -sS -o "$2" -D "$2.h" -w '%{http_code} %{content_type}\n' "$URL$1"
}
# direct SCRIPT QUERY: the CGI program run as the web server does, under the
# sanitizers (the body in out, stderr in err); fails on a sanitizer report
direct() {
	REQUEST_METHOD=GET QUERY_STRING="$2" SCRIPT_NAME="/$1" REMOTE_ADDR=127.0.0.1 \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$CGI" </dev/null >out 2>err
	! grep -q "Sanitizer\|runtime error" err || { cat err >&2; return 1; }
}

# upload NAME FILE: through the project's file_upload_handler
upload() {
	host_upload_req "$1" 100000 "$2" >up.req &&
	curl -sS --data-binary @up.req -H 'Content-Type: application/octet-stream' \
		"$(wseq_config --project "$PROJECT_DIR" upload_url)" >up.reply &&
	grep -q "<status>0</status>" up.reply || { cat up.reply >&2; return 1; }
}
# the output file names of result $1, in order
outnames() {
	test_sql_value "select xml_doc_in from result where name=\"$1\"" |
		grep -o "<name>[^<]*</name>" | sed "s|<name>\(.*\)</name>|\1|"
}
rid() { test_sql_value "select id from result where name=\"$1\""; }
wid() { test_sql_value "select id from workunit where name=\"$1\""; }
# done RESULT CPU: the instance reported and validated, its job's canonical one
done_job() {
	test_sql "$WSEQ_DB_NAME" -e "update result set server_state=5, outcome=1, validate_state=1,
			exit_status=0, cpu_time=$2, received_time=unix_timestamp() where name=\"$1\";
		update workunit w join result r on r.workunitid=w.id set w.canonical_resultid=r.id
			where r.name=\"$1\""
}

job() {      # job NAME [FPOPS]
	printf "<job><name>%s</name>" "$1"
	[ -n "${2-}" ] && printf "<rsc_fpops_est>%s</rsc_fpops_est>" "$2"
	printf "<input_file><mode>local_staged</mode><source>%s</source></input_file></job>\n" "$md1.txt"
}
submit() {   # submit BATCH JOB...
	b=$1; shift
	{ printf "<submit_batch><authenticator>%s</authenticator><batch><batch_name>%s</batch_name><app_name>wseq_sample</app_name>" "$AUTH" "$b"
	  for j in "$@"; do job "$j"; done
	  printf "</batch></submit_batch>\n"; } >req.xml &&
	rpc | val batch_id
}

test_expect_success 'setup: sample app, two submitters, a job file, a result template with two outputs' '
	test_setup_sample_app &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all)
			select id, 1 from user where authenticator=\"$AUTH\"" &&
	test_user other "$OTHER" submit &&
	printf "input one\n" >in1 && md1=$(md5sum <in1 | cut -c1-32) && echo "$md1" >md1 &&
	req "<upload_files><authenticator>$AUTH</authenticator><phys_name>$md1.txt</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@in1" "${URL}job_file.php" | grep "<success/>" &&
	sed -e "s|<OUTFILE_0/>|<OUTFILE_1/>|g" -e "s|<open_name>out</open_name>|<open_name>log.txt</open_name>|" \
		"$PROJECT_DIR/templates/wseq_sample_out" >second &&
	{ sed -e "/<\/output_template>/d" -e "/<result>/,/<\/result>/d" "$PROJECT_DIR/templates/wseq_sample_out"
	  sed -n "/<file_info>/,/<\/file_info>/p" second
	  echo "<result>"
	  sed -n "/<file_ref>/,/<\/file_ref>/p" "$PROJECT_DIR/templates/wseq_sample_out" second
	  echo "</result>"; echo "</output_template>"; } >"$PROJECT_DIR/templates/two_out" &&
	test "$(grep -c "<open_name>" "$PROJECT_DIR/templates/two_out")" = 2
'
md1=$(cat md1 2>/dev/null)

est() {      # est JOBS [BATCH_EXTRA]: estimate_batch of the sample app
	printf "<estimate_batch><authenticator>%s</authenticator><batch><app_name>wseq_sample</app_name>%s%s</batch></estimate_batch>\n" \
		"$AUTH" "${2-}" "$1" >req.xml && rpc
}

test_expect_success 'estimate_batch: total FLOPs (job, job_params, input template) over the FLOPS of hosts with credit seen in the last day' '
	jobs="$(job e1 2e9)$(job e2 2e9)$(job e3 2e9)$(job e4)" &&
	est "$jobs" >out && grep "<estimate_batch>" out &&
	grep "<seconds>7.000000</seconds>" out &&
	test_sql "$WSEQ_DB_NAME" -e "insert into host (userid, create_time, rpc_time, p_fpops, p_ncpus, total_credit)
		values (1, 1, unix_timestamp() - 3600, 1e9, 4, 10), (1, 1, unix_timestamp() - 10 * 86400, 1e12, 64, 10)" &&
	est "$jobs" | grep "<seconds>1.750000</seconds>" &&
	est "$jobs" "<job_params><rsc_fpops_est>3e9</rsc_fpops_est></job_params>" |
		grep "<seconds>2.250000</seconds>" &&
	test "$(test_sql_value "select count(*) from workunit")" = 0
'

test_expect_success 'estimate_batch: a host claiming 1e30 FLOPS moves nothing without a track record, and counts as one median host with one' '
	jobs="$(job e1 2e9)$(job e2 2e9)$(job e3 2e9)$(job e4)" &&
	test_sql "$WSEQ_DB_NAME" -e "insert into host (userid, create_time, rpc_time, p_fpops, p_ncpus, total_credit)
		values (1, 1, unix_timestamp() - 60, 1e9, 4, 3)" &&
	est "$jobs" | grep "<seconds>0.875000</seconds>" &&
	test_sql "$WSEQ_DB_NAME" -e "insert into host (userid, create_time, rpc_time, p_fpops, p_ncpus)
		values (1, 1, unix_timestamp() - 60, 1e30, 100000)" &&
	est "$jobs" | grep "<seconds>0.875000</seconds>" &&
	test_sql "$WSEQ_DB_NAME" -e "update host set total_credit=1 where p_fpops=1e30" &&
	est "$jobs" | grep "<seconds>0.583333</seconds>" &&
	test_sql "$WSEQ_DB_NAME" -e "delete from host where p_fpops=1e30 or total_credit=3"
'

test_expect_success 'estimate_batch refuses a missing batch, an unknown app, a bad number, a user without submit rights' '
	req "<estimate_batch><authenticator>$AUTH</authenticator></estimate_batch>" &&
	rpc | grep "<error_msg>no batch in the request</error_msg>" &&
	req "<estimate_batch><authenticator>$AUTH</authenticator><batch><app_name>nosuch</app_name>$(job e1 1e9)</batch></estimate_batch>" &&
	rpc | grep "<error_msg>no app named nosuch</error_msg>" &&
	est "$(job e1 lots)" >out && grep "<error_num>-1</error_num>" out &&
	grep "<error_msg>rsc_fpops_est: " out &&
	test_sql "$WSEQ_DB_NAME" -e "delete from user_submit where user_id=(select id from user where name=\"other\")" &&
	req "<estimate_batch><authenticator>$OTHER</authenticator><batch><app_name>wseq_sample</app_name>$(job e1 1e9)</batch></estimate_batch>" &&
	rpc | grep "<error_msg>no submit access</error_msg>" &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) select id, 1 from user where name=\"other\""
'

test_expect_success 'jobs run: batch qa (a1 done, a2 in progress, a3 unsent), batch qm (m1 done, two outputs), outputs uploaded by the upload handler' '
	qa=$(submit qa a1 a2 a3) && test -n "$qa" && echo "$qa" >qa &&
	qm=$(submit qm m1) && test -n "$qm" && echo "$qm" >qm &&
	test_sql "$WSEQ_DB_NAME" -e "update workunit set result_template_file=\"templates/two_out\" where name=\"m1\"" &&
	test_project bin/transitioner --one_pass >/dev/null 2>&1 &&
	for r in a1_0 a2_0 m1_0; do
		test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons send $r || return 1
	done &&
	head -c 3000 /dev/urandom >a1.out &&
	head -c 70000 /dev/urandom >m1.out && printf "log of m1\n" >m1.log &&
	outnames a1_0 >a1.names && test_line_count = 1 a1.names &&
	outnames m1_0 >m1.names && test_line_count = 2 m1.names &&
	upload "$(cat a1.names)" a1.out &&
	upload "$(sed -n 1p m1.names)" m1.out && upload "$(sed -n 2p m1.names)" m1.log &&
	done_job a1_0 10.5 && done_job m1_0 2
'
qa=$(cat qa 2>/dev/null) qm=$(cat qm 2>/dev/null)

qb() {       # qb BATCH_ELEMENT [FLAGS]
	req "<query_batch><authenticator>${AUTHQ:-$AUTH}</authenticator>$1${2-}</query_batch>" && rpc
}

test_expect_success 'query_batch: the batch parameters and its jobs in order, with their canonical instances' '
	qb "<batch_id>$qa</batch_id>" "<get_cpu_time>0</get_cpu_time><get_job_details>0</get_job_details>" >out &&
	grep "<query_batch>" out && ! grep "<error>" out &&
	grep "<id>$qa</id>" out && grep "<njobs>3</njobs>" out && grep "<state>1</state>" out &&
	grep "<fraction_done>0.333333</fraction_done>" out && grep "<nerror_jobs>0</nerror_jobs>" out &&
	grep "<name>qa</name>" out && grep "<app_name>wseq_sample</app_name>" out &&
	! grep "<total_cpu_time>" out && ! grep "<status>" out &&
	sed -n "/<job>/,/<\/job>/p" out | tr -d " \n" >jobs &&
	printf "<job><id>%s</id><name>a1</name><canonical_instance_id>%s</canonical_instance_id></job><job><id>%s</id><name>a2</name><canonical_instance_id>0</canonical_instance_id></job><job><id>%s</id><name>a3</name><canonical_instance_id>0</canonical_instance_id></job>" \
		"$(wid a1)" "$(rid a1_0)" "$(wid a2)" "$(wid a3)" >expect &&
	test_cmp expect jobs
'

test_expect_success 'query_batch by name with get_cpu_time and get_job_details: CPU time, each job status' '
	qb "<batch_name>qa</batch_name>" "<get_cpu_time>1</get_cpu_time><get_job_details>1</get_job_details>" >out &&
	grep "<total_cpu_time>10.500000</total_cpu_time>" out &&
	sed -n "/<job>/,/<\/job>/p" out | tr -d " \n" >jobs &&
	grep "<name>a1</name><canonical_instance_id>$(rid a1_0)</canonical_instance_id><cpu_time>10.500000</cpu_time><status>done</status>" jobs &&
	grep "<name>a2</name><canonical_instance_id>0</canonical_instance_id><status>in_progress</status>" jobs &&
	grep "<name>a3</name><canonical_instance_id>0</canonical_instance_id><status>queued</status>" jobs
'

test_expect_success 'query_job: each instance with its state, and the sizes of the output files on the server' '
	req "<query_job><authenticator>$AUTH</authenticator><job_id>$(wid a1)</job_id></query_job>" &&
	rpc >out && tr -d "\n" <out | sed "s/>  */>/g" >flat &&
	grep "<instance><name>a1_0</name><id>$(rid a1_0)</id><state>Completed and validated</state><outfile><size>3000</size></outfile></instance>" flat &&
	req "<query_job><authenticator>$AUTH</authenticator><job_id>$(wid m1)</job_id></query_job>" &&
	rpc | tr -d "\n" | sed "s/>  */>/g" | grep "<outfile><size>70000</size></outfile><outfile><size>10</size></outfile></instance>" &&
	req "<query_job><authenticator>$AUTH</authenticator><job_id>$(wid a2)</job_id></query_job>" &&
	rpc >out && grep "<state>In progress</state>" out && ! grep "<outfile>" out
'

test_expect_success 'get_output2.php: one file as RESULT__LOGICAL, byte for byte; a job of one file the same' '
	fetch "get_output2.php?cmd=file&result_id=$(rid a1_0)&file_num=0&auth=$AUTH" got >st &&
	grep "^200 application/octet-stream" st && cmp got a1.out &&
	grep -i "content-disposition: attachment; filename=\"a1_0__out\"" got.h &&
	fetch "get_output2.php?cmd=file&result_id=$(rid m1_0)&file_num=1&auth=$AUTH" got >st && cmp got m1.log &&
	fetch "get_output2.php?cmd=workunit&wu_id=$(wid a1)&auth=$AUTH" got >st && cmp got a1.out &&
	fetch "get_output2.php?cmd=result&result_id=$(rid a1_0)&auth=$AUTH" got >st && cmp got a1.out
'

test_expect_success 'get_output2.php: a job of two files, and a batch, as zips that unpack to exactly their files' '
	fetch "get_output2.php?cmd=result&result_id=$(rid m1_0)&auth=$AUTH" m1.zip >st &&
	grep "^200 application/zip" st && grep -i "filename=\"m1_0.zip\"" m1.zip.h &&
	unzip -tq m1.zip && rm -rf u && mkdir u && (cd u && unzip -q ../m1.zip) &&
	(cd u && find . -type f | sort) >list && printf "./m1_0/log.txt\n./m1_0/out\n" >expect && test_cmp expect list &&
	cmp u/m1_0/out m1.out && cmp u/m1_0/log.txt m1.log &&
	fetch "get_output2.php?cmd=workunit&wu_id=$(wid m1)&auth=$AUTH" m1w.zip >st && unzip -tq m1w.zip &&
	fetch "get_output2.php?cmd=batch&batch_id=$qm&auth=$AUTH" qm.zip >st &&
	grep -i "filename=\"batch_$qm.zip\"" qm.zip.h &&
	rm -rf u && mkdir u && (cd u && unzip -q ../qm.zip) &&
	(cd u && find . -type f | sort) >list && printf "./m1_0/log.txt\n./m1_0/out\n" >expect && test_cmp expect list &&
	cmp u/m1_0/out m1.out && cmp u/m1_0/log.txt m1.log &&
	fetch "get_output2.php?cmd=batch&batch_id=$qa&auth=$AUTH" qa.zip >st &&
	rm -rf u && mkdir u && (cd u && unzip -q ../qa.zip) &&
	(cd u && find . -type f | sort) >list && echo ./a1_0__out >expect && test_cmp expect list &&
	cmp u/a1_0__out a1.out
'

test_expect_success 'get_output.php as lib/submit_api.py builds it: result_file and batch_files with md5(authenticator + name or id)' '
	fetch "get_output.php?cmd=result_file&result_name=m1_0&file_num=0&auth_str=$(md5s "${AUTH}m1_0")" got >st &&
	grep "^200 " st && cmp got m1.out &&
	fetch "get_output.php?cmd=batch_files&batch_id=$qm&auth_str=$(md5s "$AUTH$qm")" flat.zip >st &&
	rm -rf u && mkdir u && (cd u && unzip -q ../flat.zip) &&
	(cd u && find . -type f | sort) >list && sed "s|^|./|" m1.names | sort >expect && test_cmp expect list &&
	cmp "u/$(sed -n 1p m1.names)" m1.out &&
	fetch "get_output.php?cmd=workunit_files&wu_id=$(wid a1)&auth_str=$(md5s "$AUTH$(wid a1)")" w.zip >st &&
	rm -rf u && mkdir u && (cd u && unzip -q ../w.zip) && cmp "u/$(cat a1.names)" a1.out &&
	fetch "get_output.php?cmd=workunit_file&wu_name=a1&file_num=0&auth_str=$AUTH" got >st && cmp got a1.out
'

test_expect_success 'another user: every RPC on the batch and its jobs is refused in upstream form, nothing changes' '
	before=$(test_sql_value "select group_concat(concat(id, error_mask, canonical_resultid)) from workunit") &&
	rbefore=$(test_sql_value "select group_concat(concat(id, server_state, outcome)) from result") &&
	AUTHQ=$OTHER qb "<batch_id>$qa</batch_id>" >out &&
	grep "<query_batch>" out && grep "<error_num>-1</error_num>" out &&
	grep "<error_msg>not owner of batch</error_msg>" out && ! grep "<job>" out &&
	AUTHQ=$OTHER qb "<batch_name>qa</batch_name>" | grep "<error_msg>not owner of batch</error_msg>" &&
	req "<query_job><authenticator>$OTHER</authenticator><job_id>$(wid a1)</job_id></query_job>" &&
	rpc >out && grep "<error_msg>not owner</error_msg>" out && ! grep "<instance>" out &&
	req "<abort_batch><authenticator>$OTHER</authenticator><batch_id>$qa</batch_id></abort_batch>" &&
	rpc | grep "<error_msg>not owner of batch</error_msg>" &&
	req "<abort_batch><authenticator>$OTHER</authenticator><batch_name>qa</batch_name></abort_batch>" &&
	rpc | grep "<error_msg>not owner of batch</error_msg>" &&
	test "$(test_sql_value "select state from batch where id=$qa")" = 1 &&
	test "$(test_sql_value "select group_concat(concat(id, error_mask, canonical_resultid)) from workunit")" = "$before" &&
	test "$(test_sql_value "select group_concat(concat(id, server_state, outcome)) from result")" = "$rbefore" &&
	grep "query_batch: not owner of batch" "$LOG" && grep "abort_batch: not owner of batch" "$LOG"
'

test_expect_success 'another user: get_output.php and get_output2.php refuse the files (403), with nothing of them in the body' '
	for q in "get_output2.php?cmd=file&result_id=$(rid a1_0)&file_num=0&auth=$OTHER" \
		 "get_output2.php?cmd=result&result_id=$(rid m1_0)&auth=$OTHER" \
		 "get_output2.php?cmd=workunit&wu_id=$(wid a1)&auth=$OTHER" \
		 "get_output2.php?cmd=batch&batch_id=$qa&auth=$OTHER" \
		 "get_output.php?cmd=result_file&result_name=a1_0&file_num=0&auth_str=$(md5s "${OTHER}a1_0")" \
		 "get_output.php?cmd=batch_files&batch_id=$qa&auth_str=$(md5s "$OTHER$qa")" \
		 "get_output.php?cmd=batch_files&batch_id=$qa&auth_str=$AUTH" \
		 "get_output.php?cmd=workunit_files&wu_id=$(wid a1)&auth_str=$(md5s "$OTHER$(wid a1)")" \
		 "get_output.php?cmd=workunit_file&wu_name=a1&file_num=0&auth_str=$OTHER"; do
		fetch "$q" got >st && grep "^403 text/plain" st && grep "^ERROR: " got &&
		! cmp -s got a1.out && test "$(wc -c <got)" -lt 200 || { echo "not refused: $q"; cat st got; return 1; }
	done &&
	grep "get_output: bad authenticator for batch $qa" "$LOG" &&
	! grep -r "$OTHER" "$PROJECT_DIR/log/"
'

test_expect_success 'malformed or odd requests: a clear error in upstream form, logged, never a database error' '
	qb "" | grep "<error_msg>batch not specified</error_msg>" &&
	qb "<batch_id>abc</batch_id>" | grep "<error_msg>batch_id: " &&
	qb "<batch_id>-5</batch_id>" | grep "<error_msg>batch_id: " &&
	qb "<batch_id>99999999</batch_id>" | grep "<error_msg>no such batch</error_msg>" &&
	qb "<batch_id>$qa</batch_id>" "<get_job_details>yes</get_job_details>" | grep "<error_msg>get_job_details: " &&
	req "<query_job><authenticator>$AUTH</authenticator></query_job>" &&
	rpc | grep "<error_msg>job not specified</error_msg>" &&
	req "<query_job><authenticator>$AUTH</authenticator><job_id>1.5</job_id></query_job>" &&
	rpc | grep "<error_msg>job_id: " &&
	req "<query_job><authenticator>$AUTH</authenticator><job_id>99999999</job_id></query_job>" &&
	rpc | grep "<error_msg>no such job</error_msg>" &&
	req "<abort_batch><authenticator>$AUTH</authenticator><batch_name>zz</batch_name></abort_batch>" &&
	rpc | grep "<error_msg>no batch named zz</error_msg>" &&
	req "<abort_batch><authenticator>wrong</authenticator><batch_id>$qa</batch_id></abort_batch>" &&
	rpc | grep "<error_msg>bad authenticator</error_msg>" &&
	req "<query_batch><authenticator>$AUTH</authenticator><batch_id>$qa</query_batch>" &&
	rpc | grep "<error_msg>cannot parse the request</error_msg>" &&
	test "$(test_sql_value "select state from batch where id=$qa")" = 1 &&
	grep "query_job: no such job" "$LOG" &&
	! grep -i "database error\|unavailable" "$LOG"
'

test_expect_success 'get_output2.php: a missing or odd argument is a 4xx text error, under the sanitizers too' '
	for q in "cmd=nosuch" "" "cmd=file&result_id=x&file_num=0&auth=$AUTH" \
		 "cmd=file&result_id=$(rid a1_0)&auth=$AUTH" "cmd=result&result_id=$(rid a1_0)" \
		 "cmd=file&result_id=$(rid a1_0)&file_num=7&auth=$AUTH" "cmd=result&result_id=99999999&auth=$AUTH" \
		 "cmd=batch&batch_id=-1&auth=$AUTH" "cmd=batch_files&batch_name=nosuch&auth_str=x" \
		 "cmd=result_file&result_name=a2_0&file_num=0&auth_str=$(md5s "${AUTH}a2_0")"; do
		fetch "get_output2.php?$q" got >st && grep "^4[0-9][0-9] text/plain" st &&
		grep "^ERROR: " got || { echo "not an error: $q"; cat st got; return 1; }
		direct get_output2.php "$q" && grep "^Status: 4" out || return 1
	done &&
	fetch "get_output2.php?cmd=result_file&result_name=a2_0&file_num=0&auth_str=$(md5s "${AUTH}a2_0")" got >st &&
	grep "output file missing" got &&
	direct get_output2.php "cmd=batch&batch_id=$qm&auth=$AUTH" && grep "^Content-Type: application/zip" out &&
	! grep -i "database error" "$LOG"
'

test_expect_success 'abort_batch by its owner: the unfinished jobs cancelled through the one cancel mechanism, the done one kept' '
	req "<abort_batch><authenticator>$AUTH</authenticator><batch_id>$qa</batch_id></abort_batch>" &&
	rpc >out && grep "<abort_batch>" out && grep "<success>1</success>" out &&
	test "$(test_sql_value "select state from batch where id=$qa")" = 3 &&
	test "$(test_sql_value "select error_mask & 16 from workunit where name=\"a3\"")" = 16 &&
	test "$(test_sql_value "select error_mask & 16 from workunit where name=\"a2\"")" = 16 &&
	test "$(test_sql_value "select concat(error_mask, \" \", canonical_resultid) from workunit where name=\"a1\"")" = "0 $(rid a1_0)" &&
	test "$(test_sql_value "select count(*) from result r join workunit w on w.id=r.workunitid where w.batch=$qa and r.server_state=2")" = 0 &&
	qb "<batch_id>$qa</batch_id>" "<get_job_details>1</get_job_details>" | tr -d " \n" >jobs &&
	grep "<name>a3</name><canonical_instance_id>0</canonical_instance_id><error>cancelled</error><status>error</status>" jobs &&
	grep "<state>3</state>" jobs &&
	req "<abort_batch><authenticator>$AUTH</authenticator><batch_name>qa</batch_name></abort_batch>" &&
	rpc | grep "<success>1</success>" &&
	fetch "get_output2.php?cmd=file&result_id=$(rid a1_0)&file_num=0&auth=$AUTH" got >st && cmp got a1.out
'

test_done
