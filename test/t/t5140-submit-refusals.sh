#!/bin/sh
test_description='every refusal of the remote submission RPCs, run as the CGI program directly (as the web server does) under the sanitizers: the error in the protocol form, nothing changed, and no leak or undefined behaviour reported'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
AUTH="$ADMIN_AUTHENTICATOR"
OTHER=otherauth0123456789
NOBODY=nobodyauth0123456789
CGI="$WSEQ_BUILDDIR/submit/submit"
. "$WSEQ_SRCDIR/test/t/lib-submit-cgi.sh"

test_expect_success 'setup: the sample app; the admin and "other" may submit, "nobody" may not; a batch of the admin with a job' '
	test_setup_sample_app &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	test_user other "$OTHER" submit && test_user nobody "$NOBODY" &&
	printf "input one\n" >in1 && md1=$(md5sum <in1 | cut -c1-32) && echo "$md1" >md1 &&
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>mine</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	cgi && grep "<batch_id>" out &&
	req "<upload_files><authenticator>$AUTH</authenticator><batch_id>$(batch_id mine)</batch_id><phys_name>$md1.txt</phys_name></upload_files>" &&
	cgi job_file.php in1 && grep "<success/>" out &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_id>$(batch_id mine)</batch_id><app_name>wseq_sample</app_name><job><name>myjob</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && grep "<batch_id>" out &&
	snapshot >before
'
md1=$(cat md1 2>/dev/null)

if nm "$CGI" 2>/dev/null | grep -q __asan_init; then
	test_expect_success 'the CGI is built with the sanitizers, and a request it answers reports nothing' '
		req "<ping/>" && cgi && grep "<success>1</success>" out && ! test -s err
	'
else
	test_skip 'the CGI is built with the sanitizers' \
		'configure --enable-sanitizers: without them the tests below cannot see a leak'
fi

test_expect_success 'no authenticator, a wrong one, no submit access' '
	req "<get_templates><app_name>wseq_sample</app_name></get_templates>" && cgi && refused "no authenticator" &&
	req "<query_batches><authenticator>wrong</authenticator></query_batches>" && cgi && refused "bad authenticator" &&
	req "<create_batch><authenticator>$NOBODY</authenticator><batch_name>n1</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	cgi && refused "no submit access" &&
	req "<query_files><authenticator>$NOBODY</authenticator><phys_name>$md1.txt</phys_name></query_files>" &&
	cgi job_file.php && refused "no file access"
'

test_expect_success 'another submitter may not query, abort, retire, renew, submit into or read the output of a batch or job' '
	req "<query_batch2><authenticator>$OTHER</authenticator><min_mod_time>0</min_mod_time><batch_name>mine</batch_name></query_batch2>" &&
	cgi && refused "not owner of mine" &&
	req "<abort_jobs><authenticator>$OTHER</authenticator><job_name>myjob</job_name></abort_jobs>" &&
	cgi && refused "not owner of myjob" &&
	req "<retire_batch><authenticator>$OTHER</authenticator><batch_name>mine</batch_name></retire_batch>" &&
	cgi && refused "not owner of batch" &&
	req "<retire_batch><authenticator>$OTHER</authenticator><batch_id>$(batch_id mine)</batch_id></retire_batch>" &&
	cgi && refused "not owner of batch" &&
	req "<set_expire_time><authenticator>$OTHER</authenticator><batch_name>mine</batch_name><expire_time>99</expire_time></set_expire_time>" &&
	cgi && refused "not owner of batch" &&
	req "<query_completed_job><authenticator>$OTHER</authenticator><job_name>myjob</job_name></query_completed_job>" &&
	cgi && refused "not owner of myjob" &&
	req "<get_templates><authenticator>$OTHER</authenticator><job_name>myjob</job_name></get_templates>" &&
	cgi && refused "not owner of myjob" &&
	req "<submit_batch><authenticator>$OTHER</authenticator><batch><batch_id>$(batch_id mine)</batch_id><app_name>wseq_sample</app_name><job><name>theirs</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "not owner of batch" &&
	req "<query_files><authenticator>$OTHER</authenticator><batch_id>$(batch_id mine)</batch_id><phys_name>$md1.txt</phys_name></query_files>" &&
	cgi job_file.php && refused "not owner of batch" &&
	req "<upload_files><authenticator>$OTHER</authenticator><batch_id>$(batch_id mine)</batch_id><phys_name>$md1.txt</phys_name></upload_files>" &&
	cgi job_file.php in1 && refused "not owner of batch" &&
	get "cmd=workunit_file&auth_str=$OTHER&wu_name=myjob&file_num=0" && grep "^Status: 403" out &&
	get "cmd=workunit_file&auth_str=wrong&wu_name=myjob&file_num=0" && grep "^Status: 403" out &&
	get "cmd=workunit_file&auth_str=$AUTH&wu_name=nosuch&file_num=0" && grep "^Status: 404" out &&
	snapshot >after && test_cmp before after
'

test_expect_success 'a batch name in use, a job name in use, an unknown app, an unknown batch' '
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>mine</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	cgi && refused "batch name mine is already in use" &&
	req "<create_batch><authenticator>$OTHER</authenticator><batch_name>mine</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	cgi && refused "batch name mine is already in use" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>mine</batch_name><app_name>wseq_sample</app_name><job><name>x1</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "batch name mine is already in use" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>fresh</batch_name><app_name>wseq_sample</app_name><job><name>myjob</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "cannot create job myjob" &&
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>n2</batch_name><app_name>nosuch</app_name></create_batch>" &&
	cgi && refused "no app named nosuch" &&
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_name>nosuch</batch_name></retire_batch>" &&
	cgi && refused "no batch named nosuch" &&
	req "<query_batch2><authenticator>$AUTH</authenticator><min_mod_time>0</min_mod_time><batch_name>nosuch</batch_name></query_batch2>" &&
	cgi && refused "no batch named nosuch" &&
	req "<abort_jobs><authenticator>$AUTH</authenticator><job_name>nosuch</job_name></abort_jobs>" &&
	cgi && refused "no job named nosuch" &&
	snapshot >after && test_cmp before after
'

test_expect_success 'bad files: a bad name, a content that does not match, a file not on the server, the wrong number of files' '
	req "<query_files><authenticator>$AUTH</authenticator><phys_name>../escape</phys_name></query_files>" &&
	cgi job_file.php && refused "bad filename" &&
	req "<upload_files><authenticator>$AUTH</authenticator><phys_name>0123456789abcdef0123456789abcdef.txt</phys_name></upload_files>" &&
	cgi job_file.php in1 && refused "content of 0123456789abcdef0123456789abcdef.txt does not match" &&
	req "<upload_files><authenticator>$AUTH</authenticator><phys_name>$md1.txt</phys_name><phys_name>$md1.txt</phys_name></upload_files>" &&
	cgi job_file.php in1 && refused "# of uploaded files (1) does not agree" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>fresh</batch_name><app_name>wseq_sample</app_name><job><name>x2</name><input_file><mode>local_staged</mode><source>ffffffffffffffffffffffffffffffff</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "input file ffffffffffffffffffffffffffffffff is not on the server" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>fresh</batch_name><app_name>wseq_sample</app_name><job><name>x3</name></job></batch></submit_batch>" &&
	cgi && refused "wrong # of input files for job 0" &&
	snapshot >after && test_cmp before after
'

test_expect_success 'submit_batch refusals: no batch, no jobs, an unknown mode, a remote file without its URL, a batch not in INIT, no lease, a missing template' '
	req "<submit_batch><authenticator>$AUTH</authenticator></submit_batch>" && cgi && refused "no &lt;batch&gt; in the request" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>fresh</batch_name><app_name>wseq_sample</app_name></batch></submit_batch>" &&
	cgi && refused "no jobs in the batch" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>fresh</batch_name><app_name>wseq_sample</app_name><job><input_file><mode>bogus</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "input file mode bogus is not one wseq knows (local_staged, sandbox, local, inline, remote, semilocal)" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>fresh</batch_name><app_name>wseq_sample</app_name><job><name>x4</name><input_file><mode>remote</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "input file mode remote: no &lt;url&gt;" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_id>$(batch_id mine)</batch_id><app_name>wseq_sample</app_name><job><name>x5</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "batch mine is not in the INIT state" &&
	req "<set_expire_time><authenticator>$AUTH</authenticator><batch_name>mine</batch_name></set_expire_time>" &&
	cgi && refused "no expire_time" &&
	req "<query_completed_job><authenticator>$AUTH</authenticator><job_name>nosuch</job_name></query_completed_job>" &&
	cgi && refused "no job named nosuch" &&
	mv "$PROJECT_DIR/templates/wseq_sample_out" tpl.save &&
	req "<get_templates><authenticator>$AUTH</authenticator><app_name>wseq_sample</app_name></get_templates>" &&
	cgi; rc=$?; mv tpl.save "$PROJECT_DIR/templates/wseq_sample_out" && test $rc = 0 &&
	refused "template file missing" &&
	snapshot >after && test_cmp before after
'

long=$(printf "%0300d" 0 | tr 0 n)

test_expect_success 'numbers out of range or not numbers (inf, nan, 1e999, -1, a fraction) are refused naming the field' '
	for v in inf nan 1e999 -1 abc; do
		req "<create_batch><authenticator>$AUTH</authenticator><batch_name>n$v</batch_name><app_name>wseq_sample</app_name><expire_time>$v</expire_time></create_batch>" &&
		cgi && refused "expire_time: " || return 1
		req "<set_expire_time><authenticator>$AUTH</authenticator><batch_name>mine</batch_name><expire_time>$v</expire_time></set_expire_time>" &&
		cgi && refused "expire_time: " || return 1
		req "<query_files><authenticator>$AUTH</authenticator><delete_time>$v</delete_time><phys_name>$md1.txt</phys_name></query_files>" &&
		cgi job_file.php && refused "delete_time: " || return 1
		req "<query_batch2><authenticator>$AUTH</authenticator><min_mod_time>$v</min_mod_time><batch_name>mine</batch_name></query_batch2>" &&
		cgi && refused "min_mod_time: " || return 1
	done &&
	for v in inf nan 1e999 -1 2.5 abc; do
		req "<query_files><authenticator>$AUTH</authenticator><batch_id>$v</batch_id><phys_name>$md1.txt</phys_name></query_files>" &&
		cgi job_file.php && refused "batch_id: " || return 1
		req "<retire_batch><authenticator>$AUTH</authenticator><batch_id>$v</batch_id></retire_batch>" &&
		cgi && refused "batch_id: " || return 1
		req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>nums</batch_name><app_name>wseq_sample</app_name><app_version_num>$v</app_version_num><job><name>n1</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
		cgi && refused "app_version_num: " || return 1
	done &&
	for f in rsc_fpops_est rsc_fpops_bound rsc_memory_bound rsc_disk_bound delay_bound; do
		for v in inf nan 1e999 -1; do
			req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>nums</batch_name><app_name>wseq_sample</app_name><job_params><$f>$v</$f></job_params><job><name>n1</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
			cgi && refused "$f: " || return 1
			req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>nums</batch_name><app_name>wseq_sample</app_name><job><name>n1</name><$f>$v</$f><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
			cgi && refused "$f: " || return 1
		done
	done &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>nums</batch_name><app_name>wseq_sample</app_name><app_version_num>0</app_version_num><job_params><rsc_fpops_est>0.000000</rsc_fpops_est><delay_bound>0</delay_bound></job_params><job><name>n1</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && grep "<batch_id>" out &&
	test "$(test_sql_value "select count(*) from workunit where name=\"n1\"")" = 1 &&
	for v in 1e999 -1 x; do
		get "cmd=workunit_file&auth_str=$AUTH&wu_name=myjob&file_num=$v" &&
		grep "^Status: 400" out && grep "file_num: " out || return 1
	done
'

test_expect_success 'names longer than their column, or that cannot name a job, are refused naming the field, never cut' '
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>$long</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	cgi && refused "batch_name: longer than 254 characters" &&
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>b</batch_name><app_name>$long</app_name></create_batch>" &&
	cgi && refused "app_name: longer than 254 characters" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>$long</batch_name><app_name>wseq_sample</app_name><job><name>n2</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "batch_name: longer than 254 characters" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>names</batch_name><app_name>wseq_sample</app_name><job><name>$long</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "name: longer than 254 characters" &&
	n201=$(printf "%0201d" 0) &&
	for n in "$n201" ../x .hidden -x "a/b"; do
		req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>names</batch_name><app_name>wseq_sample</app_name><job><name>$n</name><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
		cgi && refused "name: .* (job 0) is not a job name: a file name of at most 200 bytes" || return 1
	done &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>names</batch_name><app_name>wseq_sample</app_name><job><name>n3</name><command_line>$(printf "%09000d" 0)</command_line><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "command_line: longer than 8192 characters" &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>names</batch_name><app_name>wseq_sample</app_name><job><name>n3</name><command_line>a&#9;b</command_line><input_file><mode>local_staged</mode><source>$md1.txt</source></input_file></job></batch></submit_batch>" &&
	cgi && refused "command_line: byte 0x09 at offset 1 is not allowed here" &&
	req "<abort_jobs><authenticator>$AUTH</authenticator><job_name>$long</job_name></abort_jobs>" &&
	cgi && refused "job_name: longer than 254 characters" &&
	req "<query_completed_job><authenticator>$AUTH</authenticator><job_name>$long</job_name></query_completed_job>" &&
	cgi && refused "job_name: longer than 254 characters" &&
	req "<query_batch2><authenticator>$AUTH</authenticator><min_mod_time>0</min_mod_time><batch_name>$long</batch_name></query_batch2>" &&
	cgi && refused "batch_name: longer than 254 characters" &&
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_name>$long</batch_name></retire_batch>" &&
	cgi && refused "batch_name: longer than 254 characters" &&
	get "cmd=workunit_file&auth_str=$AUTH&wu_name=$long&file_num=0" &&
	grep "^Status: 400" out && grep "wu_name: longer than 254 characters" out &&
	test "$(test_sql_value "select count(*) from batch where name in (\"names\", \"b\") or length(name) > 254")" = 0 &&
	test "$(test_sql_value "select count(*) from workunit where name like \"n3%\" or length(name) > 200")" = 0
'

test_expect_success 'requests that cannot be read: no request, unparsable, an unknown command, a truncated body' '
	req "<ping><oops></ping>" && cgi && grep "<error_msg>cannot parse the request</error_msg>" out &&
	req "<frobnicate/>" && cgi && refused "bad command" &&
	req "<Bad-Command/>" && cgi && refused "bad command" &&
	printf -- "--XbOuNdArY\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n<ping/>" >body &&
	REQUEST_METHOD=POST CONTENT_TYPE="multipart/form-data; boundary=XbOuNdArY" \
	CONTENT_LENGTH=$(wc -c <body) SCRIPT_NAME=/submit_rpc_handler.php "$CGI" <body >out 2>err &&
	clean_run && refused "truncated or malformed multipart body" &&
	REQUEST_METHOD=POST CONTENT_TYPE="multipart/form-data; boundary=XbOuNdArY" \
	CONTENT_LENGTH=1000 SCRIPT_NAME=/submit_rpc_handler.php "$CGI" <body >out 2>err &&
	clean_run && refused "request body cut short"
'

test_done
