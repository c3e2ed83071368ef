#!/bin/sh
# Mail through a real SMTP server (a private aiosmtpd on loopback,
# lib-mail.sh): the password reset end to end in headless Chromium (the link
# works once, expires, a wrong or used one is refused, the page says the same
# whether or not the address has an account), the mail server down, the
# address change confirmed only by its link, the data download, the
# unsubscribe link, and account deletion (no sign-in, no attach, personal
# data gone from the database and the stats export, team totals kept).
# Screenshots stay in the trash directory, web/*.png.
test_description='mail: password reset, address change, deletion, data download, unsubscribe'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-mail.sh"

test_sandbox_up sb --no-daemons || exit 1
P=$PROJECT_DIR
mkdir -p web

web() {
	_prof=$1; shift
	PROJECT_URL=$PROJECT_URL WEB_OUT="$TRASH_DIRECTORY/web" WEB_PROFILE=$_prof \
		python3 "$WSEQ_SRCDIR/test/data/web/$@"
}
q() { test_sql_value "$1"; }
phash() { printf "%s%s" "$1" "$(printf "%s" "$2" | tr A-Z a-z)" | md5sum | cut -d" " -f1; }
errnum() { sed -n 's:.*<error_num>\(.*\)</error_num>.*:\1:p'; }
# jar J: curl with cookie jar J; get J PAGE; post J PAGE DATA (with the page's CSRF field)
get() { curl -sS --max-time 60 -o "$1.html" -w "%{http_code}" -b "$1.jar" -c "$1.jar" "$PROJECT_URL$2"; }
csrf_of() { sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$1.html" | head -n 1; }
post() {
	get "$1" "$2" >/dev/null && _c=$(csrf_of "$1") &&
	curl -sS --max-time 60 -o "$1.html" -w "%{http_code}" -b "$1.jar" -c "$1.jar" \
		--data "$3&csrf=$_c" "$PROJECT_URL${4:-$2}"
}
# post_to J FORM_PAGE ACTION DATA: the form of one page posted to another
post_to() { post "$1" "$2" "$4" "$3"; }
login() { test "$(post "$1" login "email_addr=$2&passwd=$3")" = 303; }
signed_in() { get "$1" account >/dev/null && grep -q "Your account" "$1.html"; }

mail_server_up || exit 1
mail_project "$P"

test_expect_success 'the private mail server runs; the project mails through it' '
	test_grep "<mail_server>smtp://127.0.0.1:$MAIL_PORT</mail_server>" "$P/config.xml" &&
	test "$(mail_count)" = 0
'

test_expect_success 'two volunteers join' '
	test "$(post ann join "user_name=Ann&email_addr=ann%40example.org&passwd=first+pass+1&passwd2=first+pass+1")" = 303 &&
	test "$(post bob join "user_name=Bob+Person&email_addr=bob%40example.org&passwd=bobs+pass+1&passwd2=bobs+pass+1")" = 303 &&
	test "$(q "select count(*) from user where email_addr like \"%@example.org\"")" = 2
'

test_expect_success 'the reset page says the same whether or not the address has an account' '
	web ann mail.py reset_ask ann@example.org known >known.out &&
	mail_wait_for 1 &&
	web ann mail.py reset_ask nobody@example.org unknown >unknown.out &&
	test_cmp known.out unknown.out &&
	test_grep "is on its way" known.out &&
	sleep 1 && test "$(mail_count)" = 1 &&
	grep "^to ann@example.org" "$MAIL_DIR/1.env"
'

test_expect_success 'the mailed message: its headers, and a link to the reset page' '
	mail_body 1 >m1 &&
	test_grep "^Date: [A-Z][a-z][a-z], [0-9][0-9] [A-Z][a-z][a-z] 20[0-9][0-9] [0-9:]* +0000" m1 &&
	test_grep "^Message-ID: <[0-9]*\.[0-9a-f]*@" m1 &&
	test_grep "^To: <ann@example.org>" m1 &&
	test_grep "^Subject: Your password" m1 &&
	link=$(mail_link 1 reset_passwd) && test -n "$link" && echo "$link" >link1 &&
	test "$(q "select count(*) from mail_token where kind=1 and used_time=0")" = 1 &&
	! grep -q "$(sed "s/.*t=//" link1)" "$P/log/web.log"
'

test_expect_success 'the link sets a new password once; every other session ends' '
	login annold ann%40example.org "first+pass+1" && signed_in annold &&
	web ann mail.py reset_follow "$(cat link1)" "second pass 2" &&
	! signed_in annold &&
	! login annx ann%40example.org "first+pass+1" &&
	login anny ann%40example.org "second+pass+2" &&
	test "$(q "select count(*) from mail_token where kind=1 and used_time>0")" = 1
'

test_expect_success 'the used link, a wrong one and an expired one are refused' '
	web ann mail.py refused "$(cat link1)" "used already" used &&
	web ann mail.py refused "${PROJECT_URL}reset_passwd?t=0123456789abcdef0123456789abcdef" "not valid" wrong &&
	web ann mail.py refused "${PROJECT_URL}reset_passwd?t=x%0d%0aSet-Cookie:%20a=b" "not valid" bad &&
	web ann mail.py reset_ask ann@example.org again >again.out &&
	mail_wait_for 2 && mail_link 2 reset_passwd >link2 &&
	q "update mail_token set expire_time=expire_time-7200 where used_time=0" &&
	web ann mail.py refused "$(cat link2)" "expired" expired &&
	code=$(curl -sS -o exp.html -w "%{http_code}" --data "t=$(sed "s/.*t=//" link2)&passwd=x1234567&passwd2=x1234567" "${PROJECT_URL}reset_passwd") &&
	test "$code" = 403 && login anyy ann%40example.org "second+pass+2"
'

test_expect_success 'the mail server down: a clear page, logged, no 500' '
	mail_server_down &&
	code=$(post ann get_passwd.php "email_addr=ann%40example.org") &&
	test "$code" = 503 && test_grep "could not send mail" ann.html &&
	code=$(post ann get_passwd.php "email_addr=nobody%40example.org") &&
	test "$code" = 503 && test_grep "could not send mail" ann.html &&
	test_grep "mail: cannot send through smtp://127.0.0.1:$MAIL_PORT" "$P/log/web.log" &&
	test_grep "mail: the mail server smtp://127.0.0.1:$MAIL_PORT does not answer" "$P/log/web.log" &&
	mail_server_up && mail_project "$P"
'

test_expect_success 'a new address changes only when its mailed link is followed; the old one is told' '
	n=$(mail_count) &&
	login ann ann%40example.org "second+pass+2" &&
	test "$(post ann edit_email_form.php "email_addr=Ann.New%40example.org&passwd=wrong")" = 400 &&
	test_grep "Wrong password" ann.html &&
	test "$(post ann edit_email_form.php "email_addr=bob%40example.org&passwd=second+pass+2")" = 400 &&
	test_grep "Another account has that address" ann.html &&
	test "$(post ann edit_email_form.php "email_addr=Ann.New%40example.org&passwd=second+pass+2")" = 200 &&
	mail_wait_for $((n + 1)) && n=$((n + 1)) &&
	grep "^to ann.new@example.org" "$MAIL_DIR/$n.env" &&
	test "$(q "select email_addr from user where name=\"Ann\"")" = ann@example.org &&
	link=$(mail_link $n confirm_email) && tok=${link##*t=} &&
	test "$(get ann "confirm_email?t=$tok")" = 200 && test_grep "ann.new@example.org" ann.html &&
	test "$(post ann "confirm_email?t=$tok" "t=$tok&passwd=wrong" confirm_email)" = 400 &&
	test "$(q "select email_addr from user where name=\"Ann\"")" = ann@example.org &&
	test "$(post ann "confirm_email?t=$tok" "t=$tok&passwd=second+pass+2" confirm_email)" = 200 &&
	test "$(q "select email_addr from user where name=\"Ann\"")" = ann.new@example.org &&
	test "$(q "select previous_email_addr from user where name=\"Ann\"")" = ann@example.org &&
	mail_wait_for $((n + 1)) && grep "^to ann@example.org" "$MAIL_DIR/$((n + 1)).env" &&
	test_grep "changed" "$MAIL_DIR/$((n + 1)).eml" &&
	test "$(get ann "confirm_email?t=$tok")" = 403 &&
	login annz ann.new%40example.org "second+pass+2" &&
	! login annw ann%40example.org "second+pass+2"
'

test_expect_success 'an address another account took after the link was sent is refused' '
	n=$(mail_count) &&
	login ann ann.new%40example.org "second+pass+2" &&
	test "$(post ann edit_email_form.php "email_addr=taken%40example.org&passwd=second+pass+2")" = 200 &&
	mail_wait_for $((n + 1)) && n=$((n + 1)) &&
	link=$(mail_link $n confirm_email) && tok=${link##*t=} &&
	q "insert into user (create_time, email_addr, name, authenticator) values (1, \"taken@example.org\", \"Tess\", \"tessauth\")" &&
	test "$(post ann "confirm_email?t=$tok" "t=$tok&passwd=second+pass+2" confirm_email)" = 409 &&
	test_grep "Another account has taken that address" ann.html &&
	test "$(q "select email_addr from user where name=\"Ann\"")" = ann.new@example.org &&
	q "delete from user where email_addr=\"taken@example.org\""
'

test_expect_success 'the data download holds the signed-in volunteer data, nobody else' '
	login ann ann.new%40example.org "second+pass+2" &&
	test "$(get ann account_data)" = 200 &&
	python3 -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" ann.html &&
	test_grep "<email_addr>ann.new@example.org</email_addr>" ann.html &&
	test_grep "<name>Ann</name>" ann.html &&
	test_grep "<total_credit>" ann.html && test_grep "<send_email>" ann.html &&
	! grep -q "bob" ann.html &&
	# every column of the row but the secrets that prove who she is
	! grep -q -e "<authenticator>" -e "<passwd_hash>" -e "<cross_project_id>" ann.html &&
	! grep -q "$(q "select authenticator from user where name=\"Ann\"")" ann.html &&
	test "$(get anon account_data)" = 403 && ! grep -q "example.org" anon.html
'

# the code of a user's unsubscribe link, as bin/mail_users writes it
opt_code() { printf "opt_out %s %s" "$1" "$(q "select authenticator from user where id=$1")" | md5sum | cut -d" " -f1; }

test_expect_success 'the unsubscribe link works once per user without signing in; a forged one is refused' '
	id=$(q "select id from user where name=\"Bob Person\"") &&
	other=$(q "select id from user where name=\"Ann\"") &&
	test "$(get anon "opt_out.php?userid=$id&code=$(opt_code $other)")" = 403 &&
	test "$(get anon "opt_out.php?userid=$id&code=0123456789abcdef0123456789abcdef")" = 403 &&
	test "$(q "select send_email from user where id=$id")" = 1 &&
	test "$(get anon "opt_out.php?userid=$id&code=$(opt_code $id)")" = 200 &&
	test_grep "You are unsubscribed" anon.html &&
	test "$(q "select send_email from user where id=$id")" = 0 &&
	test "$(q "select send_email from user where id=$other")" = 1 &&
	test "$(get anon "opt_out.php?userid=$id&code=$(opt_code $id)")" = 200 &&
	test_grep "unsubscribed already" anon.html
'

test_expect_success 'mail_users mails everyone who did not unsubscribe, each with a link of their own' '
	want=$(q "select count(*) from user where send_email=1") && test "$want" -ge 1 &&
	printf "News of the project:\nwe have a new app.\n" >news.txt &&
	test_project bin/mail_users --subject "Project news" --body_file "$TRASH_DIRECTORY/news.txt" --dry_run >dry.out &&
	test_grep "^mail_users: $want users would get the message" dry.out &&
	n=$(mail_count) &&
	test_project bin/mail_users --subject "Project news" --body_file "$TRASH_DIRECTORY/news.txt" >run.out &&
	test_grep "^mail_users: $want users mailed" run.out &&
	mail_wait_for $((n + want)) &&
	! grep -l "^to bob@example.org" "$MAIL_DIR"/*.env | sed "s/env$/eml/" | xargs grep -l "Project news" &&
	f=$(grep -l "^to ann.new@example.org" "$MAIL_DIR"/*.env | tail -n 1 | sed "s/env$/eml/") &&
	test_grep "we have a new app" "$f" &&
	link=$(mail_link "$(basename "$f" .eml)" opt_out.php) &&
	test "$(curl -sS -o optout.html -w "%{http_code}" "$link")" = 200 &&
	test_grep "You are unsubscribed" optout.html &&
	test "$(q "select send_email from user where email_addr=\"ann.new@example.org\"")" = 0 &&
	{ test_project bin/mail_users --subject "x" >usage.out 2>&1; test $? = 2; } &&
	test_grep "body_file" usage.out
'

test_expect_success 'mail_users with the mail server down stops and says where to resume' '
	q "update user set send_email=1 where email_addr=\"ann.new@example.org\"" &&
	cp "$P/config.xml" config.save &&
	sed -i "s|<mail_server>.*</mail_server>|<mail_server>smtp://127.0.0.1:1</mail_server>|" "$P/config.xml" &&
	test_must_fail test_project bin/mail_users --subject "x" --body_file "$TRASH_DIRECTORY/news.txt" >down.out 2>&1 &&
	test_grep "mail: cannot send through smtp://127.0.0.1:1" down.out &&
	test_grep "stopped: resume with --after_id" down.out &&
	cp config.save "$P/config.xml"
'

test_expect_success 'deletion: a team, a host with credit, and a stats export naming Bob' '
	id=$(q "select id from user where name=\"Bob Person\"") &&
	q "insert into team (id, create_time, userid, name, name_lc, total_credit, expavg_credit, nusers)
		values (50, 1700000000, $id, \"Crunchers\", \"crunchers\", 130, 13, 2);
	   update user set teamid=50, total_credit=100, expavg_credit=10, country=\"Norway\",
		url=\"http://bob.example.org/\", cross_project_id=\"bobcpid\" where id=$id;
	   update user set teamid=50, total_credit=30, expavg_credit=3 where name=\"Ann\";
	   insert into host (id, create_time, userid, rpc_time, total_credit, expavg_credit,
		domain_name, last_ip_addr, external_ip_addr, p_ncpus, os_name, host_cpid)
		values (70, 1700000000, $id, 1700000000, 100, 10, \"bobs-laptop\", \"10.1.2.3\",
		\"198.51.100.7\", 4, \"Linux\", \"bobhost\")" &&
	test_project bin/db_dump >dump.out &&
	zcat "$P/html/stats/user.gz" | grep -q "Bob Person"
'

test_expect_success 'deletion asks the password, then mails a link; only the link deletes' '
	n=$(mail_count) &&
	login bob bob%40example.org "bobs+pass+1" &&
	get bob account >/dev/null && test_grep "delete_account_request.php" bob.html &&
	test "$(post bob delete_account_request.php "passwd=wrong")" = 400 &&
	test "$(post bob delete_account_request.php "passwd=bobs+pass+1")" = 200 &&
	mail_wait_for $((n + 1)) && n=$((n + 1)) &&
	grep "^to bob@example.org" "$MAIL_DIR/$n.env" &&
	test "$(q "select name from user where email_addr=\"bob@example.org\"")" = "Bob Person" &&
	mail_link $n delete_account_confirm.php >dlink &&
	tok=$(sed "s/.*t=//" dlink) &&
	cp bob.jar bob2.jar &&
	q "select authenticator from user where name=\"Bob Person\"" >bob.auth &&
	test "$(post bob "delete_account_confirm.php?t=$tok" "t=$tok" delete_account_confirm.php)" = 200 &&
	test_grep "Account deleted" bob.html &&
	test "$(post bob "delete_account_confirm.php?t=$tok" "t=$tok" delete_account_confirm.php)" = 403
'

test_expect_success 'the deleted account cannot sign in or attach' '
	! login bobx bob%40example.org "bobs+pass+1" &&
	! signed_in bob2 &&
	test "$(curl -sS "${PROJECT_URL}lookup_account.php?email_addr=bob%40example.org&passwd_hash=$(phash "bobs pass 1" bob@example.org)" | errnum)" = -136 &&
	test "$(curl -sS "${PROJECT_URL}am_get_info.php?account_key=$(cat bob.auth)" | errnum)" = -136
'

test_expect_success 'its personal data is gone from the database; credit, host and team stay' '
	id=$(q "select id from host where id=70" ) && test "$id" = 70 &&
	uid=$(q "select userid from host where id=70") &&
	q "select concat_ws(\"|\", name, email_addr, passwd_hash, country, url, cross_project_id, postal_code)
		from user where id=$uid" >row &&
	test "$(cat row)" = "deleted|deleted_$uid@invalid|||||" &&
	! grep -q "$(cat bob.auth)" row &&
	test "$(q "select count(*) from user where authenticator=\"$(cat bob.auth)\"")" = 0 &&
	test "$(q "select count(*) from web_session where userid=$uid")" = 0 &&
	test "$(q "select count(*) from mail_token where userid=$uid")" = 0 &&
	test "$(q "select concat_ws(\"|\", domain_name, last_ip_addr, external_ip_addr, total_credit) from host where id=70")" = "|||100" &&
	test "$(q "select total_credit from user where id=$uid")" = 100 &&
	test "$(q "select concat(user.teamid, \" \", team.nusers, \" \", team.total_credit) from user join team on team.id=user.teamid where user.id=$uid")" = "50 2 130" &&
	test "$(q "select sum(total_credit) from user where teamid=50")" = 130
'

test_expect_success 'the next stats export shows the credit without the person' '
	test_project bin/db_dump >dump2.out &&
	zcat "$P/html/stats/user.gz" >user.xml && zcat "$P/html/stats/host.gz" >host.xml &&
	! grep -q -e "Bob Person" -e "bob@example" -e "bob.example.org" -e Norway -e bobcpid user.xml &&
	! grep -q -e "bobs-laptop" -e "10.1.2.3" -e "198.51.100.7" host.xml &&
	grep -q "<total_credit>100" user.xml && grep -q "<total_credit>100" host.xml
'

test_expect_success 'no password, token or key in the logs' '
	! grep -r -e "bobs pass" -e "second pass" -e "$(sed "s/.*t=//" dlink)" -e "$(sed "s/.*t=//" link1)" "$P/log/"
'

test_done
