#!/bin/sh
test_description='make_project creates a complete project and its database'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_mariadb_up

mp() {
	make_project --project_root "$TRASH_DIRECTORY/proj" --url_base http://127.0.0.1:8080/ \
		--db_name proj --db_user "$WSEQ_DB_USER" --db_passwd "$WSEQ_DB_PASSWD" \
		--db_socket "$WSEQ_DB_SOCKET" --uldl_dir_fanout 16 "$@"
}

test_expect_success 'make_project creates the project' '
	mp proj >out 2>err &&
	test_grep "master URL: *http://127.0.0.1:8080/proj/" out &&
	test -d proj/bin && test -d proj/cgi-bin && test -d proj/html/user &&
	test -d proj/log && test -d proj/pid && test -d proj/keys &&
	test -d proj/download/0 && test -d proj/download/f && ! test -d proj/download/10 &&
	test -d proj/upload/0 && test -d proj/upload/f
'

test_expect_success 'config.xml parses and holds what was asked for' '
	wseq_config --project proj --check &&
	test "$(wseq_config --project proj master_url)" = http://127.0.0.1:8080/proj/ &&
	test "$(wseq_config --project proj db_name)" = proj &&
	test "$(wseq_config --project proj db_socket)" = "$WSEQ_DB_SOCKET" &&
	test "$(wseq_config --project proj uldl_dir_fanout)" = 16 &&
	test "$(wseq_config --project proj upload_url)" = http://127.0.0.1:8080/proj_cgi/file_upload_handler &&
	test "$(wseq_config --project proj upload_dir)" = "$TRASH_DIRECTORY/proj/upload" &&
	wseq_config --project proj >all &&
	test_grep -v "$WSEQ_DB_PASSWD" all
'

test_expect_success 'a new project has a starter plan_class_spec.xml whose classes all work' '
	test -f proj/plan_class_spec.xml &&
	wseq_config --project proj --check >out &&
	test_grep "plan_class_spec.xml: 5 plan classes" out &&
	test_grep -v "warning" out &&
	for c in mt cuda opencl_nvidia opencl_ati opencl_intel_gpu; do
		test_grep "<name>$c</name>" proj/plan_class_spec.xml || return 1
	done
'

test_expect_success 'the database password is not world-readable' '
	test "$(stat -c %a proj/config.xml)" = 640
'

test_expect_success 'the code-signing key is mode 0600, the upload key readable by the web user'"'"'s group only; public keys in BOINC format' '
	test "$(stat -c %a proj/keys/code_sign_private)" = 600 &&
	test "$(stat -c %a proj/keys/upload_private)" = 640 &&
	test "$(stat -c %G proj/keys/upload_private)" = "$(id -gn www-data)" &&
	test "$(stat -c %a proj/keys)" = 711 &&
	test "$(stat -c %a proj/keys/code_sign_public)" = 644 &&
	test "$(head -n 1 proj/keys/code_sign_public)" = 1024 &&
	test "$(tail -n 1 proj/keys/code_sign_public)" = . &&
	test "$(sed -e 1d -e "\$d" proj/keys/code_sign_public | tr -d "\n" | wc -c)" = 512
'

test_expect_success 'the code-signing key signs a file as the BOINC client checks it (openssl)' '
	head -c 100000 /dev/urandom >app &&
	sign_executable app proj/keys/code_sign_private >app.sig &&
	test "$(tail -n 1 app.sig)" = . &&
	sed "\$d" app.sig | xxd -r -p >app.sig.bin &&
	test "$(wc -c <app.sig.bin)" = 128 &&
	openssl pkeyutl -verifyrecover -pubin -inkey proj/keys/code_sign_public.pem \
		-pkeyopt rsa_padding_mode:pkcs1 -in app.sig.bin -out recovered &&
	printf %s "$(md5sum app | cut -c1-32)" >expect &&
	test_cmp expect recovered
'

test_expect_success 'the BOINC-format public key is the PEM key (same modulus)' '
	openssl rsa -in proj/keys/code_sign_private -noout -modulus | sed "s/^Modulus=//" |
		tr A-F a-f >modulus.expect &&
	sed -e 1d -e "\$d" proj/keys/code_sign_public | tr -d "\n" | cut -c1-256 >modulus.actual &&
	test_cmp modulus.expect modulus.actual
'

test_expect_success 'the master page names the scheduler in both forms the client reads' '
	test_grep "^<link rel=\"boinc_scheduler\" href=\"http://127.0.0.1:8080/proj_cgi/cgi\">$" proj/html/user/index.html &&
	test_grep "^<scheduler>http://127.0.0.1:8080/proj_cgi/cgi</scheduler>$" proj/html/user/index.html
'

test_expect_success 'the Apache snippet maps the web root, downloads and CGI programs' '
	test_grep "^Alias /proj/download $TRASH_DIRECTORY/proj/download$" proj/proj.httpd.conf &&
	test_grep "^Alias /proj $TRASH_DIRECTORY/proj/html/user$" proj/proj.httpd.conf &&
	test_grep "^ScriptAlias /proj_cgi $TRASH_DIRECTORY/proj/cgi-bin$" proj/proj.httpd.conf
'

test_expect_success 'the statistics export is served at the master URL'"'"'s stats/' '
	test -d proj/html/stats &&
	test_grep "^Alias /proj/stats $TRASH_DIRECTORY/proj/html/stats$" proj/proj.httpd.conf &&
	test_grep "^<Directory \"$TRASH_DIRECTORY/proj/html/stats\">$" proj/proj.httpd.conf &&
	# mod_alias takes the first Alias that matches: stats/ before the web root
	stats=$(grep -n "^Alias /proj/stats " proj/proj.httpd.conf | cut -d: -f1) &&
	root=$(grep -n "^Alias /proj " proj/proj.httpd.conf | cut -d: -f1) &&
	test "$stats" -lt "$root"
'

test_expect_success 'config.xml runs db_dump and update_stats every day, enabled; db_purge disabled' '
	wseq_config --project proj --daemons >daemons &&
	test_grep "^task db_dump every 86400s$" daemons &&
	test_grep "^task update_stats every 86400s$" daemons &&
	test_grep "^task db_purge --one_pass --min_age_days 30 every 86400s (disabled)$" daemons
'

test_expect_success 'bin/ holds the project programs and start/stop/status' '
	test -x proj/bin/wseq_config && test -x proj/bin/db_dump && test -x proj/bin/update_stats &&
	test -x proj/bin/start && test -x proj/bin/stop && test -x proj/bin/status
'

test_expect_success 'the schema is loaded and an admin account exists' '
	test_sql proj -e "show tables" >tables &&
	for t in platform app app_version user host workunit result batch job_file batch_file_assoc user_submit user_submit_app; do
		test_grep "^$t\$" tables || return 1
	done &&
	test_sql proj -e "select authenticator from user where name=\"admin\"" >auth.db &&
	test_cmp proj/keys/admin_authenticator auth.db &&
	test "$(stat -c %a proj/keys/admin_authenticator)" = 600 &&
	test "$(wc -c <auth.db)" = 33 &&
	test_sql proj -e "select submit_all from user_submit s join user u on u.id = s.user_id where u.name=\"admin\"" >submit &&
	test "$(cat submit)" = 1
'

test_expect_success 'the authenticator and password are never printed' '
	! grep -F "$(cat proj/keys/admin_authenticator)" out err &&
	! grep -F "$WSEQ_DB_PASSWD" out err
'

test_expect_success 'an existing project is not overwritten' '
	test_must_fail mp proj 2>err &&
	test_grep "exists and is not empty (use --delete_prev_inst" err &&
	test_line_count = 1 err
'

test_expect_success 'an existing database is not overwritten' '
	test_must_fail mp --delete_prev_inst proj 2>err &&
	test_grep "drop_db_first" err
'

test_expect_success '--delete_prev_inst --drop_db_first makes a new project' '
	old=$(cat proj/keys/admin_authenticator) &&
	mp --delete_prev_inst --drop_db_first proj >out &&
	test "$(cat proj/keys/admin_authenticator)" != "$old" &&
	test "$(test_sql proj -e "select count(*) from user")" = 1
'

test_expect_success 'every bad option gets a one-line error naming it; usage errors exit 2' '
	{ make_project --db_port abc x 2>e1; test $? = 2; } && test_grep "db_port" e1 && test_line_count = 1 e1 &&
	{ make_project --frobnicate x 2>e2; test $? = 2; } && test_grep "unknown option --frobnicate" e2 && test_line_count = 1 e2 &&
	test_must_fail make_project --url_base ftp://x/ --project_root p2 x 2>e3 && test_grep "url_base" e3 && test_line_count = 1 e3 &&
	test_must_fail make_project --project_root p3 "bad name" 2>e4 && test_grep "NAME must be" e4 && test_line_count = 1 e4 &&
	{ make_project 2>e5; test $? = 2; } && test_grep "too few arguments (usage: make_project .* NAME" e5 && test_line_count = 1 e5 &&
	{ make_project --db_port 70000 x 2>e6; test $? = 2; } && test_grep "db_port must be between" e6 &&
	{ make_project --uldl_dir_fanout 2>e7; test $? = 2; } && test_grep "needs a value" e7 &&
	test_must_fail make_project --web_user nosuchuser_x --project_root p4 x 2>e8 && test_grep "web_user" e8 && test_line_count = 1 e8 &&
	! test -e p2 && ! test -e p3 && ! test -e p4
'

test_expect_success 'a database that cannot be reached is a clear error' '
	test_must_fail make_project --project_root p5 --db_socket /nonexistent.sock --db_user x p5 2>err &&
	test_grep "nonexistent.sock" err &&
	test_grep "not created" err
'

test_expect_success '--help lists the options' '
	make_project --help >help &&
	test_grep "project_root" help && test_grep "drop_db_first" help && test_grep "url_base" help
'

test_done
