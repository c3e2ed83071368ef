#!/bin/sh
# make_project as upstream BOINC admins call it: NAME 'Long Name', and
# --test_app, which installs the sample app registered and signed so that
# work can be created at once.
test_description='make_project takes upstream forms: LONG_NAME and --test_app'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_mariadb_up

mp() {
	dir=$1; shift
	make_project --project_root "$TRASH_DIRECTORY/$dir" --url_base http://127.0.0.1:8080/ \
		--db_name "$dir" --db_user "$WSEQ_DB_USER" --db_passwd "$WSEQ_DB_PASSWD" \
		--db_socket "$WSEQ_DB_SOCKET" --uldl_dir_fanout 16 "$@"
}
q() { test_sql "$1" -e "$2"; }

test_expect_success 'make_project NAME "Long Name": the long name is the project name' '
	mp p1 p1 "Ocean Currents at Home" >out 2>err &&
	test "$(wseq_config --project p1 long_name)" = "Ocean Currents at Home" &&
	test_grep "Ocean Currents at Home" p1/html/user/index.html
'

test_expect_success 'LONG_NAME and a different --project_name are refused; a third argument too' '
	test_must_fail mp p2 --project_name A p2 B 2>err &&
	test_grep "LONG_NAME .B. and --project_name .A. disagree" err &&
	test_must_fail mp p3 p3 "Long" extra 2>err &&
	test_grep "too many arguments" err &&
	test_must_fail test -d p2
'

test_expect_success '--test_app: the sample app is registered, signed, with templates' '
	mp p4 --test_app p4 >out 2>err &&
	test "$(q p4 "select name from app")" = wseq_sample &&
	test "$(q p4 "select count(*) from app_version where deprecated=0")" = 1 &&
	test -f p4/templates/wseq_sample_in && test -f p4/templates/wseq_sample_out &&
	ls p4/apps/wseq_sample/wseq_sample_1.00_*/ >files &&
	test_grep "wseq_sample_1.00_.*\.sig\|wseq_sample_1.00_" files &&
	q p4 "select xml_doc from app_version" >avxml &&
	test_grep "<file_signature>" avxml
'

test_expect_success '--test_app: create_work makes a job of it at once' '
	echo "hello" >in.txt &&
	(cd p4 && bin/create_work --appname wseq_sample --wu_name first_job "$TRASH_DIRECTORY/in.txt") &&
	test "$(q p4 "select count(*) from workunit where name=\"first_job\"")" = 1
'

test_expect_success '--test_app --no_db installs the files and says nothing of the database' '
	mp p5 --test_app --no_db p5 >out 2>err &&
	test -f p5/project.xml && test_grep "wseq_sample" p5/project.xml &&
	ls p5/apps/wseq_sample/*/ >files && test_line_count = 1 files
'

test_done
