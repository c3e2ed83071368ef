#!/bin/sh
test_description='xadd registers apps; create_work makes workunits from templates and staged inputs, all or nothing'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_atexit "wseq_sandbox down '$TRASH_DIRECTORY/sb'"
T="$WSEQ_SRCDIR/test/data/templates"

sql() { test_sql "$WSEQ_DB_NAME" -e "$1"; }
nwu() { sql "select count(*) from workunit"; }
# Every file of the download hierarchy, to prove a failed run leaves nothing behind.
download_files() { (cd "$PROJECT_DIR/download" && find . -type f | sort); }
# One error line on stderr, no workunit created, no file staged.
check_refused() {
	test_line_count = 1 err &&
	test "$(nwu)" = "$before" &&
	download_files >files.after && test_cmp files.before files.after
}
snapshot() { before=$(nwu) && download_files >files.before; }

test_expect_success 'a private project' '
	wseq_sandbox up --no-daemons sb >up.log 2>&1 &&
	wseq_sandbox env sb >env && . ./env &&
	cp "$T/project.xml" "$T/sim_in" "$T/sim_out" "$T/broken_in" "$T/nomax_out" "$PROJECT_DIR/" &&
	mv "$PROJECT_DIR/sim_in" "$PROJECT_DIR/sim_out" "$PROJECT_DIR/broken_in" \
	   "$PROJECT_DIR/nomax_out" "$PROJECT_DIR/templates/"
'
. ./env

test_expect_success 'xadd adds the apps and platforms of project.xml' '
	(cd "$PROJECT_DIR" && xadd) >xadd.out &&
	test_grep "added app sim" xadd.out &&
	test_grep "added platform x86_64-pc-linux-gnu" xadd.out &&
	test "$(sql "select user_friendly_name from app where name=\"sim\"")" = Simulation &&
	test "$(sql "select count(*) from platform where name=\"x86_64-pc-linux-gnu\"")" = 1
'

test_expect_success 'xadd again is harmless' '
	(cd "$PROJECT_DIR" && xadd) >xadd2.out &&
	test_grep "app sim already exists" xadd2.out &&
	test "$(sql "select count(*) from app")" = 1 &&
	test "$(sql "select count(*) from platform")" = 1
'

test_expect_success 'xadd reports a malformed project.xml with file and line' '
	printf "<boinc>\n<app><name>x</name></app>\n<app>\n</boinc>\n" >bad.xml &&
	(cd "$PROJECT_DIR" && test_must_fail xadd --file "$TRASH_DIRECTORY/bad.xml") 2>err &&
	test_grep "bad.xml:5:" err && test_line_count = 1 err &&
	test "$(sql "select count(*) from app")" = 1
'

test_expect_success 'create_work makes a workunit with the right columns' '
	echo "input data one" >in1.dat && echo "alpha=1" >params.txt &&
	(cd "$PROJECT_DIR" && create_work --appname sim --wu_name wu1 --command_line "-n 3 -x" \
		--delay_bound 3600 --priority 5 "$TRASH_DIRECTORY/in1.dat" "$TRASH_DIRECTORY/params.txt") &&
	sql "select appid, result_template_file, rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound,
		rsc_disk_bound, delay_bound, min_quorum, target_nresults, max_error_results,
		max_total_results, max_success_results, priority, batch, transition_time <= unix_timestamp(),
		transition_time > unix_timestamp() - 60, create_time > 0, size_class
		from workunit where name=\"wu1\"" >row &&
	printf "1\ttemplates/sim_out\t20000000000\t2000000000000\t500000000\t1000000000\t3600\t1\t1\t3\t10\t6\t5\t0\t1\t1\t1\t-1\n" >expect &&
	test_cmp expect row
'

test_expect_success 'its xml_doc has both file_infos and file_refs, and the command line' '
	sql "select xml_doc from workunit where name=\"wu1\"" | sed "s/\\\\n/\n/g" >doc &&
	md5=$(md5sum <in1.dat | cut -d" " -f1) &&
	test_grep "<name>in1.dat</name>" doc &&
	test_grep "<md5_cksum>$md5</md5_cksum>" doc &&
	test_grep "<nbytes>15</nbytes>" doc &&
	test_grep "<name>params.txt</name>" doc && test_grep "<sticky/>" doc &&
	test_grep "<file_name>in1.dat</file_name>" doc && test_grep "<open_name>in</open_name>" doc &&
	test_grep "<open_name>params</open_name>" doc && test_grep "<copy_file/>" doc &&
	test_grep "<command_line>-n 3 -x</command_line>" doc &&
	test_grep -v "<command_line>-n 1" doc && test_grep -v rsc_fpops doc
'

test_expect_success 'the input file is in the download hierarchy and served at its URL' '
	url=$(sed -n "s|.*<url>\(.*in1.dat\)</url>.*|\1|p" doc) &&
	case "$url" in "${PROJECT_URL}download/"*/in1.dat) ;; *) echo "bad url $url"; false ;; esac &&
	h=${url%/in1.dat} && h=${h##*/} &&
	test_cmp in1.dat "$PROJECT_DIR/download/$h/in1.dat" &&
	test_grep "^$(md5sum <in1.dat | cut -d" " -f1) 15$" "$PROJECT_DIR/download/$h/in1.dat.md5" &&
	curl -sf "$url" | md5sum >got && md5sum <in1.dat >want && test_cmp want got
'

test_expect_success 'work_create_result names results WU_0, WU_1 with substituted output names' '
	(cd "$PROJECT_DIR" && wseq_test work create_result wu1 2) >res.out &&
	test_grep "^wu1_0$" res.out && test_grep "^wu1_1$" res.out &&
	sql "select name, server_state, outcome, validate_state, appid, priority, report_deadline
		from result order by id" >rows &&
	printf "wu1_0\t2\t0\t0\t1\t5\t0\nwu1_1\t2\t0\t0\t1\t5\t0\n" >expect && test_cmp expect rows &&
	sql "select xml_doc_in from result where name=\"wu1_1\"" | sed "s/\\\\n/\n/g" >res_doc &&
	test_grep "<name>wu1_1_0</name>" res_doc &&
	test_grep "<file_name>wu1_1_0</file_name>" res_doc &&
	test_grep "<max_nbytes>1000000</max_nbytes>" res_doc &&
	up=$(wseq_config --project "$PROJECT_DIR" upload_url) &&
	case "$up" in *file_upload_handler*) ;; *) false ;; esac &&
	test_grep "<url>$up</url>" res_doc && test_grep -v OUTFILE res_doc &&
	(cd "$PROJECT_DIR" && wseq_test work create_result wu1) >res3.out &&
	test_grep "^wu1_2$" res3.out
'

test_expect_success 'a staged name is accepted as input, and identical content again is fine' '
	(cd "$PROJECT_DIR" && create_work --appname sim --wu_name wu2 in1.dat params.txt) &&
	(cd "$PROJECT_DIR" && create_work --appname sim --wu_name wu3 "$TRASH_DIRECTORY/in1.dat" params.txt) &&
	test "$(sql "select count(*) from workunit where name in (\"wu2\", \"wu3\")")" = 2
'

test_expect_success 'create_work --stdin makes 100 workunits in one run' '
	i=0 && : >jobs &&
	while [ $i -lt 100 ]; do
		echo "in $i" >"in_$i.dat" &&
		echo "--wu_name job_$i --command_line \"-i $i --name '\''x y'\''\" $TRASH_DIRECTORY/in_$i.dat params.txt" >>jobs &&
		i=$((i + 1)) || return 1
	done &&
	before=$(nwu) &&
	(cd "$PROJECT_DIR" && create_work --appname sim --batch 7 --stdin <"$TRASH_DIRECTORY/jobs") &&
	test "$(nwu)" = "$((before + 100))" &&
	test "$(sql "select count(*) from workunit where batch=7 and name like \"job\\_%\"")" = 100 &&
	sql "select xml_doc from workunit where name=\"job_42\"" >doc42 &&
	test_grep "<command_line>-i 42 --name .x y.</command_line>" doc42 &&
	test_grep "<name>in_42.dat</name>" doc42
'

test_expect_success 'refused: a missing input file' '
	snapshot &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --wu_name bad1 \
		"$TRASH_DIRECTORY/nonexistent.dat" params.txt) 2>err &&
	test_grep "nonexistent.dat" err && check_refused
'

test_expect_success 'refused: an unknown app' '
	snapshot && echo fresh >fresh1.dat &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname nosuchapp --wu_name bad2 \
		"$TRASH_DIRECTORY/fresh1.dat" params.txt) 2>err &&
	test_grep "unknown app nosuchapp" err && check_refused
'

test_expect_success 'refused: a malformed template, named with its line' '
	snapshot &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --wu_name bad3 \
		--wu_template templates/broken_in "$TRASH_DIRECTORY/fresh1.dat") 2>err &&
	test_grep "templates/broken_in:11:" err && check_refused
'

test_expect_success 'refused: a result template without max_nbytes' '
	snapshot &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --wu_name bad4 \
		--result_template templates/nomax_out "$TRASH_DIRECTORY/fresh1.dat" params.txt) 2>err &&
	test_grep "max_nbytes" err && check_refused
'

test_expect_success 'refused: the wrong number of input files' '
	snapshot &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --wu_name bad5 \
		"$TRASH_DIRECTORY/fresh1.dat") 2>err &&
	test_grep "needs 2 input files, got 1" err && check_refused
'

test_expect_success 'refused: a duplicate workunit name' '
	snapshot &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --wu_name wu1 \
		"$TRASH_DIRECTORY/fresh1.dat" params.txt) 2>err &&
	test_grep "workunit wu1 already exists" err && check_refused
'

test_expect_success 'refused: the same physical name with other content' '
	snapshot && mkdir -p other && echo "different" >other/in1.dat &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --wu_name bad6 \
		"$TRASH_DIRECTORY/other/in1.dat" params.txt) 2>err &&
	test_grep "file immutability violation for in1.dat" err && check_refused
'

test_expect_success 'refused: a bad number' '
	snapshot &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --wu_name bad7 \
		--min_quorum zero "$TRASH_DIRECTORY/fresh1.dat" params.txt) 2>err &&
	test_grep "min_quorum" err && check_refused
'

test_expect_success 'refused: a bad stdin line undoes the lines before it' '
	snapshot && echo a >new_a.dat && echo b >new_b.dat &&
	printf "%s\n" "--wu_name s1 $TRASH_DIRECTORY/new_a.dat params.txt" \
		"--wu_name s2 $TRASH_DIRECTORY/new_b.dat params.txt" \
		"--wu_name s3 --bogus 1 $TRASH_DIRECTORY/new_b.dat params.txt" >badjobs &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --stdin <"$TRASH_DIRECTORY/badjobs") 2>err &&
	test_grep "stdin line 3: unknown option --bogus" err && check_refused &&
	printf "%s\n" "--wu_name s1 $TRASH_DIRECTORY/new_a.dat params.txt" \
		"--wu_name s1 $TRASH_DIRECTORY/new_b.dat params.txt" >dupjobs &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --stdin <"$TRASH_DIRECTORY/dupjobs") 2>err &&
	test_grep "workunit s1 already exists" err && check_refused
'

test_expect_success 'after "--" every word is an input file, on the command line and a --stdin line' '
	echo dd >"$PROJECT_DIR/--remote_file" &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --wu_name dd1 --remote_file \
		params.txt) 2>err1 &&
	test_grep "remote_file needs URL NBYTES MD5" err1 &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --wu_name dd1 -- --remote_file \
		params.txt) 2>err2 &&
	test_grep "input file --remote_file: .* cannot be a physical file name" err2 &&
	echo "--wu_name dd2 -- --remote_file params.txt" >ddjobs &&
	(cd "$PROJECT_DIR" && test_must_fail create_work --appname sim --stdin <"$TRASH_DIRECTORY/ddjobs") 2>err3 &&
	test_grep "input file --remote_file: .* cannot be a physical file name" err3
'

test_expect_success 'create_work without a project directory says so' '
	(cd / && unset WSEQ_PROJECT_DIR && test_must_fail create_work --appname sim x) 2>err &&
	test_line_count -ge 1 err
'

test_done
