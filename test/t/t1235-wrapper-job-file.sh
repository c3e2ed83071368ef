#!/bin/sh
test_description='wseq_wrapper run by hand in a slot laid out as the BOINC client lays it out: its job file and the programs it runs are only ever files of the app version (init_data.xml lists them); a workunit'"'"'s --job_file is an argument like any other, a job file or program that is a workunit input is refused, an input runs only where the admin'"'"'s job file says <input_application/>'
. "$WSEQ_SRCDIR/test/test-lib.sh"

WRAPPER="$WSEQ_BUILDDIR/stage/libexec/apps/wseq_wrapper"
P="$TRASH_DIRECTORY/projects/P"
SLOT="$TRASH_DIRECTORY/slots/0"

# slot APP_FILES...: a fresh slot; init_data.xml lists APP_FILES (physical names in $P)
slot() {
	rm -rf "$SLOT" && mkdir -p "$SLOT" &&
	{
		printf "<app_init_data>\n<project_dir>%s</project_dir>\n" "$P"
		for f in "$@"; do printf "<app_file>%s</app_file>\n" "$f"; done
		printf "</app_init_data>\n"
	} >"$SLOT/init_data.xml"
}
# link LOGICAL PHYSICAL: the client's soft-link file
link() {
	printf "<soft_link>../../projects/P/%s</soft_link>\n" "$2" >"$SLOT/$1"
}
# run ARGS...: the wrapper in the slot; its exit status in status, its stderr in err
# until the BOINC runtime starts (then in the slot'"'"'s stderr.txt, as under a client)
run() {
	(cd "$SLOT" && "$WRAPPER" "$@" </dev/null >"$TRASH_DIRECTORY/out" 2>"$TRASH_DIRECTORY/err")
	echo $? >status
}

test_expect_success 'setup: the app version (wrapper, job file, worker) and a workunit input that is a job file of its own' '
	mkdir -p "$P" &&
	cp "$WRAPPER" "$P/wseq_wrapper_1" &&
	cat >"$P/app_job_1.xml" <<-EOF &&
	<job_desc><task><application>worker</application><append_cmdline_args/></task></job_desc>
	EOF
	printf "#!/bin/sh\necho \"worker: \$*\" >worker.out\n" >"$P/worker_1" && chmod +x "$P/worker_1" &&
	cat >"$P/in_md5" <<-EOF &&
	<job_desc><task><application>/bin/sh</application><command_line>-c &quot;touch $TRASH_DIRECTORY/PWNED&quot;</command_line></task></job_desc>
	EOF
	printf "#!/bin/sh\ntouch %s/PWNED\n" "$TRASH_DIRECTORY" >"$P/prog_md5"
'

test_expect_success 'the app version'"'"'s job file runs; --job_file in from the workunit is only an argument of the task' '
	slot wseq_wrapper_1 app_job_1.xml worker_1 &&
	link job.xml app_job_1.xml && link worker worker_1 && link in in_md5 &&
	run --job_file in &&
	test "$(cat status)" = 0 &&
	echo "worker: --job_file in" >expect && test_cmp expect "$SLOT/worker.out" &&
	test_grep "argument --job_file is not the wrapper.s" err &&
	test ! -e PWNED
'

test_expect_success 'a job.xml that is a workunit input is refused (195), nothing runs' '
	slot wseq_wrapper_1 app_job_1.xml worker_1 &&
	link job.xml in_md5 && link worker worker_1 &&
	run &&
	test "$(cat status)" = 195 &&
	test_grep "the job file job.xml is not a file of the app version" "$SLOT/stderr.txt" &&
	test ! -e PWNED && test ! -e "$SLOT/worker.out"
'

test_expect_success 'a job.xml copied into the slot is taken only with the bytes of an app version file' '
	slot wseq_wrapper_1 app_job_1.xml worker_1 &&
	cp "$P/in_md5" "$SLOT/job.xml" && link worker worker_1 &&
	run && test "$(cat status)" = 195 && test ! -e PWNED &&
	cp "$P/app_job_1.xml" "$SLOT/job.xml" &&
	run && test "$(cat status)" = 0 && test -s "$SLOT/worker.out"
'

test_expect_success 'an application that is a workunit input is refused without <input_application/>, and is not made executable' '
	printf "<job_desc><task><application>prog</application></task></job_desc>\n" >"$P/app_job_2.xml" &&
	slot wseq_wrapper_1 app_job_2.xml &&
	link job.xml app_job_2.xml && link prog prog_md5 &&
	run &&
	test "$(cat status)" = 195 &&
	test_grep "application prog is not a file of the app version" "$SLOT/stderr.txt" &&
	test ! -x "$P/prog_md5" && test ! -e PWNED
'

test_expect_success 'with <input_application/> (an any_executable app'"'"'s job file) the input runs' '
	printf "<job_desc><task><application>prog</application><input_application/></task></job_desc>\n" >"$P/app_job_3.xml" &&
	slot wseq_wrapper_1 app_job_3.xml &&
	link job.xml app_job_3.xml && link prog prog_md5 &&
	run &&
	test "$(cat status)" = 0 && test -e PWNED && rm -f PWNED
'

test_expect_success 'a slot whose init_data.xml lists no app version files runs nothing' '
	slot &&
	link job.xml app_job_1.xml && link worker worker_1 &&
	run &&
	test "$(cat status)" = 195 &&
	test_grep "lists no project directory or no app version files" "$SLOT/stderr.txt" &&
	test ! -e "$SLOT/worker.out"
'

test_done
