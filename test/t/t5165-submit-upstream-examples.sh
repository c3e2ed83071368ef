#!/bin/sh
test_description='upstream example flows (tools/boinc_submit_test.py, tools/submit_api_test.py) replayed through the submit RPCs: unnamed jobs, two quick batches without names, batch states and counts as upstream reports them, uploads kept without a batch; another submitter refused

The requests are built exactly as upstream lib/boinc_submit.py (batch_desc_xml,
job_desc_xml, file_desc_xml, query_batch_xml, query_batches_xml,
query_files_xml, upload_files_xml, batch_op_xml) and lib/submit_api.py build
them: the same elements, in the same order, with the same newlines, and
POSTed the same way (the request urlencoded as the field "request";
upload_files as multipart with file_0...).'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"
OTHER=otherauth0123456789
LOG="$PROJECT_DIR/log/submit.log"

# post [HANDLER]: req.xml urlencoded as "request", as BOINC_SERVER.do_http_post does
post() {
	curl -sS --data-urlencode "request@req.xml" "${URL}${1:-submit_rpc_handler.php}"
}
val() {
	sed -n "s|.*<$1>\([^<]*\)</$1>.*|\1|p" | head -1
}

# boinc_submit.py's file_desc_xml (not remote): FILE_DESC(source, mode)
file_desc() {
	printf '<input_file>\n<mode>%s</mode>\n<source>%s</source>\n</input_file>\n' "$2" "$1"
}
# job_desc_xml: JOB_DESC(files) with name / rsc_fpops_est / command_line /
# input_template / priority given through NAME, FPOPS, CMD, TPL, PRIO (unset:
# None, not sent); $1: the files' xml
job_desc() {
	printf '<job>\n'
	[ -n "${NAME-}" ] && printf '<name>%s</name>\n' "$NAME"
	[ -n "${FPOPS-}" ] && printf '<rsc_fpops_est>%f</rsc_fpops_est>\n' "$FPOPS"
	[ -n "${CMD-}" ] && printf '<command_line>%s</command_line>\n' "$CMD"
	[ -n "${TPL-}" ] && printf '%s\n' "$TPL"
	[ -n "${PRIO-}" ] && printf '<priority>%d</priority>\n' "$PRIO"
	printf '%s</job>\n' "$1"
}
# batch_desc_xml(BATCH_DESC(app, jobs), OP): batch_id 0 and app_version_num 0 by
# default, as the class has them; BPRIO: the batch priority; $3: the jobs' xml
batch_desc() {
	printf '<%s>\n<authenticator>%s</authenticator>\n<batch>\n<app_name>%s</app_name>\n' "$1" "$AUTH" "$2"
	printf '<batch_id>%s</batch_id>\n' "${BID:-0}"
	printf '<app_version_num>%d</app_version_num>\n' 0
	[ -n "${BPRIO-}" ] && printf '<priority>%d</priority>\n' "$BPRIO"
	printf '%s</batch>\n</%s>\n' "$3" "$1"
}
query_batch() {      # query_batch_xml(ID, True, True)
	printf '<query_batch>\n<authenticator>%s</authenticator>\n<batch_id>%s</batch_id>\n<get_cpu_time>%d</get_cpu_time>\n<get_job_details>%d</get_job_details>\n</query_batch>\n' \
		"${AUTHQ:-$AUTH}" "$1" 1 1 >req.xml && post
}
query_batches() {    # query_batches_xml(True)
	printf '<query_batches>\n<authenticator>%s</authenticator>\n<get_cpu_time>%d</get_cpu_time>\n</query_batches>\n' \
		"${AUTHQ:-$AUTH}" 1 >req.xml && post
}
batch_op() {         # batch_op_xml(ID, OP)
	printf '<%s>\n<authenticator>%s</authenticator>\n<batch_id>%s</batch_id>\n</%s>\n' \
		"$2" "${AUTHQ:-$AUTH}" "$1" "$2" >req.xml && post
}
# upload_files(local_names, phys_names, batch_id=0, delete_time=0): query_files,
# then the absent ones as file_0...; $1 local, $2 phys (one file)
upload_files() {
	printf '<query_files>\n<authenticator>%s</authenticator>\n<batch_id>%d</batch_id>\n<delete_time>%d</delete_time>\n<phys_name>%s</phys_name>\n</query_files>\n' \
		"${AUTHQ:-$AUTH}" 0 0 "$2" >req.xml && post job_file.php >qf.out &&
	if grep -q "<file>0</file>" qf.out; then
		printf '<upload_files>\n<authenticator>%s</authenticator>\n<batch_id>%d</batch_id>\n<delete_time>%d</delete_time>\n<phys_name>%s</phys_name>\n</upload_files>\n' \
			"${AUTHQ:-$AUTH}" 0 0 "$2" >req.xml &&
		curl -sS -F "request=<req.xml" -F "file_0=@$1;filename=$2;type=application/octet-stream" "${URL}job_file.php"
	elif grep -q "<absent_files>" qf.out; then
		echo "<success/>"       # none absent: the client returns {success: None}
	else
		cat qf.out
	fi
}
wid() { test_sql_value "select id from workunit where name=\"$1\""; }
# done_wu NAME CPU: its first instance reported, validated, canonical
done_wu() {
	test_sql "$WSEQ_DB_NAME" -e "update result set server_state=5, outcome=1, validate_state=1,
			exit_status=0, cpu_time=$2, received_time=unix_timestamp() where name=\"$1_0\";
		update workunit w join result r on r.workunitid=w.id set w.canonical_resultid=r.id
			where r.name=\"$1_0\""
}

test_expect_success 'setup: sample app, two submitters, an input file uploaded without a batch, as submit_api.py does (no delete time)' '
	test_setup_sample_app &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all)
			select id, 1 from user where authenticator=\"$AUTH\"" &&
	test_user other "$OTHER" submit &&
	printf "input one\n" >in1 && md1=$(md5sum <in1 | cut -c1-32) && echo "$md1" >md1 &&
	upload_files in1 "$md1" >out && grep "<success" out
'
md1=$(cat md1 2>/dev/null)

test_expect_success 'an upload without a batch is kept a day at least: the file deleter leaves it, submit_batch later finds it' '
	t=$(test_sql_value "select delete_time - unix_timestamp() from job_file where name=\"$md1\"") &&
	test "${t%.*}" -ge 86000 && test "${t%.*}" -le 86400 &&
	{ test_project bin/file_deleter --one_pass 2>>fd.log || { cat fd.log; false; }; } &&
	test "$(test_sql_value "select count(*) from job_file where name=\"$md1\"")" = 1 &&
	AUTHQ=$OTHER upload_files in1 "$md1" >out && grep "<success" out &&
	t=$(test_sql_value "select delete_time - unix_timestamp() from job_file where name=\"$md1\"") &&
	test "${t%.*}" -ge 86000
'

test_expect_success 'boinc_submit_test.py: two quick submit_batch of an unnamed job, <batch_id>0</batch_id> and no batch name: both made, jobs named as create_work names them' '
	jobs=$(job_desc "$(file_desc "$md1" local_staged)") &&
	batch_desc submit_batch wseq_sample "$jobs" >req.xml && post >b1.out &&
	post >b2.out &&
	b1=$(val batch_id <b1.out) && b2=$(val batch_id <b2.out) &&
	test -n "$b1" && test -n "$b2" && test "$b1" != "$b2" || { cat b1.out b2.out; false; } &&
	echo "$b1" >b1 && echo "$b2" >b2 &&
	n1=$(test_sql_value "select name from batch where id=$b1") &&
	n2=$(test_sql_value "select name from batch where id=$b2") &&
	test "$n1" != "$n2" &&
	case "$n1" in *:wseq_sample:*) ;; *) false;; esac &&
	w=$(test_sql_value "select name from workunit where batch=$b1") &&
	expr "$w" : "wseq_sample_${b1}_[0-9]*\.[0-9]*_0\$" &&
	test "$(test_sql_value "select count(*) from workunit where batch in ($b1, $b2)")" = 2
'
b1=$(cat b1 2>/dev/null) b2=$(cat b2 2>/dev/null)

test_expect_success 'submit_api_test.py: a batch of two unnamed jobs with command lines: named _0 and _1' '
	jobs="$(CMD="-i 0" job_desc "$(file_desc "$md1" local_staged)")$(CMD="-i 1" job_desc "$(file_desc "$md1" local_staged)")" &&
	batch_desc submit_batch wseq_sample "$jobs" >req.xml &&
	post >out && b3=$(val batch_id <out) && test -n "$b3" && echo "$b3" >b3 &&
	test_sql_value "select name from workunit where batch=$b3 order by id" >names &&
	test_line_count = 2 names && grep "_0\$" names && grep "_1\$" names
'
b3=$(cat b3 2>/dev/null)

test_expect_success 'a batch whose jobs are all done: COMPLETE with its completion time once queried, in query_batch and query_batches alike' '
	test_project bin/transitioner --one_pass >/dev/null 2>&1 &&
	done_wu "$(test_sql_value "select name from workunit where batch=$b1")" 4.5 &&
	test "$(test_sql_value "select state from batch where id=$b1")" = 1 &&
	query_batch "$b1" >out && grep "<state>2</state>" out &&
	grep "<fraction_done>1.000000</fraction_done>" out && grep "<total_cpu_time>4.500000</total_cpu_time>" out &&
	c=$(val completion_time <out) && test "${c%.*}" -gt 0 &&
	test "$(test_sql_value "select state from batch where id=$b1")" = 2 &&
	test "$(test_sql_value "select completion_time from batch where id=$b1")" = "${c%.*}" &&
	query_batches >all && tr -d "\n" <all | sed "s|</batch>|</batch>\n|g" | grep "<id>$b1</id>" >one &&
	grep "<state>2</state>" one && grep "<completion_time>${c%.*}.000000</completion_time>" one &&
	grep "<fraction_done>1.000000</fraction_done>" one && grep "<total_cpu_time>4.500000</total_cpu_time>" one &&
	grep "<est_completion_time>" one && grep "<credit_estimate>" one
'

test_expect_success 'abort_batch: every unfinished job in error, nerror_jobs and fraction_done say so in both queries' '
	batch_op "$b3" abort_batch | grep "<success>1</success>" &&
	query_batch "$b3" >out && grep "<state>3</state>" out &&
	grep "<nerror_jobs>2</nerror_jobs>" out && grep "<fraction_done>1.000000</fraction_done>" out &&
	query_batches | tr -d "\n" | sed "s|</batch>|</batch>\n|g" | grep "<id>$b3</id>" >one &&
	grep "<nerror_jobs>2</nerror_jobs>" one && grep "<fraction_done>1.000000</fraction_done>" one
'

test_expect_success 'retire_batch: query_batch says fraction_done 1; query_batches no longer lists it (as upstream skips retired batches)' '
	batch_op "$b2" retire_batch | grep "<success>1</success>" &&
	query_batch "$b2" >out && grep "<state>4</state>" out &&
	grep "<fraction_done>1.000000</fraction_done>" out && grep "<nerror_jobs>1</nerror_jobs>" out &&
	query_batches >all && ! grep "<id>$b2</id>" all && grep "<id>$b1</id>" all && grep "<id>$b3</id>" all
'

# submit_api_test.py's per-job input template, as it writes it (credit i+1, rsc_fpops_est (i+1)*1e10)
tpl() {
	printf '\n<input_template>\n    <file_info>\n    </file_info>\n    <workunit>\n        <file_ref>\n            <open_name>in</open_name>\n        </file_ref>\n        <target_nresults>1</target_nresults>\n        <min_quorum>1</min_quorum>\n        <credit>%d</credit>\n        <rsc_fpops_est>%f</rsc_fpops_est>\n    </workunit>\n</input_template>\n' "$1" "$2"
}
sub() {      # sub JOBS: submit_batch of wseq_sample, the reply in out
	batch_desc submit_batch wseq_sample "$1" >req.xml && post >out
}
err() {      # err MESSAGE: out is a refusal in upstream form with MESSAGE
	grep "<error>" out && grep "<error_num>-1</error_num>" out && grep -F "<error_msg>$1" out ||
		{ cat out; false; }
}

test_expect_success 'ordinary names: upload_files stores the content as jf_<md5>, the name in the submitter'"'"'s own area; query_files finds it there' '
	printf "main two\n" >main_2.sh && m2=$(md5sum <main_2.sh | cut -c1-32) && echo "$m2" >m2 &&
	upload_files main_2.sh main_2.sh >out && grep "<success" out &&
	test "$(test_sql_value "select count(*) from job_file where name=\"jf_$m2\"")" = 1 &&
	test "$(test_sql_value "select count(*) from job_file where name=\"main_2.sh\"")" = 0 &&
	! test -e "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download main_2.sh)" &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test "$(cat "$PROJECT_DIR/sandbox/$uid/main_2.sh")" = "jf_$m2" &&
	upload_files main_2.sh main_2.sh >out && grep "<success/>" out &&
	grep "<absent_files>" qf.out && ! grep "<file>" qf.out
'
m2=$(cat m2 2>/dev/null)

test_expect_success 'another submitter: the same name is absent to them, their own upload of it is theirs and replaces nothing of the first' '
	printf "not main two\n" >theirs.sh &&
	AUTHQ=$OTHER upload_files theirs.sh main_2.sh >out && grep "<success" out && grep "<file>0</file>" qf.out &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test "$(cat "$PROJECT_DIR/sandbox/$uid/main_2.sh")" = "jf_$m2" &&
	p=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download "jf_$m2") && cmp "$p" main_2.sh
'

test_expect_success 'boinc_submit_test.py: FILE_DESC("main_2.sh", "sandbox"), an unnamed job: made from the submitter'"'"'s own file' '
	sub "$(job_desc "$(file_desc main_2.sh sandbox)")" && b=$(val batch_id <out) && test -n "$b" &&
	test_sql_value "select xml_doc from workunit where batch=$b" | grep "<name>jf_$m2</name>" &&
	test "$(test_sql_value "select count(*) from batch_file_assoc a join job_file j on j.id=a.job_file_id where a.batch_id=$b and j.name=\"jf_$m2\"")" = 1 &&
	sub "$(job_desc "$(file_desc main_2.sh local_staged)")" && b=$(val batch_id <out) && test -n "$b" &&
	test_sql_value "select xml_doc from workunit where batch=$b" | grep "<name>jf_$m2</name>"
'

test_expect_success 'local: a path into the submitter'"'"'s own area (or a bare name there); any other path refused' '
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	sub "$(job_desc "$(file_desc "$PROJECT_DIR/sandbox/$uid/main_2.sh" local)")" && b=$(val batch_id <out) && test -n "$b" &&
	test_sql_value "select xml_doc from workunit where batch=$b" | grep "<name>jf_$m2</name>" &&
	sub "$(job_desc "$(file_desc /etc/passwd local)")" && err "input file mode local: /etc/passwd is not in your own area" &&
	sub "$(job_desc "$(file_desc "$PROJECT_DIR/sandbox/$uid/../$uid/main_2.sh" local)")" && err "input file mode local: " &&
	sub "$(job_desc "$(file_desc nosuch.sh sandbox)")" && err "input file mode sandbox: nosuch.sh is not among your files" &&
	ouid=$(test_sql_value "select id from user where authenticator=\"$OTHER\"") &&
	AUTH=$OTHER sub "$(job_desc "$(file_desc "$PROJECT_DIR/sandbox/$uid/main_2.sh" local)")" && err "input file mode local: " &&
	AUTH=$OTHER sub "$(job_desc "$(file_desc main_2.sh sandbox)")" && b=$(val batch_id <out) && test -n "$b" &&
	test_sql_value "select xml_doc from workunit where batch=$b" | grep -v "jf_$m2" | grep -q "<name>jf_"
'

test_expect_success 'inline: the content becomes a job file jf_<md5> of the batch; more than 256 KiB refused' '
	sub "$(job_desc "$(file_desc "inline input" inline)")" && b=$(val batch_id <out) && test -n "$b" &&
	mi=$(printf "inline input" | md5sum | cut -c1-32) &&
	test_sql_value "select xml_doc from workunit where batch=$b" | grep "<name>jf_$mi</name>" &&
	p=$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download "jf_$mi") &&
	test "$(cat "$p")" = "inline input" &&
	test "$(test_sql_value "select count(*) from batch_file_assoc a join job_file j on j.id=a.job_file_id where a.batch_id=$b and j.name=\"jf_$mi\"")" = 1 &&
	big=$(head -c 270000 /dev/zero | tr "\0" a) &&
	sub "$(job_desc "$(file_desc "$big" inline)")" && err "input file mode inline: job 0" &&
	mb=$(printf "%s" "$big" | md5sum | cut -c1-32) &&
	! test -e "$(test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons path download "jf_$mb")"
'

# file_desc_xml of a remote FILE_DESC: url, nbytes (%f), md5
remote_desc() {
	printf '<input_file>\n<mode>remote</mode>\n<url>%s</url>\n<nbytes>%f</nbytes>\n<md5>%s</md5>\n</input_file>\n' "$1" "$2" "$3"
}

test_expect_success 'remote: a public URL with its size and MD5 goes to the hosts as is; loopback, private, link-local URLs refused (IPv6 too)' '
	sub "$(job_desc "$(remote_desc "http://192.0.43.10/data/in.dat" 12 "$m2")")" && b=$(val batch_id <out) && test -n "$b" || { cat out; false; } &&
	test_sql_value "select xml_doc from workunit where batch=$b" >doc &&
	grep "<url>http://192.0.43.10/data/in.dat</url>" doc && grep "<md5_cksum>$m2</md5_cksum>" doc && grep "<nbytes>12" doc &&
	for u in http://127.0.0.1/x http://localhost/x "http://[::1]/x" http://10.1.2.3/x http://172.16.0.1/x \
		 http://192.168.1.1/x http://169.254.169.254/latest/meta-data "http://[fe80::1]/x" "http://[fd00::1]/x" \
		 "http://[::ffff:127.0.0.1]/x" http://0.0.0.0/x http://100.64.0.1/x; do
		sub "$(job_desc "$(remote_desc "$u" 12 "$m2")")" &&
		err "input file mode remote: " && grep "non-public address: refused" out || return 1
	done &&
	sub "$(job_desc "$(remote_desc "file:///etc/passwd" 12 "$m2")")" && err "input file mode remote: file:///etc/passwd is not an http or https URL" &&
	sub "$(job_desc "$(remote_desc "http://192.0.43.10/x" 12 "NOTMD5")")" && err "input file mode remote: &lt;md5&gt; is not an MD5"
'

test_expect_success 'semilocal: the server never fetches from loopback or private addresses, by name or number' '
	for u in http://127.0.0.1:1/x http://localhost/x "http://[::1]/x" http://10.0.0.1/x http://169.254.169.254/x; do
		sub "$(job_desc "$(file_desc "$u" semilocal)")" &&
		err "input file mode semilocal: " && grep "non-public address: refused" out || return 1
	done &&
	sub "$(job_desc "$(file_desc "ftp://192.0.43.10/x" semilocal)")" && err "input file mode semilocal: ftp://192.0.43.10/x is not an http or https URL"
'

test_expect_success 'per-job input template (submit_api_test.py'"'"'s): refused below the app'"'"'s quorum; with an app of quorum 1, its quorum, results, estimate and credit taken' '
	sub "$(TPL=$(tpl 1 1e10) job_desc "$(file_desc main_2.sh sandbox)")" &&
	err "job 0: min_quorum 1 is below app wseq_sample" &&
	sed "s|<delay_bound>|<min_quorum>1</min_quorum><target_nresults>1</target_nresults><delay_bound>|" \
		"$PROJECT_DIR/templates/wseq_sample_in" >q1 && cp q1 "$PROJECT_DIR/templates/wseq_sample_in" &&
	sub "$(TPL=$(tpl 1 1e10) job_desc "$(file_desc main_2.sh sandbox)")$(TPL=$(tpl 2 2e10) job_desc "$(file_desc main_2.sh sandbox)")" &&
	b=$(val batch_id <out) && test -n "$b" || { cat out; false; } &&
	test_sql_value "select concat(min_quorum, \" \", target_nresults, \" \", rsc_fpops_est, \" \", canonical_credit) from workunit where batch=$b order by id" >got &&
	printf "1 1 10000000000 1\n1 1 20000000000 2\n" >expect && test_cmp expect got
'

test_expect_success 'per-job template: other files, other elements, an output template, too many results, an estimate over its bound: refused, each with the reason' '
	sub "$(TPL=$(tpl 1 1e10 | sed "s|<open_name>in</open_name>|<open_name>other</open_name>|") job_desc "$(file_desc main_2.sh sandbox)")" &&
	err "job 0&apos;s input_template: its files are not app wseq_sample&apos;s" &&
	sub "$(TPL=$(tpl 1 1e10 | sed "s|<credit>|<command_line>-x</command_line><credit>|") job_desc "$(file_desc main_2.sh sandbox)")" &&
	err "job 0&apos;s input_template: &lt;command_line&gt; is not taken from a job&apos;s template" &&
	sub "$(TPL=$(tpl 1 1e10 | sed "s|<credit>|<sticky_thing/><credit>|") job_desc "$(file_desc main_2.sh sandbox)")" &&
	err "job 0&apos;s input_template: &lt;sticky_thing&gt; is not taken" &&
	sub "$(TPL="$(tpl 1 1e10)<output_template><file_info/></output_template>" job_desc "$(file_desc main_2.sh sandbox)")" &&
	err "job 0: a job&apos;s own output_template is not taken" &&
	sub "$(TPL=$(tpl 1 1e10 | sed "s|<target_nresults>1|<target_nresults>50|") job_desc "$(file_desc main_2.sh sandbox)")" &&
	err "job 0: at most 20 results for a quorum" &&
	sub "$(TPL=$(tpl 1 1e13) job_desc "$(file_desc main_2.sh sandbox)")" &&
	err "job 0: rsc_fpops_est 1e+13 is above its rsc_fpops_bound 1e+12"
'

test_expect_success 'priorities: the batch'"'"'s on every job, a job'"'"'s own over it; allocation_priority refused with the reason' '
	BPRIO=5 sub "$(NAME=p1 job_desc "$(file_desc main_2.sh sandbox)")$(NAME=p2 PRIO=9 job_desc "$(file_desc main_2.sh sandbox)")" &&
	b=$(val batch_id <out) && test -n "$b" || { cat out; false; } &&
	test "$(test_sql_value "select priority from workunit where name=\"p1\"")" = 5 &&
	test "$(test_sql_value "select priority from workunit where name=\"p2\"")" = 9 &&
	test_project bin/transitioner --one_pass >/dev/null 2>&1 &&
	test "$(test_sql_value "select priority from result where name=\"p2_0\"")" = 9 &&
	batch_desc submit_batch wseq_sample "$(job_desc "$(file_desc main_2.sh sandbox)")" |
		sed "s|<app_version_num>0</app_version_num>|&\n<allocation_priority/>|" >req.xml && post >out &&
	err "allocation_priority: wseq keeps no per-submitter allocation"
'

test_expect_success 'another submitter: the batches are not theirs to query, abort or retire; query_batches lists none of them' '
	AUTHQ=$OTHER query_batch "$b1" | grep "<error_msg>not owner of batch</error_msg>" &&
	AUTHQ=$OTHER batch_op "$b1" abort_batch | grep "<error_msg>not owner of batch</error_msg>" &&
	AUTHQ=$OTHER batch_op "$b1" retire_batch | grep "<error_msg>not owner of batch</error_msg>" &&
	AUTHQ=$OTHER query_batches >out && grep "<query_batches>" out &&
	for b in $b1 $b2 $b3; do ! grep "<id>$b</id>" out || return 1; done &&
	test "$(test_sql_value "select state from batch where id=$b1")" = 2
'

test_done
