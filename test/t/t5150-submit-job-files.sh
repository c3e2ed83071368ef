#!/bin/sh
test_description='job files are content-addressed: a submitter cannot name, take over or have deleted a file of the project (an app version, an admin input), and the file deleter never removes a file an app version, a workunit or a live batch uses'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
URL="${PROJECT_URL%/}/"
AUTH="$ADMIN_AUTHENTICATOR"
TOOL="$WSEQ_BUILDDIR/test/wseq_test"

rpc() {
	curl -sS -F "request=<$2" "$URL$1"
}
req() {
	printf '%s\n' "$1" >req.xml
}
# upload NAME FILE [BATCH_ID]: upload_files of FILE under NAME
upload() {
	req "<upload_files><authenticator>$AUTH</authenticator>${3:+<batch_id>$3</batch_id>}<phys_name>$1</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@$2" "${URL}job_file.php"
}
new_batch() {
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>$1</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	rpc submit_rpc_handler.php req.xml | sed -n "s|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p"
}
# submit BATCH_ID JOB SOURCE: one job with one local_staged input
submit() {
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_id>$1</batch_id><app_name>wseq_sample</app_name><job><name>$2</name><input_file><mode>local_staged</mode><source>$3</source></input_file></job></batch></submit_batch>" &&
	rpc submit_rpc_handler.php req.xml
}
path() {
	test_project "$TOOL" daemons path download "$1"
}
md5() {
	md5sum <"$1" | cut -c1-32
}

test_expect_success 'setup: the sample app (its version file in the download hierarchy); the admin may submit' '
	test_setup_sample_app &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	exe=$(test_sql_value "select xml_doc from app_version limit 1" | sed -n "s|.*<name>\(wseq_sample_[^<]*\)</name>.*|\1|p" | head -1) &&
	test -n "$exe" && echo "$exe" >exe && test -f "$(path "$exe")" &&
	cmp "$(path "$exe")" "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
'
exe=$(cat exe 2>/dev/null)

test_expect_success 'an app version file cannot be named: its name is only ever one of the submitter'"'"'s own, absent to query_files, refused by submit_batch' '
	b=$(new_batch b1) && test -n "$b" &&
	req "<query_files><authenticator>$AUTH</authenticator><batch_id>$b</batch_id><phys_name>$exe</phys_name></query_files>" &&
	rpc job_file.php req.xml >out && grep "<file>0</file>" out &&
	submit "$b" j1 "$exe" >out &&
	grep "<error_msg>input file mode local_staged: $exe is not among your files" out &&
	test "$(test_sql_value "select count(*) from job_file")" = 0 &&
	test "$(test_sql_value "select count(*) from workunit")" = 0
'

test_expect_success '... so retiring the batch and the file deleter leave it, and the app runs on' '
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_name>b1</batch_name></retire_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test_project bin/file_deleter --one_pass 2>fd.log &&
	cmp "$(path "$exe")" "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample"
'

test_expect_success 'a name the project will need later cannot be taken: upload_files keeps it in the submitter'"'"'s own area, the content as jf_<md5>; create_work then works' '
	printf "the submitter'"'"'s\n" >mine.dat && printf "the admin'"'"'s\n" >later_input.dat &&
	upload later_input.dat mine.dat >out && grep "<success/>" out &&
	! test -e "$(path later_input.dat)" && cmp "$(path "jf_$(md5 mine.dat)")" mine.dat &&
	(cd "$PROJECT_DIR" && bin/create_work --appname wseq_sample --wu_name admin1 \
		"$TRASH_DIRECTORY/later_input.dat") &&
	cmp "$(path later_input.dat)" later_input.dat
'

test_expect_success 'a project file named like a job file is absent to query_files, refused by upload_files and submit_batch' '
	printf "an admin input\n" >adm && m=$(md5 adm) && cp adm "$m.dat" &&
	(cd "$PROJECT_DIR" && bin/create_work --appname wseq_sample --wu_name admin2 "$TRASH_DIRECTORY/$m.dat") &&
	test -f "$(path "$m.dat")" &&
	b=$(new_batch b2) && test -n "$b" &&
	req "<query_files><authenticator>$AUTH</authenticator><batch_id>$b</batch_id><phys_name>$m.dat</phys_name></query_files>" &&
	rpc job_file.php req.xml >out && grep "<file>0</file>" out &&
	upload "$m.dat" adm "$b" >out &&
	grep "<error_msg>$m.dat: the project has a file of that name that is not a job file</error_msg>" out &&
	submit "$b" j2 "$m.dat" >out &&
	grep "<error_msg>input file $m.dat is not a job file: the project has a file of that name</error_msg>" out &&
	test "$(test_sql_value "select count(*) from job_file where name=\"$m.dat\"")" = 0 &&
	test "$(test_sql_value "select count(*) from workunit where name=\"j2\"")" = 0
'

test_expect_success 'job files named <md5>, <md5>.ext and jf_<md5>[.ext] are stored and used; a mismatch is refused' '
	printf "one\n" >f1 && printf "two\n" >f2 && printf "three\n" >f3 &&
	m1=$(md5 f1) && m2=$(md5 f2) && m3=$(md5 f3) &&
	b=$(new_batch b3) && test -n "$b" &&
	upload "$m1" f1 "$b" | grep "<success/>" &&
	upload "$m2.in-put_2" f2 "$b" | grep "<success/>" &&
	upload "jf_$m3" f3 "$b" | grep "<success/>" &&
	upload "jf_$m1.txt" f1 "$b" | grep "<success/>" &&
	upload "jf_$m1.txt" f2 "$b" | grep "<error_msg>content of jf_$m1.txt does not match its name" &&
	req "<query_files><authenticator>$AUTH</authenticator><batch_id>$b</batch_id><phys_name>$m1</phys_name><phys_name>$m2.in-put_2</phys_name><phys_name>jf_$m3</phys_name><phys_name>jf_$m1.txt</phys_name></query_files>" &&
	rpc job_file.php req.xml >out && grep "<absent_files>" out && ! grep "<file>" out &&
	submit "$b" j3 "jf_$m3" | grep "<batch_id>$b</batch_id>" &&
	test_sql_value "select xml_doc from workunit where name=\"j3\"" | grep "<name>jf_$m3</name>"
'

test_expect_success 'names of a job file'"'"'s form that break its rules are refused, each with the reason; other names are the submitter'"'"'s own, their content a jf_<md5>' '
	m=$(md5 f1) && M=$(echo "$m" | tr a-f A-F) &&
	for n in "$m.a.b" "$m." "$m.$(printf "%065d" 0)" "jf_$m.x.y"; do
		upload "$n" f1 >out &&
		grep "<error_msg>bad filename $n: " out || return 1
	done &&
	for n in "$M" "${m}x" "jf_$M" "jf$m" "x$m" "$(echo "$m" | cut -c1-31)"; do
		upload "$n" f1 >out && grep "<success/>" out || return 1
	done &&
	cmp "$(path "jf_$m")" f1 &&
	upload "$m.$(printf "%064d" 0)" f1 | grep "<success/>"
'

test_expect_success 'a job file whose content on the server does not match its name is absent, and cannot be used' '
	printf "four\n" >f4 && m4=$(md5 f4) && b=$(new_batch b4) &&
	upload "$m4" f4 "$b" | grep "<success/>" &&
	p=$(path "$m4") && printf "tampered\n" >"$p" && rm -f "$p.md5" &&
	req "<query_files><authenticator>$AUTH</authenticator><batch_id>$b</batch_id><phys_name>$m4</phys_name></query_files>" &&
	rpc job_file.php req.xml | grep "<file>0</file>" &&
	submit "$b" j4 "$m4" | grep "<error_msg>input file $m4 on the server does not match its name</error_msg>"
'

test_expect_success 'another submitter'"'"'s job file is theirs: absent to query_files, refused by submit_batch, until uploaded (proof of holding it)' '
	OTHER=otherauth0123456789 &&
	test_user other "$OTHER" submit &&
	printf "the other submitter'"'"'s secret input\n" >secret && ms=$(md5 secret) &&
	req "<create_batch><authenticator>$OTHER</authenticator><batch_name>theirs</batch_name><app_name>wseq_sample</app_name></create_batch>" &&
	bo=$(rpc submit_rpc_handler.php req.xml | sed -n "s|.*<batch_id>\([0-9]*\)</batch_id>.*|\1|p") && test -n "$bo" &&
	req "<upload_files><authenticator>$OTHER</authenticator><batch_id>$bo</batch_id><phys_name>$ms</phys_name></upload_files>" &&
	curl -sS -F "request=<req.xml" -F "file_0=@secret" "${URL}job_file.php" | grep "<success/>" &&
	b=$(new_batch mine8) && test -n "$b" &&
	req "<query_files><authenticator>$AUTH</authenticator><batch_id>$b</batch_id><phys_name>$ms</phys_name></query_files>" &&
	rpc job_file.php req.xml | grep "<file>0</file>" &&
	submit "$b" j8 "$ms" | grep "<error_msg>input file $ms is not one of your job files: upload it with your batch first</error_msg>" &&
	test "$(test_sql_value "select count(*) from batch_file_assoc where batch_id=$b")" = 0 &&
	upload "$ms" secret "$b" | grep "<success/>" &&
	req "<query_files><authenticator>$AUTH</authenticator><batch_id>$b</batch_id><phys_name>$ms</phys_name></query_files>" &&
	rpc job_file.php req.xml >out && ! grep "<file>" out &&
	submit "$b" j8 "$ms" | grep "<batch_id>$b</batch_id>"
'

test_expect_success 'the file deleter: an app version file that somehow is a job file survives the retirement of its batch and the end of its lease' '
	b=$(new_batch b5) && test -n "$b" &&
	test_sql "$WSEQ_DB_NAME" -e "insert into job_file (name, create_time, delete_time) values (\"$exe\", 1, 1);
		insert into batch_file_assoc (job_file_id, batch_id) select id, $b from job_file where name=\"$exe\"" &&
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_id>$b</batch_id></retire_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test_project bin/file_deleter --one_pass 2>fd.log &&
	cmp "$(path "$exe")" "$WSEQ_BUILDDIR/stage/libexec/apps/wseq_sample" &&
	test "$(test_sql_value "select count(*) from job_file where name=\"$exe\"")" = 0 &&
	grep "job file $exe is a file of 1 app version(s): it stays" fd.log
'

test_expect_success 'the file deleter: a job file stays while a workunit of another batch uses it, and goes after' '
	printf "five\n" >f5 && m5=$(md5 f5) &&
	ba=$(new_batch b6) && bb=$(new_batch b7) &&
	upload "$m5" f5 "$ba" | grep "<success/>" &&
	submit "$bb" j7 "$m5" | grep "<batch_id>$bb</batch_id>" &&
	test_sql "$WSEQ_DB_NAME" -e "delete from batch_file_assoc where batch_id=$bb; update job_file set delete_time=1 where name=\"$m5\"" &&
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_id>$ba</batch_id></retire_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	test_project bin/file_deleter --one_pass 2>>fd.log &&
	test -f "$(path "$m5")" &&
	req "<retire_batch><authenticator>$AUTH</authenticator><batch_id>$bb</batch_id></retire_batch>" &&
	rpc submit_rpc_handler.php req.xml | grep "<success>1</success>" &&
	for d in transitioner assimilator transitioner; do
		test_project bin/$d --one_pass 2>>daemons.log || return 1
	done &&
	test "$(test_sql_value "select file_delete_state from workunit where name=\"j7\"")" = 1 &&
	test_project bin/file_deleter --one_pass 2>>fd.log &&
	! test -e "$(path "$m5")" &&
	test "$(test_sql_value "select count(*) from job_file where name=\"$m5\"")" = 0
'

test_done
