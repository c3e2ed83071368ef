#!/bin/sh
test_description='the account RPCs: the real client gets the project config, creates and looks up an account; every bad request gets the error number the client knows and writes nothing'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_sandbox_up sb --no-daemons || exit 1

# An RPC through Apache: rpc PAGE QUERY (GET), rpc_post PAGE BODY.
rpc() { curl -sS --max-time 60 "${PROJECT_URL}$1.php?$2"; }
rpc_post() { printf "%s" "$2" | curl -sS --max-time 60 --data-binary @- "${PROJECT_URL}$1.php"; }
errnum() { sed -n 's:.*<error_num>\(.*\)</error_num>.*:\1:p'; }
auth_of() { sed -n 's:.*<authenticator>\(.*\)</authenticator>.*:\1:p'; }
# passwd_hash as the client computes it: md5(password + lower-cased e-mail address)
phash() { printf "%s%s" "$1" "$(printf "%s" "$2" | tr A-Z a-z)" | md5sum | cut -d" " -f1; }
nusers() { test_sql_value "select count(*) from user"; }
# set_config NAME VALUE|"" : a <config> element of config.xml (empty value: removed)
set_config() {
	sed -i "/<$1>.*<\/$1>/d; /<$1\/>/d" "$PROJECT_DIR/config.xml" &&
	if [ -n "$2" ]; then
		sed -i "s|<config>|<config>\n    <$1>$2</$1>|" "$PROJECT_DIR/config.xml"
	fi
}
# expect_err NUM OUTPUT: the reply is an error document with that number
expect_err() {
	_en=$(printf "%s" "$2" | errnum)
	[ "$_en" = "$1" ] || { say "expected error $1, got: $2"; return 1; }
	printf "%s" "$2" | python3 -c "import sys, xml.dom.minidom as m; m.parseString(sys.stdin.buffer.read())"
}

test_expect_success 'boinccmd --get_project_config shows the project and its settings' '
	test_boinc_client_up c1 &&
	set_config min_passwd_length 8 &&
	test_boinccmd c1 --get_project_config "$PROJECT_URL" >config.out 2>&1 &&
	test_grep "^name: wseq$" config.out &&
	test_grep "^min_passwd_length: 8$" config.out &&
	rpc get_project_config >config.xml &&
	test_grep "<master_url>$PROJECT_URL</master_url>" config.xml &&
	test_grep "<platform_name>" config.xml || true
'

test_expect_success 'terms of use: the config carries them (escaped), the client shows they exist' '
	printf "Be nice.\nNo <cheating> & no bots.\n" >"$PROJECT_DIR/terms_of_use.txt" &&
	rpc get_project_config >tou.xml &&
	test_grep "<terms_of_use>Be nice." tou.xml &&
	test_grep "No &lt;cheating&gt; &amp; no bots." tou.xml &&
	python3 -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" tou.xml &&
	rm "$PROJECT_DIR/terms_of_use.txt" &&
	! rpc get_project_config | grep -q terms_of_use
'

test_expect_success 'boinccmd --create_account returns an authenticator, stored with a slow hash only' '
	test_boinccmd c1 --create_account "$PROJECT_URL" Alice@Example.org "s3cret&Pw" "Alice A" >create.out 2>&1 &&
	cat create.out &&
	auth=$(sed -n "s/^account key: //p" create.out) &&
	test -n "$auth" &&
	test "$(test_sql_value "select authenticator from user where email_addr=\"alice@example.org\"")" = "$auth" &&
	test "$(test_sql_value "select name from user where email_addr=\"alice@example.org\"")" = "Alice A" &&
	stored=$(test_sql_value "select passwd_hash from user where email_addr=\"alice@example.org\"") &&
	case "$stored" in "\$y\$"*) ;; *) false ;; esac &&
	! printf "%s" "$stored" | grep -q "$(phash "s3cret&Pw" alice@example.org)" &&
	test "$(test_sql_value "select length(cross_project_id) from user where email_addr=\"alice@example.org\"")" = 32 &&
	echo "$auth" >alice.auth
'

test_expect_success 'boinccmd --lookup_account returns the same authenticator, whatever the case of the address' '
	test_boinccmd c1 --lookup_account "$PROJECT_URL" ALICE@example.ORG "s3cret&Pw" >lookup.out 2>&1 &&
	test "$(sed -n "s/^account key: //p" lookup.out)" = "$(cat alice.auth)"
'

test_expect_success 'creating the same account again is idempotent (same key, no new row)' '
	n=$(nusers) &&
	out=$(rpc create_account "email_addr=alice%40example%2Eorg&passwd_hash=$(phash "s3cret&Pw" alice@example.org)&user_name=Alice%20A") &&
	test "$(printf "%s" "$out" | auth_of)" = "$(cat alice.auth)" &&
	test "$(nusers)" = "$n"
'

test_expect_success 'the account key works as a password (md5(authenticator + address))' '
	out=$(rpc lookup_account "email_addr=alice%40example.org&passwd_hash=$(phash "$(cat alice.auth)" alice@example.org)") &&
	test "$(printf "%s" "$out" | auth_of)" = "$(cat alice.auth)"
'

test_expect_success 'a duplicate address in another case with another password: -137, nothing written' '
	n=$(nusers) &&
	out=$(rpc create_account "email_addr=ALICE%40EXAMPLE.ORG&passwd_hash=$(phash other alice@example.org)&user_name=Mallory") &&
	expect_err -137 "$out" &&
	test "$(nusers)" = "$n" &&
	test "$(test_sql_value "select name from user where email_addr=\"alice@example.org\"")" = "Alice A" &&
	test_boinccmd c1 --create_account "$PROJECT_URL" alice@example.org wrongpass Mallory >dup.out 2>&1;
	test_grep "database lookup not unique" dup.out
'

test_expect_success 'a wrong password: -206; an unknown address: -136' '
	expect_err -206 "$(rpc lookup_account "email_addr=alice%40example.org&passwd_hash=$(phash nope alice@example.org)")" &&
	expect_err -136 "$(rpc lookup_account "email_addr=bob%40example.org&passwd_hash=$(phash x bob@example.org)")" &&
	test_boinccmd c1 --lookup_account "$PROJECT_URL" alice@example.org nope >bad.out 2>&1;
	test_grep "bad password" bad.out &&
	test_boinccmd c1 --lookup_account "$PROJECT_URL" bob@example.org x >unknown.out 2>&1;
	test_grep "no database rows found" unknown.out
'

test_expect_success 'a lookup without a password only says whether the account exists' '
	rpc lookup_account "email_addr=alice%40example.org" >probe.out &&
	test_grep "<success/>" probe.out &&
	! test_grep "authenticator" probe.out &&
	expect_err -136 "$(rpc lookup_account "email_addr=nobody%40example.org")"
'

test_expect_success 'malformed address: -205; bad user names: -188; nothing written' '
	n=$(nusers) &&
	h=$(phash password1 x) &&
	for e in "no-at-sign" "a%40b" "a%40%40b.org" "%40example.org" "a%20b%40example.org" "a%40example."; do
		expect_err -205 "$(rpc create_account "email_addr=$e&passwd_hash=$h&user_name=Bob")" || return 1
	done &&
	for name in "%20Bob" "Bob%20" "12345" "a%01b"; do
		expect_err -188 "$(rpc create_account "email_addr=bob%40example.org&passwd_hash=$h&user_name=$name")" || return 1
	done &&
	test "$(nusers)" = "$n"
'

test_expect_success 'missing parameters: -1 naming the parameter; nothing written' '
	n=$(nusers) &&
	h=$(phash password1 bob@example.org) &&
	out=$(rpc create_account "passwd_hash=$h&user_name=Bob") && expect_err -1 "$out" &&
	printf "%s" "$out" | test_grep "email_addr" &&
	out=$(rpc create_account "email_addr=bob%40example.org&user_name=Bob") && expect_err -1 "$out" &&
	printf "%s" "$out" | test_grep "passwd_hash" &&
	expect_err -188 "$(rpc create_account "email_addr=bob%40example.org&passwd_hash=$h&user_name=")" &&
	expect_err -1 "$(rpc create_account "email_addr=bob%40example.org&passwd_hash=abc&user_name=Bob")" &&
	expect_err -1 "$(rpc lookup_account "")" &&
	expect_err -1 "$(rpc am_get_info "")" &&
	test "$(nusers)" = "$n"
'

test_expect_success 'a 1 MB parameter: a clear error, nothing written, the server still answers' '
	n=$(nusers) &&
	big=$(head -c 1048576 /dev/zero | tr "\0" a) &&
	h=$(phash password1 bob@example.org) &&
	expect_err -188 "$(rpc_post create_account "email_addr=bob%40example.org&passwd_hash=$h&user_name=$big")" &&
	expect_err -205 "$(rpc_post create_account "email_addr=$big%40example.org&passwd_hash=$h&user_name=Bob")" &&
	expect_err -136 "$(rpc_post lookup_account "email_addr=$big&passwd_hash=$h")" &&
	huge=$(head -c 3000000 /dev/zero | tr "\0" a) &&
	expect_err -1 "$(rpc_post create_account "email_addr=bob%40example.org&passwd_hash=$h&user_name=$huge")" &&
	code=$(python3 -c "
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1] + \"lookup_account.php?email_addr=\" + \"a\" * 1048576).status)
except urllib.error.HTTPError as e:
    print(e.code)" "$PROJECT_URL") &&
	say "a 1 MB query string: HTTP $code from Apache" &&
	test "$code" -ge 400 &&
	test "$(nusers)" = "$n" &&
	rpc get_project_config | test_grep "<project_config>"
'

test_expect_success 'account creation disabled: -208 for the client, and the config says so' '
	n=$(nusers) &&
	set_config disable_account_creation 1 &&
	h=$(phash password1 bob@example.org) &&
	expect_err -208 "$(rpc create_account "email_addr=bob%40example.org&passwd_hash=$h&user_name=Bob")" &&
	rpc get_project_config | test_grep "<account_creation_disabled/>" &&
	test_boinccmd c1 --create_account "$PROJECT_URL" bob@example.org password1 Bob >dis.out 2>&1;
	test_grep "account creation disabled" dis.out &&
	set_config disable_account_creation "" &&
	set_config disable_account_creation_rpc 1 &&
	expect_err -208 "$(rpc create_account "email_addr=bob%40example.org&passwd_hash=$h&user_name=Bob")" &&
	rpc get_project_config | test_grep "<client_account_creation_disabled/>" &&
	set_config disable_account_creation_rpc "" &&
	test "$(nusers)" = "$n"
'

test_expect_success 'an invitation code: none given -208, a wrong one -209, the right one creates' '
	n=$(nusers) &&
	set_config invite_code "letmein" &&
	h=$(phash password1 bob@example.org) &&
	rpc get_project_config | test_grep "<invite_code_required/>" &&
	expect_err -208 "$(rpc create_account "email_addr=bob%40example.org&passwd_hash=$h&user_name=Bob")" &&
	expect_err -209 "$(rpc create_account "email_addr=bob%40example.org&passwd_hash=$h&user_name=Bob&invite_code=letmeout")" &&
	test "$(nusers)" = "$n" &&
	rpc create_account "email_addr=bob%40example.org&passwd_hash=$h&user_name=Bob&invite_code=letmein" | auth_of >bob.auth &&
	test -s bob.auth &&
	test "$(nusers)" = "$((n + 1))" &&
	set_config invite_code "" &&
	! grep -r "letmein" "$PROJECT_DIR/log/"
'

test_expect_success 'the project stopped (stop_web): -183 for the RPCs, the config still a project_config' '
	touch "$PROJECT_DIR/stop_web" &&
	rpc get_project_config >stopped.xml &&
	test_grep "<project_config>" stopped.xml &&
	test_grep "<error_num>-183</error_num>" stopped.xml &&
	expect_err -183 "$(rpc lookup_account "email_addr=alice%40example.org")" &&
	rm "$PROJECT_DIR/stop_web"
'

test_expect_success 'the database stopped: -138 for create and lookup, the config still served' '
	n=$(nusers) &&
	pid=$(cat "$TRASH_DIRECTORY/sb/mysql/mariadbd.pid") && kill "$pid" &&
	test_wait_for 60 sh -c "! kill -0 $pid 2>/dev/null" &&
	rpc get_project_config >nodb.xml &&
	test_grep "<name>wseq</name>" nodb.xml &&
	expect_err -138 "$(rpc lookup_account "email_addr=alice%40example.org")" &&
	expect_err -138 "$(rpc create_account "email_addr=carol%40example.org&passwd_hash=$(phash password1 carol@example.org)&user_name=Carol")" &&
	wseq_sandbox up --no-daemons "$TRASH_DIRECTORY/sb" 2>/dev/null &&
	test "$(nusers)" = "$n"
'

test_expect_success 'the account tool: create with submit rights, look up, check the password' '
	printf "carols pass\n" >pw &&
	test_project bin/account create --email Carol@Example.org --name "Carol C" --password_file "$TRASH_DIRECTORY/pw" --submit_rights all >carol.out &&
	key=$(sed -n "s/^account_key //p" carol.out) && test -n "$key" &&
	test "$(test_sql_value "select authenticator from user where email_addr=\"carol@example.org\"")" = "$key" &&
	test "$(test_sql_value "select submit_all from user_submit us join user u on u.id=us.user_id where u.email_addr=\"carol@example.org\"")" = 1 &&
	test_project bin/account lookup --email carol@example.org --password_file "$TRASH_DIRECTORY/pw" >look.out &&
	test_grep "^name Carol C$" look.out && ! test_grep "account_key" look.out &&
	out=$(rpc lookup_account "email_addr=carol%40example.org&passwd_hash=$(phash "carols pass" carol@example.org)") &&
	test "$(printf "%s" "$out" | auth_of)" = "$key" &&
	printf "wrong one\n" >bad &&
	test_must_fail test_project bin/account lookup --email carol@example.org --password_file "$TRASH_DIRECTORY/bad" 2>err &&
	test_grep "Invalid password" err
'

test_expect_success 'the account tool refuses a short password and an unknown app, writing nothing' '
	n=$(nusers) &&
	printf "short\n" >spw &&
	test_must_fail test_project bin/account create --email dan@example.org --name Dan --password_file "$TRASH_DIRECTORY/spw" 2>err &&
	test_grep "at least 8 characters" err &&
	test_must_fail test_project bin/account grant --email carol@example.org --submit_rights nosuchapp 2>err &&
	test_grep "no app named nosuchapp" err &&
	test "$(nusers)" = "$n"
'

test_expect_success 'the account tool: a new password works, the old one not; rights revoked' '
	printf "brand new pass\n" >pw2 &&
	test_project bin/account password --email carol@example.org --password_file "$TRASH_DIRECTORY/pw2" &&
	expect_err -206 "$(rpc lookup_account "email_addr=carol%40example.org&passwd_hash=$(phash "carols pass" carol@example.org)")" &&
	rpc lookup_account "email_addr=carol%40example.org&passwd_hash=$(phash "brand new pass" carol@example.org)" | test_grep "<authenticator>" &&
	test_project bin/account revoke --email carol@example.org &&
	test "$(test_sql_value "select count(*) from user_submit us join user u on u.id=us.user_id where u.email_addr=\"carol@example.org\"")" = 0
'

test_expect_success 'teams: founded with the tool, joined, left; found by team_lookup; a duplicate name (any case) refused' '
	test_project bin/account team_create --email carol@example.org --name "Rock & Roll <Crunchers>" >team.out &&
	tid=$(test_sql_value "select id from team") &&
	test "$(test_sql_value "select concat(nusers, \" \", userid) from team")" = "1 $(test_sql_value "select id from user where email_addr=\"carol@example.org\"")" &&
	test_must_fail test_project bin/account team_create --email alice@example.org --name "ROCK & roll <crunchers>" 2>err &&
	test_grep "already a team" err &&
	test_project bin/account join --email alice@example.org --team "rock & roll <crunchers>" &&
	test "$(test_sql_value "select nusers from team")" = 2 &&
	rpc team_lookup "team_name=roll&format=xml" >tl.xml &&
	test_grep "<name>Rock &amp; Roll &lt;Crunchers&gt;</name>" tl.xml &&
	rpc team_lookup "team_id=$tid" | test_grep "<id>$tid</id>" &&
	rpc team_lookup "team_name=%25" | test_grep -v "<team>" &&
	test_project bin/account join --email alice@example.org --team "" &&
	test "$(test_sql_value "select nusers from team")" = 1 &&
	test "$(test_sql_value "select teamid from user where email_addr=\"alice@example.org\"")" = 0
'

test_expect_success 'account managers: am_get_info and am_set_info with the account key' '
	rpc am_get_info "account_key=$(cat alice.auth)" >info.xml &&
	test_grep "<name>Alice+A</name>" info.xml &&
	test_grep "<weak_auth>[0-9]*_[0-9a-f]\{32\}</weak_auth>" info.xml &&
	expect_err -136 "$(rpc am_get_info "account_key=nosuchkey")" &&
	rpc am_set_info "account_key=$(cat alice.auth)&name=Alice%20B&country=Norway&teamid=$(test_sql_value "select id from team")" | test_grep "<success/>" &&
	test "$(test_sql_value "select concat(name, \"/\", country, \"/\", teamid > 0) from user where email_addr=\"alice@example.org\"")" = "Alice B/Norway/1" &&
	expect_err -112 "$(rpc am_set_info "account_key=$(cat alice.auth)&project_prefs=%3Cbroken")" &&
	expect_err -188 "$(rpc am_set_info "account_key=$(cat alice.auth)&name=%20")" &&
	expect_err -137 "$(rpc am_set_info "account_key=$(cat alice.auth)&email_addr=carol%40example.org&password_hash=$(phash x carol@example.org)")" &&
	rpc show_user "userid=$(test_sql_value "select id from user where email_addr=\"alice@example.org\"")&format=xml" >su.xml &&
	test_grep "<name>Alice B</name>" su.xml && ! test_grep "<host>" su.xml &&
	rpc show_user "auth=$(cat alice.auth)&format=xml" | test_grep "<venue>"
'

test_expect_success 'password guesses are throttled by address; the limit passes with its window' '
	set_config login_failures_max 3 &&
	test_sql_value "delete from auth_throttle" &&
	for i in 1 2 3; do
		expect_err -206 "$(rpc lookup_account "email_addr=alice%40example.org&passwd_hash=$(phash guess$i alice@example.org)")" || return 1
	done &&
	out=$(rpc lookup_account "email_addr=alice%40example.org&passwd_hash=$(phash "s3cret&Pw" alice@example.org)") &&
	expect_err -206 "$out" &&
	printf "%s" "$out" | test_grep "Too many attempts" &&
	test_grep "\[127.0.0.1\] sign-in refused: 4 attempts from this address" "$PROJECT_DIR/log/web.log" &&
	test_sql_value "update auth_throttle set window_start=window_start-1000" &&
	rpc lookup_account "email_addr=alice%40example.org&passwd_hash=$(phash "s3cret&Pw" alice@example.org)" | test_grep "<authenticator>" &&
	set_config login_failures_max ""
'

# from SRC (a loopback address of its own, seen by Apache as the client's):
# N requests of PAGE, all at once, query i=K&ARGS; the replies one a line
at_once() {
	_src=$1 _n=$2 _page=$3 _args=$4
	rm -rf once.d && mkdir once.d &&
	seq 1 "$_n" | xargs -P "$_n" -I{} curl -sS --max-time 120 --interface "$_src" \
		-o "once.d/{}" "${PROJECT_URL}$_page.php?i={}&$_args" &&
	for _f in once.d/*; do tr -d "\n" <"$_f"; echo; done
}
count() { grep -c "$1" || true; }
# the web program's FastCGI processes of this project; warm: two of them
# up (mod_fcgid starts more only as load comes), so guesses run side by side
web_procs() { pgrep -f "$PROJECT_DIR/cgi-bin/web" | wc -l; }
warm() { at_once 127.0.0.99 40 get_project_config "" >/dev/null; test "$(web_procs)" -ge 2; }

test_expect_success '40 wrong passwords at once: at most the limit are checked, the rest refused' '
	set_config login_failures_max 10 &&
	test_sql_value "delete from auth_throttle" &&
	test_wait_for 120 warm &&
	at_once 127.0.0.2 40 lookup_account "email_addr=alice%40example.org&passwd_hash=$(phash wrong alice@example.org)" >par.out &&
	test_line_count = 40 par.out &&
	checked=$(count "Invalid password" <par.out) && refused=$(count "Too many attempts" <par.out) &&
	say "40 guesses at once: $checked checked, $refused refused" &&
	test "$checked" -le 10 && test $((checked + refused)) = 40 &&
	expect_err -206 "$(curl -sS --interface 127.0.0.2 "${PROJECT_URL}lookup_account.php?email_addr=carol%40example.org&passwd_hash=$(phash "brand new pass" carol@example.org)")"
'

test_expect_success 'create_account is no password oracle: a wrong password for an existing address counts, past the limit the right one is refused too' '
	users=$(nusers) &&
	set_config login_failures_max 10 &&
	test_sql_value "delete from auth_throttle" &&
	at_once 127.0.0.3 40 create_account "email_addr=alice%40example.org&passwd_hash=$(phash wrong alice@example.org)&user_name=Mallory" >cpar.out &&
	test_line_count = 40 cpar.out &&
	checked=$(count "<error_num>-137</error_num>" <cpar.out) && refused=$(count "Too many attempts" <cpar.out) &&
	say "40 create_account guesses at once: $checked checked, $refused refused" &&
	test "$checked" -le 10 && test $((checked + refused)) = 40 &&
	! grep -q "<authenticator>" cpar.out &&
	right="email_addr=alice%40example.org&passwd_hash=$(phash "s3cret&Pw" alice@example.org)&user_name=Alice%20A" &&
	expect_err -206 "$(curl -sS --interface 127.0.0.3 "${PROJECT_URL}create_account.php?$right")" &&
	expect_err -206 "$(rpc create_account "$right")" &&
	test "$(nusers)" = "$users" &&
	test_sql_value "update auth_throttle set window_start=window_start-1000" &&
	rpc create_account "$right" >again.out &&
	test "$(auth_of <again.out)" = "$(cat alice.auth)"
'

test_expect_success 'guesses at one account from many addresses: the account is throttled, other accounts not' '
	set_config login_failures_max 5 &&
	test_sql_value "delete from auth_throttle" &&
	for a in 4 5 6 7 8 9; do
		curl -sS --interface 127.0.0.$a "${PROJECT_URL}lookup_account.php?email_addr=ALICE%40example.org&passwd_hash=$(phash guess$a alice@example.org)" >one.out &&
		grep -q -- "<error_num>-206</error_num>" one.out || return 1
	done &&
	out=$(rpc lookup_account "email_addr=alice%40example.org&passwd_hash=$(phash "s3cret&Pw" alice@example.org)") &&
	expect_err -206 "$out" && printf "%s" "$out" | test_grep "Too many attempts" &&
	test_grep "sign-in refused: 6 attempts on one account" "$PROJECT_DIR/log/web.log" &&
	rpc lookup_account "email_addr=carol%40example.org&passwd_hash=$(phash "brand new pass" carol@example.org)" | test_grep "<authenticator>"
'

test_expect_success 'account keys: wrong ones at once to am_get_info are throttled, then the right one too; successes do not count' '
	set_config login_failures_max 10 &&
	test_sql_value "delete from auth_throttle" &&
	for i in $(seq 1 15); do
		rpc am_get_info "account_key=$(cat alice.auth)" | test_grep "<success/>" || return 1
	done &&
	at_once 127.0.0.10 40 am_get_info "account_key=0123456789abcdef0123456789abcdef" >kpar.out &&
	checked=$(count "<error_num>-136</error_num>" <kpar.out) && refused=$(count "Too many attempts" <kpar.out) &&
	say "40 key guesses at once: $checked checked, $refused refused" &&
	test "$checked" -le 10 && test $((checked + refused)) = 40 &&
	for p in am_get_info am_set_info; do
		expect_err -206 "$(curl -sS --interface 127.0.0.10 "${PROJECT_URL}$p.php?account_key=$(cat alice.auth)")" || return 1
	done &&
	expect_err -206 "$(curl -sS --interface 127.0.0.10 "${PROJECT_URL}show_user.php?format=xml&auth=$(cat alice.auth)")" &&
	rpc am_get_info "account_key=$(cat alice.auth)" | test_grep "<success/>" &&
	set_config login_failures_max ""
'

test_expect_success 'am_set_info joins no team that takes no members, and leaves the account as it was' '
	tid=$(test_sql_value "select id from team") &&
	uid=$(test_sql_value "select id from user where email_addr=\"alice@example.org\"") &&
	rpc am_set_info "account_key=$(cat alice.auth)&teamid=0" | test_grep "<success/>" &&
	test_sql_value "update team set joinable=0 where id=$tid" &&
	n=$(test_sql_value "select nusers from team where id=$tid") &&
	out=$(rpc am_set_info "account_key=$(cat alice.auth)&teamid=$tid&country=Chile") &&
	expect_err -1 "$out" && printf "%s" "$out" | test_grep "not taking new members" &&
	test "$(test_sql_value "select concat(teamid, \"/\", country) from user where id=$uid")" = "0/Norway" &&
	test "$(test_sql_value "select nusers from team where id=$tid")" = "$n" &&
	test_sql_value "update team set joinable=1 where id=$tid"
'

test_expect_success 'am_set_info refuses preferences with a DOCTYPE, entities or a declaration, and stores none of them' '
	uid=$(test_sql_value "select id from user where email_addr=\"alice@example.org\"") &&
	rpc am_set_info "account_key=$(cat alice.auth)&global_prefs=%3Cglobal_preferences%3E%3Cdisk_max_used_gb%3E5%3C%2Fdisk_max_used_gb%3E%3C%2Fglobal_preferences%3E" | test_grep "<success/>" &&
	for doc in \
		"%3C%21DOCTYPE%20x%20%5B%3C%21ENTITY%20e%20%22boom%22%3E%5D%3E%3Cglobal_preferences%3E%26e%3B%3C%2Fglobal_preferences%3E" \
		"%3C%21DOCTYPE%20global_preferences%3E%3Cglobal_preferences%2F%3E" \
		"%3C%3Fxml%20version%3D%221.0%22%3F%3E%3Cglobal_preferences%2F%3E" \
		"%3Cglobal_preferences%2F%3E%3C%21--%20x%20--%3E"; do
		out=$(rpc am_set_info "account_key=$(cat alice.auth)&global_prefs=$doc") &&
		expect_err -112 "$out" || return 1
	done &&
	test "$(test_sql_value "select global_prefs from user where id=$uid")" = "<global_preferences><disk_max_used_gb>5</disk_max_used_gb></global_preferences>" &&
	rpc am_get_info "account_key=$(cat alice.auth)" | python3 -c "import sys, xml.dom.minidom as m; m.parseString(sys.stdin.buffer.read())"
'

test_expect_success 'no secret in the logs: no password hash, no authenticator, no address' '
	! grep -r "$(cat alice.auth)" "$PROJECT_DIR/log/" &&
	! grep -r "$(phash "s3cret&Pw" alice@example.org)" "$PROJECT_DIR/log/" &&
	! grep -r "alice@example.org" "$PROJECT_DIR/log/"
'

test_done
