#!/bin/sh
# make_project as upstream BOINC admins call it: NAME 'Long Name';
# --test_app, which installs the sample app registered and signed so that
# work can be created at once; and --import_keys, which brings over an
# upstream project's keys (made and used by the real BOINC library,
# libboinc_crypt, here) so that the signatures its volunteers' clients
# trust stay valid.
test_description='make_project takes upstream forms: LONG_NAME, --test_app, --import_keys'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# The BOINC library is the judge: keys as upstream's crypt_prog makes them,
# signatures as its sign_file makes and check_file_signature2 checks them.
if test -f /usr/include/boinc/crypt.h && command -v g++ >/dev/null 2>&1 &&
   g++ -I/usr/include/boinc -o boinc_genkey "$WSEQ_SRCDIR/test/data/crypt/boinc_genkey.cpp" \
	-lboinc_crypt -lboinc -lcrypto >build.log 2>&1 &&
   g++ -I/usr/include/boinc -o boinc_check "$WSEQ_SRCDIR/test/data/crypt/boinc_check.cpp" \
	-lboinc_crypt -lboinc -lcrypto >>build.log 2>&1
then
	have_boinc=yes
else
	have_boinc=
fi
boinc_expect() {
	if test -z "$have_boinc"; then
		test_skip "$1" "BOINC client library (libboinc-app-dev) or g++ not available"
	else
		test_expect_success "$@"
	fi
}

test_mariadb_up

mp() {
	dir=$1; shift
	make_project --project_root "$TRASH_DIRECTORY/$dir" --url_base http://127.0.0.1:8080/ \
		--db_name "$dir" --db_user "$WSEQ_DB_USER" --db_passwd "$WSEQ_DB_PASSWD" \
		--db_socket "$WSEQ_DB_SOCKET" --uldl_dir_fanout 16 "$@"
}
q() { test_sql "$1" -e "$2"; }
# The app versions' xml_doc, its newlines back (the client prints them as \n).
avxml() { q "$1" "select xml_doc from app_version" | sed 's/\\n/\n/g'; }

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

boinc_expect '--import_keys: an upstream key pair signs exactly as before; its public text is kept' '
	mkdir old && ./boinc_genkey old/code_sign_private old/code_sign_public &&
	head -c 100000 /dev/urandom >app &&
	./boinc_genkey --sign app old/code_sign_private >app.sig.upstream &&
	mp p6 --import_keys "$TRASH_DIRECTORY/old" --test_app p6 >out 2>err &&
	test_grep "imported the code_sign key pair" out &&
	test_grep "made a new upload key pair" out &&
	test_cmp old/code_sign_public p6/keys/code_sign_public &&
	test "$(stat -c %a p6/keys/code_sign_private)" = 600 &&
	sign_executable app p6/keys/code_sign_private >app.sig.ours &&
	test_cmp app.sig.upstream app.sig.ours &&
	./boinc_check app app.sig.ours old/code_sign_public
'

boinc_expect '--import_keys: the app versions update_versions signs pass the client check with the old key' '
	avxml p6 >avxml &&
	sed -n "/<file_signature>/,/<\/file_signature>/p" avxml | sed "1d;\$d" >sig &&
	test -s sig &&
	./boinc_check p6/apps/wseq_sample/wseq_sample_1.00_*/wseq_sample_1.00_* sig old/code_sign_public
'

boinc_expect '--import_keys with only the public key: update_versions takes FILE.sig, checked' '
	mkdir offline && cp old/code_sign_public offline/ &&
	mp p7 --import_keys "$TRASH_DIRECTORY/offline" --test_app p7 >out 2>err;
	test_grep "imported the code signing public key" out &&
	test_must_fail test -e p7/keys/code_sign_private &&
	test_grep "no wseq_sample_1.00_.*\.sig beside it" err &&
	test "$(q p7 "select count(*) from app_version")" = 0 &&
	v=$(echo p7/apps/wseq_sample/wseq_sample_1.00_*) && f=$(basename "$v") &&
	./boinc_genkey --sign app old/code_sign_private >"$v/$f.sig" &&
	(cd p7 && test_must_fail bin/update_versions) 2>err &&
	test_grep "not a signature of this file" err &&
	./boinc_genkey --sign "$v/$f" old/code_sign_private >"$v/$f.sig" &&
	(cd p7 && bin/update_versions) >out 2>err &&
	test "$(q p7 "select count(*) from app_version")" = 1 &&
	avxml p7 >avxml &&
	sed -n "/<file_signature>/,/<\/file_signature>/p" avxml | sed "1d;\$d" >sig &&
	test_cmp "$v/$f.sig" sig
'

boinc_expect '--import_keys refuses a private key that is not its public key'"'"'s, or damaged' '
	mkdir other mixed && ./boinc_genkey other/code_sign_private other/code_sign_public &&
	cp old/code_sign_private mixed/ && cp other/code_sign_public mixed/ &&
	test_must_fail mp p8 --import_keys "$TRASH_DIRECTORY/mixed" p8 2>err &&
	test_grep "is not the public half of" err &&
	mkdir bad && sed "5s/./0/; 6s/./f/" old/code_sign_private >bad/code_sign_private &&
	test_must_fail mp p9 --import_keys "$TRASH_DIRECTORY/bad" p9 2>err &&
	test_grep "not a consistent rsa private key\|not a BOINC private key" err &&
	mkdir empty &&
	test_must_fail mp p10 --import_keys "$TRASH_DIRECTORY/empty" p10 2>err &&
	test_grep "neither code_sign_private nor code_sign_public" err
'

test_done
