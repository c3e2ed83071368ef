#!/bin/sh
# The schema in a real MariaDB, its version, and db_upgrade: --check, the
# project's config.xml, pending upgrades applied once and only once, a
# failing upgrade stopping at the last complete version.
test_description='database schema and db_upgrade'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_mariadb_up
WSEQ_DB_NAME=wseq_schema; export WSEQ_DB_NAME
SCHEMA="$WSEQ_SRCDIR/db/schema.sql"

# The version schema.sql records, DB_SCHEMA_VERSION and the newest upgrade
# file must agree; the upgrade tests below add the next version.
code=$(sed -n "s/^#define DB_SCHEMA_VERSION \([0-9][0-9]*\)\$/\1/p" "$WSEQ_SRCDIR/db/db.h")
next=$(printf %03d $((code + 1)))

# db_upgrade with explicit settings (config.xml is tested on its own)
dbu() {
	db_upgrade --db_name "$WSEQ_DB_NAME" --db_user "$WSEQ_DB_USER" \
		--db_passwd "$WSEQ_DB_PASSWD" --db_socket "$WSEQ_DB_SOCKET" "$@"
}

test_expect_success 'schema.sql loads into MariaDB' '
	wseq_test db create "$SCHEMA" 2>err &&
	test_grep "schema version $code\$" err
'

test_expect_success 'every table exists, InnoDB, utf8mb4' '
	LC_ALL=C sort >expect <<-\EOT &&
	app	InnoDB	utf8mb4_bin
	app_version	InnoDB	utf8mb4_bin
	assignment	InnoDB	utf8mb4_bin
	auth_throttle	InnoDB	utf8mb4_bin
	batch	InnoDB	utf8mb4_bin
	batch_file_assoc	InnoDB	utf8mb4_bin
	credit_by_app	InnoDB	utf8mb4_bin
	host	InnoDB	utf8mb4_bin
	host_app_version	InnoDB	utf8mb4_bin
	job_file	InnoDB	utf8mb4_bin
	mail_token	InnoDB	utf8mb4_bin
	news	InnoDB	utf8mb4_bin
	ops_admin	InnoDB	utf8mb4_bin
	platform	InnoDB	utf8mb4_bin
	result	InnoDB	utf8mb4_bin
	schema_version	InnoDB	utf8mb4_bin
	seq_file	InnoDB	utf8mb4_bin
	sequence	InnoDB	utf8mb4_bin
	sequence_group	InnoDB	utf8mb4_bin
	team	InnoDB	utf8mb4_bin
	user	InnoDB	utf8mb4_bin
	user_submit	InnoDB	utf8mb4_bin
	user_submit_app	InnoDB	utf8mb4_bin
	web_session	InnoDB	utf8mb4_bin
	workunit	InnoDB	utf8mb4_bin
	wu_file	InnoDB	utf8mb4_bin
	EOT
	test_sql -e "select table_name, engine, table_collation from information_schema.tables
		where table_schema=\"$WSEQ_DB_NAME\"" | LC_ALL=C sort >actual &&
	test_cmp expect actual
'

test_expect_success 'BOINC column names and the work-sequence columns are there' '
	test_sql -e "select concat(table_name, \".\", column_name) from information_schema.columns
		where table_schema=\"$WSEQ_DB_NAME\"" >columns &&
	for c in workunit.canonical_resultid workunit.transition_time workunit.assimilate_state \
		workunit.seq_id workunit.seqno workunit.branch result.server_state result.outcome \
		result.validate_state result.report_deadline host.host_cpid host.p_fpops \
		batch.expire_time job_file.delete_time user_submit.submit_all \
		sequence.first_unvalidated_seqno sequence.first_unsent_seqno sequence.answer_every \
		sequence.state_upload_every sequence.high_water sequence.hostid \
		sequence_group.master_seqid seq_file.kind; do
		test_grep "^$c\$" columns || return 1
	done
'

test_expect_success 'the recorded version is the code version and the newest upgrade' '
	test -n "$code" &&
	test "$(wseq_test db version)" = "$code" &&
	newest=$(ls "$WSEQ_SRCDIR/db/upgrade" | sed -n "s/^\([0-9][0-9][0-9]\)_.*\.sql\$/\1/p" |
		sort -n | tail -n 1) &&
	test "$(expr "${newest:-1}" + 0)" = "$code" &&
	grep -q "VALUES ($code, UNIX_TIMESTAMP()" "$SCHEMA"
'

test_expect_success 'db_upgrade --check says the schema is current' '
	dbu --check >out &&
	test_grep "^current $code\$" out &&
	test_grep "^latest $code\$" out &&
	test_grep "up to date" out
'

test_expect_success 'db_upgrade reads the database settings from config.xml' '
	mkdir proj &&
	cat >proj/config.xml <<-EOT &&
	<boinc>
	  <config>
	    <master_url>http://localhost/proj/</master_url>
	    <db_name>$WSEQ_DB_NAME</db_name>
	    <db_user>$WSEQ_DB_USER</db_user>
	    <db_passwd>$WSEQ_DB_PASSWD</db_passwd>
	    <db_host>127.0.0.1</db_host>
	    <db_port>$WSEQ_DB_PORT</db_port>
	  </config>
	</boinc>
	EOT
	db_upgrade --project proj --check >out &&
	test_grep "up to date" out &&
	(cd proj && db_upgrade --check) >out2 &&
	test_grep "up to date" out2
'

test_expect_success 'a pending upgrade is applied once and only once' '
	mkdir up &&
	for f in "$WSEQ_DATADIR"/[0-9][0-9][0-9]_*.sql; do
		test -f "$f" && cp "$f" up/
	done
	cat >up/${next}_fake.sql <<-\EOT &&
	-- a test upgrade: one table, one row
	CREATE TABLE fake_upgrade (x INT NOT NULL);
	INSERT INTO fake_upgrade VALUES (1);
	EOT
	test_must_fail dbu --check --upgrade_dir up >out &&
	test_grep "^latest $((code + 1))\$" out &&
	test_grep "behind" out &&
	dbu --upgrade_dir up >out &&
	test_grep "from version $code to $((code + 1))" out &&
	test "$(wseq_test db version)" = $((code + 1)) &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from fake_upgrade")" = 1 &&
	dbu --upgrade_dir up >out &&
	test_grep "schema version $((code + 1)): up to date" out &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select count(*) from fake_upgrade")" = 1 &&
	test "$(test_sql "$WSEQ_DB_NAME" -e "select description from schema_version where version=$((code + 1))")" = ${next}_fake.sql &&
	dbu --check --upgrade_dir up
'

test_expect_success 'a failing upgrade stops there and keeps the last complete version' '
	bad=$(printf %03d $((code + 2))) && never=$(printf %03d $((code + 3))) &&
	printf "CREATE TABLE bad_upgrade (x INT);\nSELEC nonsense;\n" >up/${bad}_bad.sql &&
	echo "CREATE TABLE never (x INT);" >up/${never}_never.sql &&
	test_must_fail dbu --upgrade_dir up >out 2>err &&
	test_grep "${bad}_bad.sql" err &&
	test_grep "stays at version $((code + 1))" err &&
	test "$(wseq_test db version)" = $((code + 1)) &&
	test_sql "$WSEQ_DB_NAME" -e "select 1 from bad_upgrade" &&
	test_must_fail test_sql "$WSEQ_DB_NAME" -e "select 1 from never" &&
	rm up/${bad}_bad.sql up/${never}_never.sql
'

test_expect_success 'two files for one version are refused' '
	echo "SELECT 1;" >up/${next}_again.sql &&
	test_must_fail dbu --upgrade_dir up 2>err &&
	test_grep "two files for version $((code + 1))" err &&
	rm up/${next}_again.sql
'

test_expect_success 'a database newer than the code is refused' '
	test_must_fail dbu --check >out &&
	test_grep "newer than this wseq" out
'

test_expect_success 'upgrading from version 10: every account keeps exactly its powers, host_app_version is made, and each upgrade says so' '
	(
		WSEQ_DB_NAME=wseq_up10 && export WSEQ_DB_NAME &&
		wseq_test db create "$SCHEMA" 2>/dev/null &&
		test_sql wseq_up10 <"$WSEQ_SRCDIR/test/data/db/down_to_010.sql" &&
		test "$(wseq_test db version)" = 10 &&
		q() { test_sql wseq_up10 -e "$1"; } &&
		q "insert into user (id, email_addr, name, authenticator) values
			(1, \"admin@x\", \"admin\", \"k1\"), (2, \"sci@x\", \"sci\", \"k2\"),
			(3, \"one@x\", \"one\", \"k3\"), (4, \"ops@x\", \"ops\", \"k4\"), (5, \"vol@x\", \"vol\", \"k5\")" &&
		q "insert into app (id, name) values (7, \"a\")" &&
		q "insert into user_submit (user_id, submit_all, manage_all, any_executable, quota) values
			(1, 1, 1, 0, 0), (2, 1, 0, 1, 5), (3, 0, 0, 0, 0), (4, 0, 1, 0, 0)" &&
		q "insert into user_submit_app (user_id, app_id, manage) values (3, 7, 1)" &&
		q "select * from user_submit order by user_id" >submit.before &&
		q "select * from user_submit_app order by user_id" >app.before &&
		dbu --upgrade_dir "$WSEQ_SRCDIR/db/upgrade" >up.out 2>&1 &&
		test_grep "from version 10 to $code" up.out &&
		test_grep "012_ops_admin.sql: 012: administering the project .* is a right of its own" up.out &&
		test_grep "Every account with manage_all = 1 before this upgrade is an ops admin after it" up.out &&
		test "$(wseq_test db version)" = "$code" &&
		test "$(q "select group_concat(user_id order by user_id) from ops_admin")" = "1,4" &&
		q "select * from user_submit order by user_id" >submit.after &&
		q "select * from user_submit_app order by user_id" >app.after &&
		test_cmp submit.before submit.after && test_cmp app.before app.after &&
		test "$(q "select count(*) from auth_throttle")" = 0 &&
		test_grep "013_host_app_version.sql: 013: the measured speed of each app version on each host" up.out &&
		test "$(q "select count(*) from host_app_version")" = 0 &&
		q "show create table host_app_version" >hav.sql &&
		test_grep "PRIMARY KEY (.host_id.,.app_version_id.)" hav.sql &&
		test_grep "014_result_deadline_version.sql: 014: " up.out &&
		q "show create table result" >result.sql &&
		test_grep "KEY .res_deadline. (.server_state.,.report_deadline.,.app_version_id.)" result.sql &&
		test_grep "016_reliability.sql: 016: reliability and adaptive replication" up.out &&
		test_grep "017_mail_token.sql: 017: mailed links" up.out &&
		test "$(q "select count(*) from mail_token")" = 0 &&
		test_grep "018_news.sql: 018: the project.s news" up.out &&
		test "$(q "select count(*) from news")" = 0 &&
		test_grep "019_result_lease.sql: 019: results claimed ahead" up.out &&
		test "$(q "select count(*) from result where lease_until<>0")" = 0 &&
		test "$(q "select concat(trust_after, \" \", spot_check) from app where id=7")" = "10 0.1" &&
		q "show create table host_app_version" >hav.sql &&
		test_grep "n_errors" hav.sql && test_grep "turnaround_avg" hav.sql &&
		! q "select 1 from login_failure" 2>/dev/null
	)
'

test_expect_success 'TCP host:port works as well as the socket' '
	db_upgrade --db_name "$WSEQ_DB_NAME" --db_user "$WSEQ_DB_USER" \
		--db_passwd "$WSEQ_DB_PASSWD" --db_host 127.0.0.1 --db_port "$WSEQ_DB_PORT" \
		--upgrade_dir up >out &&
	test_grep "up to date" out
'

test_expect_success 'a refused login is a clear error naming the socket, never the password' '
	test_must_fail db_upgrade --db_name "$WSEQ_DB_NAME" --db_user "$WSEQ_DB_USER" \
		--db_passwd "wrong-$WSEQ_DB_PASSWD" --db_socket "$WSEQ_DB_SOCKET" --check 2>err &&
	test_grep "database unavailable: cannot connect to database .$WSEQ_DB_NAME." err &&
	test_grep "socket $WSEQ_DB_SOCKET" err &&
	test_grep "Access denied" err &&
	test_grep -v "$WSEQ_DB_PASSWD" err
'

test_expect_success 'no server at the address: the error names host and port' '
	test_must_fail db_upgrade --db_name x --db_user u --db_host 127.0.0.1 --db_port 1 \
		--check 2>err &&
	test_grep "database unavailable: cannot connect to database .x. as .u. on 127.0.0.1:1" err
'

test_expect_success 'db_upgrade --help lists its options' '
	db_upgrade --help >out &&
	test_grep "upgrade_dir" out &&
	test_grep "check" out
'

test_done
