#!/bin/sh
test_description='jobs that bring their own executable: an any_executable app takes them only from a submitter with the right, each job its own input files under the names it gives, the executable among them; every refusal changes nothing'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1
AUTH="$ADMIN_AUTHENTICATOR"
CGI="$WSEQ_BUILDDIR/submit/submit"
. "$WSEQ_SRCDIR/test/t/lib-submit-cgi.sh"

# submit BATCH JOB FILES...: a submit_batch of one job of wseq_exec with FILES
# given as md5:open_name pairs (an empty open_name: none)
submit() {
	b=$1 j=$2
	shift 2
	files=
	for f in "$@"; do
		on=${f#*:}
		files="$files<input_file><mode>local_staged</mode><source>${f%%:*}</source>"
		test -n "$on" && files="$files<open_name>$on</open_name>"
		files="$files</input_file>"
	done
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>$b</batch_name><app_name>wseq_exec</app_name><job><name>$j</name><command_line>-n 3</command_line>$files</job></batch></submit_batch>" &&
	cgi
}
count() {
	test_sql_value "select count(*) from batch where name like \"e%\";
		select count(*) from workunit where name like \"ej%\""
}

test_expect_success 'setup: the sample app and an any_executable app; the admin may submit to every app, but not with an executable; two job files' '
	test_setup_sample_app &&
	cat >>"$PROJECT_DIR/project.xml.new" <<-EOT &&
	<boinc>
	  <app><name>wseq_exec</name><user_friendly_name>your program</user_friendly_name><any_executable>1</any_executable></app>
	</boinc>
	EOT
	mv "$PROJECT_DIR/project.xml.new" "$PROJECT_DIR/project.xml" &&
	cp "$WSEQ_SRCDIR/apps/templates/wseq_exec_in" "$WSEQ_SRCDIR/apps/templates/wseq_exec_out" \
		"$PROJECT_DIR/templates/" &&
	test_project bin/xadd &&
	test "$(test_sql_value "select any_executable from app where name=\"wseq_exec\"")" = 1 &&
	test "$(test_sql_value "select any_executable from app where name=\"wseq_sample\"")" = 0 &&
	uid=$(test_sql_value "select id from user where authenticator=\"$AUTH\"") && echo $uid >uid &&
	test_sql "$WSEQ_DB_NAME" -e "replace into user_submit (user_id, submit_all) values ($uid, 1)" &&
	printf "#!/bin/sh\necho hi\n" >prog && printf "params\n" >params &&
	mp=$(md5sum <prog | cut -c1-32) && mi=$(md5sum <params | cut -c1-32) &&
	echo "$mp $mi" >mds &&
	req "<upload_files><authenticator>$AUTH</authenticator><phys_name>$mp</phys_name><phys_name>$mi.dat</phys_name></upload_files>" &&
	cgi job_file.php prog params && grep "<success/>" out
'
read mp mi <mds 2>/dev/null
uid=$(cat uid 2>/dev/null)

test_expect_success 'without the right: create_batch and submit_batch are refused with the reason, nothing is made' '
	count >before &&
	req "<create_batch><authenticator>$AUTH</authenticator><batch_name>e0</batch_name><app_name>wseq_exec</app_name></create_batch>" &&
	cgi && refused "app wseq_exec runs the submitter&apos;s own executable, and your account does not have that right" &&
	submit e1 ej1 "$mp:wseq_exec" "$mi.dat:params" &&
	refused "app wseq_exec runs the submitter" &&
	count >after && test_cmp before after &&
	grep "may not submit jobs with their own executable (app wseq_exec)" "$PROJECT_DIR/log/submit.log"
'

test_expect_success 'account grant --any_executable gives the right, keeping the others' '
	test_project bin/account grant --email "$(test_sql_value "select email_addr from user where id=$uid")" \
		--submit_rights all --any_executable >grant.out &&
	grep "with their own executable" grant.out &&
	test "$(test_sql_value "select submit_all, any_executable from user_submit where user_id=$uid")" = "1	1"
'

test_expect_success 'refused: a file without an open name, a reserved or unsafe name, a name twice, no executable; nothing is made' '
	count >before &&
	submit e2 ej2 "$mp:wseq_exec" "$mi.dat:" && refused "job 0: input file 1 has no &lt;open_name&gt;" &&
	submit e2 ej2 "$mp:wseq_exec" "$mi.dat:job.xml" && refused "job 0: input file open name .*job.xml.* is a name the client or the wrapper uses" &&
	submit e2 ej2 "$mp:wseq_exec" "$mi.dat:init_data.xml" && refused "job 0: input file open name .*init_data.xml.* is a name" &&
	submit e2 ej2 "$mp:wseq_exec" "$mi.dat:wseq_outputs.zip" && refused "job 0: input file open name .*wseq_outputs.zip.* is a name" &&
	submit e2 ej2 "$mp:wseq_exec" "$mi.dat:../up" && refused "job 0: input file open name .*\.\./up.* is not a plain file name" &&
	submit e2 ej2 "$mp:wseq_exec" "$mi.dat:a/b" && refused "job 0: input file open name .*a/b.* is not a plain file name" &&
	submit e2 ej2 "$mp:wseq_exec" "$mi.dat:wseq_exec" && refused "job 0: input file open name .*wseq_exec.* is given twice" &&
	submit e2 ej2 "$mi.dat:params" && refused "job 0: no executable" &&
	submit e2 ej2 && refused "job 0: no executable" &&
	count >after && test_cmp before after
'

test_expect_success 'with the right: the job has its files under their names, copied into the slot, the executable marked; the command line is the job'"'"'s' '
	submit e3 ej3 "$mi.dat:params" "$mp:wseq_exec" && grep "<batch_id>" out &&
	test_sql_value "select xml_doc from workunit where name=\"ej3\"" | sed "s/\\\\n//g" >doc1 &&
	grep "<name>$mi.dat</name>.*<md5_cksum>$mi</md5_cksum>" doc1 &&
	sed "s#</file_info>#&\\n#g" doc1 >infos &&
	grep "<name>$mp</name>.*<executable/>" infos &&
	grep "<name>$mi.dat</name>" infos >params_info && ! grep "<executable/>" params_info &&
	grep "<file_name>$mi.dat</file_name><open_name>params</open_name><copy_file/></file_ref>" doc1 &&
	grep "<file_name>$mp</file_name><open_name>wseq_exec</open_name><copy_file/></file_ref>" doc1 &&
	grep "<command_line>-n 3</command_line>" doc1 &&
	test "$(test_sql_value "select rsc_memory_bound = 1e9 and appid = (select id from app where name=\"wseq_exec\") from workunit where name=\"ej3\"")" = 1
'

test_expect_success 'an ordinary app is unchanged: its template maps the files, open names given are not used' '
	printf "in\n" >in1 && m1=$(md5sum <in1 | cut -c1-32) &&
	req "<upload_files><authenticator>$AUTH</authenticator><phys_name>$m1.txt</phys_name></upload_files>" &&
	cgi job_file.php in1 &&
	req "<submit_batch><authenticator>$AUTH</authenticator><batch><batch_name>e4</batch_name><app_name>wseq_sample</app_name><job><name>ej4</name><input_file><mode>local_staged</mode><source>$m1.txt</source><open_name>other</open_name></input_file></job></batch></submit_batch>" &&
	cgi && grep "<batch_id>" out &&
	test_sql_value "select xml_doc from workunit where name=\"ej4\"" >doc4 &&
	grep "<open_name>in</open_name>" doc4 && ! grep "other" doc4
'

test_done
