#!/bin/sh
# xadd with every <app> element of upstream's project.xml (stored; a
# warning names each wseq does not act on), and create_work with the flags
# of upstream BOINC's create_work that admins' scripts use: --credit (and the validator granting it), --app_version_num,
# --keywords, --hr_class, --size_class, --wu_id, --continue_on_error,
# --remote_file (on the command line and on --stdin lines), and upstream's
# single-dash spelling (-appname x).
test_description='xadd and create_work take upstream BOINC attributes and flags'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1
T="$WSEQ_SRCDIR/test/data/templates"
MD5=0123456789abcdef0123456789abcdef
cw() { in_project create_work "$@"; }
nwu() { q "select count(*) from workunit"; }

test_expect_success 'setup: the sim app and its templates' '
	cp "$T/project.xml" "$P/" && cp "$T/sim_in" "$T/sim_out" "$P/templates/" &&
	in_project xadd >xadd.out &&
	echo "input one" >in1.dat && echo "alpha=1" >params.txt
'

test_expect_success '-appname x is --appname x; the stored flags land in their columns' '
	cw -appname sim -wu_name up1 --credit 77 --app_version_num 3 --keywords "climate ocean" \
		--hr_class 2 --size_class 1 "$TRASH_DIRECTORY/in1.dat" "$TRASH_DIRECTORY/params.txt" 2>err &&
	test "$(wu_col up1 "canonical_credit, app_version_num, keywords, hr_class, size_class")" = \
		"77	3	climate ocean	2	1" &&
	test_grep "hr_class is stored .* no homogeneous redundancy" err &&
	test_grep "size_class is stored .* no job size matching" err
'

test_expect_success 'without them: no credit, any version, no keywords, size_class -1' '
	cw --appname sim --wu_name plain1 "$TRASH_DIRECTORY/in1.dat" "$TRASH_DIRECTORY/params.txt" 2>err &&
	test "$(wu_col plain1 "canonical_credit, app_version_num, keywords, hr_class, size_class")" = \
		"0	0		0	-1" &&
	test_line_count = 0 err
'

test_expect_success '--credit: the validator grants the job its own credit' '
	in_project transitioner --until_idle -d 1 &&
	tool report up1_0 --output "result" &&
	tool report plain1_0 --output "result" &&
	in_project transitioner --until_idle -d 1 &&
	in_project validator --until_idle -d 1 &&
	test "$(q "select granted_credit from result where name=\"up1_0\"")" = 77 &&
	test "$(q "select granted_credit > 0 and granted_credit <> 77 from result where name=\"plain1_0\"")" = 1
'

test_expect_success '--wu_id gives the workunit that id; a taken id is refused, nothing made' '
	cw --appname sim --wu_name byid --wu_id 4242 "$TRASH_DIRECTORY/in1.dat" "$TRASH_DIRECTORY/params.txt" &&
	test "$(q "select name from workunit where id=4242")" = byid &&
	before=$(nwu) &&
	test_must_fail cw --appname sim --wu_name byid2 --wu_id 4242 \
		"$TRASH_DIRECTORY/in1.dat" "$TRASH_DIRECTORY/params.txt" 2>err &&
	test_grep "id 4242 is taken" err &&
	test "$(nwu)" = "$before"
'

test_expect_success '--remote_file: the input is served from its URL, not copied' '
	cw --appname sim --wu_name remote1 --remote_file http://data.example.org/big.dat 123456 $MD5 \
		"$TRASH_DIRECTORY/params.txt" &&
	wu_col remote1 xml_doc >doc &&
	test_grep "<name>jf_$MD5</name>" doc &&
	test_grep "<url>http://data.example.org/big.dat</url>" doc &&
	test_grep "<nbytes>123456</nbytes>" doc &&
	test_grep "<md5_cksum>$MD5</md5_cksum>" doc &&
	test_must_fail test -e "$(input_path jf_$MD5)"
'

test_expect_success '--remote_file: bad URL, size or MD5 are refused, nothing made' '
	before=$(nwu) &&
	test_must_fail cw --appname sim --remote_file ftp://x/y 10 $MD5 "$TRASH_DIRECTORY/params.txt" 2>err &&
	test_grep "not an http:// or https:// URL" err &&
	test_must_fail cw --appname sim --remote_file http://x/y ten $MD5 "$TRASH_DIRECTORY/params.txt" 2>err &&
	test_grep "not a size in bytes" err &&
	test_must_fail cw --appname sim --remote_file http://x/y 10 abc "$TRASH_DIRECTORY/params.txt" 2>err &&
	test_grep "not an MD5" err &&
	test_must_fail cw --appname sim --remote_file http://x/y 10 2>err &&
	test_grep "needs URL NBYTES MD5" err &&
	test "$(nwu)" = "$before"
'

test_expect_success '--stdin lines take --remote_file, --wu_id and the stored flags' '
	cat >jobs <<-EOF &&
	--wu_name line1 --keywords k1 --remote_file https://d.example.org/a 10 $MD5 $TRASH_DIRECTORY/params.txt
	-wu_name line2 --wu_id 5001 --credit 5 $TRASH_DIRECTORY/in1.dat $TRASH_DIRECTORY/params.txt
	EOF
	cw --appname sim --stdin <jobs &&
	test "$(wu_col line1 keywords)" = k1 &&
	test_grep "https://d.example.org/a" "$(wu_col line1 xml_doc >d1 && echo d1)" &&
	test "$(q "select name, canonical_credit from workunit where id=5001")" = "line2	5"
'

test_expect_success 'without --continue_on_error one bad line undoes every line' '
	before=$(nwu) &&
	printf "%s\n" "--wu_name ok1 $TRASH_DIRECTORY/in1.dat $TRASH_DIRECTORY/params.txt" \
		"--wu_name bad1 $TRASH_DIRECTORY/missing.dat $TRASH_DIRECTORY/params.txt" \
		"--wu_name ok2 $TRASH_DIRECTORY/in1.dat $TRASH_DIRECTORY/params.txt" >jobs &&
	test_must_fail cw --appname sim --stdin <jobs 2>err &&
	test "$(nwu)" = "$before"
'

test_expect_success '--continue_on_error: the bad line is reported and skipped, the others made' '
	echo "only in this run" >fresh.dat &&
	printf "%s\n" "--wu_name ok1 $TRASH_DIRECTORY/in1.dat $TRASH_DIRECTORY/params.txt" \
		"--wu_name bad1 $TRASH_DIRECTORY/fresh.dat $TRASH_DIRECTORY/missing.dat" \
		"--wu_name byid $TRASH_DIRECTORY/in1.dat $TRASH_DIRECTORY/params.txt" \
		"--wu_name ok2 --wu_id 4242 $TRASH_DIRECTORY/in1.dat $TRASH_DIRECTORY/params.txt" \
		"--wu_name ok3 $TRASH_DIRECTORY/in1.dat $TRASH_DIRECTORY/params.txt" >jobs &&
	cw --appname sim --stdin --continue_on_error <jobs >out 2>err &&
	test "$(q "select count(*) from workunit where name in (\"ok1\", \"ok3\")")" = 2 &&
	test "$(q "select count(*) from workunit where name in (\"bad1\", \"ok2\")")" = 0 &&
	test "$(q "select count(*) from workunit where name=\"byid\"")" = 1 &&
	test_grep "stdin line 2 skipped" err &&
	test_grep "stdin line 3 skipped" err &&
	test_grep "stdin line 4 skipped" err &&
	test_grep "3 job lines failed and were skipped" out &&
	test_must_fail test -e "$(input_path fresh.dat)" &&
	test "$(q "select count(*) from workunit where name=\"ok1\"")" = 1
'

test_expect_success 'flags in the wrong place are refused with a clear message' '
	test_must_fail cw --appname sim --continue_on_error "$TRASH_DIRECTORY/in1.dat" "$TRASH_DIRECTORY/params.txt" 2>err &&
	test_grep "continue_on_error is for --stdin" err &&
	test_must_fail cw --appname sim --stdin --wu_id 7 </dev/null 2>err &&
	test_grep "wu_id goes on a job line" err &&
	test_must_fail cw --appname sim --size_class -3 2>err &&
	test_grep "size_class must be between" err
'

test_expect_success 'xadd stores every upstream <app> element and names those wseq does not act on' '
	cat >up.xml <<-EOF &&
	<boinc>
	  <app>
	    <name>upapp</name>
	    <user_friendly_name>Upstream app</user_friendly_name>
	    <min_version>105</min_version>
	    <weight>2.5</weight>
	    <beta/>
	    <homogeneous_redundancy>2</homogeneous_redundancy>
	    <target_nresults>3</target_nresults>
	    <non_cpu_intensive>0</non_cpu_intensive>
	    <locality_scheduling>0</locality_scheduling>
	    <n_size_classes>4</n_size_classes>
	    <fraction_done_exact/>
	    <homogeneous_app_version>1</homogeneous_app_version>
	    <host_scale_check>1</host_scale_check>
	    <keywords>climate ocean</keywords>
	    <frobnication>9</frobnication>
	  </app>
	  <platform><name>x86_64-pc-linux-gnu</name><user_friendly_name>Linux 64</user_friendly_name></platform>
	</boinc>
	EOF
	in_project xadd --file "$TRASH_DIRECTORY/up.xml" >out 2>err &&
	test_grep "added app upapp" out &&
	test "$(q "select user_friendly_name, min_version, weight, beta, homogeneous_redundancy, target_nresults, n_size_classes, fraction_done_exact, homogeneous_app_version, host_scale_check, keywords from app where name=\"upapp\"")" = \
		"Upstream app	105	2.5	1	2	3	4	1	1	1	climate ocean" &&
	for e in min_version weight beta homogeneous_redundancy non_cpu_intensive \
		 locality_scheduling n_size_classes fraction_done_exact homogeneous_app_version host_scale_check; do
		test_grep "<$e> is stored in app.$e, but" err || return 1
	done &&
	test_grep "<frobnication> is not an element of upstream.s <app>; ignored" err &&
	test_grep -v "<keywords>\|<user_friendly_name>\|<target_nresults>" err &&
	test_grep "app upapp: adaptive replication: a job made single goes with 3 results" out
'

test_expect_success 'xadd again brings an existing app up to project.xml' '
	sed -i "s|<user_friendly_name>Upstream app|<user_friendly_name>Renamed app|; s|<beta/>|<deprecated>1</deprecated>|" up.xml &&
	in_project xadd --file "$TRASH_DIRECTORY/up.xml" >out 2>err &&
	test_grep "updated app upapp" out &&
	test "$(q "select user_friendly_name, deprecated from app where name=\"upapp\"")" = "Renamed app	1" &&
	in_project xadd --file "$TRASH_DIRECTORY/up.xml" >out 2>err &&
	test_grep "app upapp already exists" out
'

test_expect_success 'xadd refuses a bad value with file and line, and adds nothing' '
	before=$(q "select count(*) from app") &&
	printf "<boinc>\n<app><name>ok_app</name></app>\n<app><name>bad</name>\n<weight>heavy</weight></app>\n</boinc>\n" >bad.xml &&
	test_must_fail in_project xadd --file "$TRASH_DIRECTORY/bad.xml" 2>err &&
	test_grep "bad.xml:4: <weight> must be a number (got .heavy.)" err &&
	test "$(q "select count(*) from app")" = "$before"
'

test_done
