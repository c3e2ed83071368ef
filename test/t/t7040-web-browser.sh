#!/bin/sh
# The volunteers' pages in a real browser: headless Chromium (Debian's,
# through chromedriver) opens the home page, joins through the form, signs
# out and in, sees its credit after a validated result, founds and joins a
# team. Screenshots stay in the test's trash directory, web/*.png.
test_description='the web pages in headless Chromium: join, sign in, credit, teams; escaping and CSRF'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-daemons.sh"

daemons_setup || exit 1
mkdir -p web

# web PROFILE STEP ARGS...: one step of test/data/web/scenario.py in a browser
# whose cookies live in profile PROFILE (two profiles: two people).
web() {
	_prof=$1; shift
	PROJECT_URL=$PROJECT_URL WEB_OUT="$TRASH_DIRECTORY/web" WEB_PROFILE=$_prof \
		python3 "$WSEQ_SRCDIR/test/data/web/scenario.py" "$@"
}
nusers() { q "select count(*) from user"; }
EVE='<script>alert(1)</script>'

test_expect_success 'the home page in a real browser says how to join and names the scheduler' '
	web eve home
'

test_expect_success 'joining through the form; a name that looks like a script is shown as text' '
	n=$(nusers) &&
	web eve join "$EVE" eve@example.org "correct horse 1" &&
	test "$(nusers)" = $((n + 1)) &&
	test "$(q "select name from user where email_addr=\"eve@example.org\"")" = "$EVE" &&
	case "$(q "select passwd_hash from user where email_addr=\"eve@example.org\"")" in "\$y\$"*) ;; *) false ;; esac
'

test_expect_success 'signing out, a wrong password refused, signing in again' '
	web eve logout &&
	web eve login eve@example.org "not my password" wrong &&
	web eve login EVE@example.org "correct horse 1"
'

# curl with a cookie jar, as a browser without the site's pages would post
jar_post() { curl -s -o "$1.html" -w "%{http_code}" -b "$TRASH_DIRECTORY/jar" -c "$TRASH_DIRECTORY/jar" --data "$2" "$PROJECT_URL$1"; }

test_expect_success 'a form posted without its CSRF token, or with a wrong one, is refused and writes nothing' '
	n=$(nusers) &&
	code=$(jar_post join "user_name=Mallory&email_addr=m%40example.org&passwd=password1&passwd2=password1") &&
	test "$code" = 403 &&
	code=$(jar_post join "user_name=Mallory&email_addr=m%40example.org&passwd=password1&passwd2=password1&csrf=0123456789abcdef0123456789abcdef") &&
	test "$code" = 403 &&
	test_grep "Form refused" join.html &&
	test "$(nusers)" = "$n" &&
	token=$(sed -n "s/.*wseq_csrf\t//p" jar) && test -n "$token" &&
	code=$(jar_post join "user_name=Mallory&email_addr=m%40example.org&passwd=password1&passwd2=password1&csrf=$token") &&
	test "$code" = 303 &&
	test "$(nusers)" = $((n + 1)) &&
	code=$(jar_post team_create "name=Forged") &&
	test "$code" = 403 &&
	test "$(q "select count(*) from team")" = 0 &&
	test_grep "Form refused" team_create.html
'

test_expect_success 'a short password on the join form: refused with the reason, nothing written' '
	n=$(nusers) &&
	rm -f jar2 && curl -s -c jar2 -o /dev/null "${PROJECT_URL}join" &&
	t2=$(sed -n "s/.*wseq_csrf\t//p" jar2) &&
	code=$(curl -s -o short.html -w "%{http_code}" -b jar2 --data "user_name=Shorty&email_addr=s%40example.org&passwd=abc&passwd2=abc&csrf=$t2" "${PROJECT_URL}join") &&
	test "$code" = 400 &&
	test_grep "at least 6 characters" short.html &&
	test "$(nusers)" = "$n"
'

test_expect_success 'after a validated result the account page shows the credit the database holds' '
	uid=$(q "select id from user where email_addr=\"eve@example.org\"") &&
	q "insert into host (create_time, userid, domain_name, p_ncpus) values (unix_timestamp(), $uid, \"eves-laptop\", 4)" &&
	hid=$(q "select id from host where userid=$uid") &&
	tool wu W --quorum 1 --target 1 >/dev/null &&
	in_project transitioner --until_idle -d 1 2>/dev/null &&
	tool report W_0 --output "the answer" &&
	q "update result set hostid=$hid, userid=$uid, sent_time=unix_timestamp()-600 where name=\"W_0\"" &&
	in_project transitioner --until_idle -d 1 2>/dev/null &&
	in_project validator --credit 1234.5 --until_idle -d 1 2>/dev/null &&
	test "$(q "select round(total_credit, 2) from user where id=$uid")" = 1234.50 &&
	web eve account >account.out &&
	test_grep "^total_credit: 1234.50$" account.out
'

test_expect_success 'the task list pages by 20, newest first; another volunteer sees none of them' '
	uid=$(q "select id from user where email_addr=\"eve@example.org\"") &&
	hid=$(q "select id from host where userid=$uid") &&
	q "insert into result (create_time, workunitid, server_state, outcome, hostid, userid, name, sent_time)
		select unix_timestamp(), 1, 4, 0, $hid, $uid, concat(\"page_\", seq), unix_timestamp() from seq_1_to_24" &&
	rm -f jar4 && curl -s -c jar4 -o /dev/null "${PROJECT_URL}login" &&
	t4=$(sed -n "s/.*wseq_csrf\t//p" jar4) &&
	curl -s -b jar4 -c jar4 -o /dev/null --data "email_addr=eve%40example.org&passwd=correct%20horse%201&csrf=$t4" "${PROJECT_URL}login" &&
	curl -s -b jar4 "${PROJECT_URL}results" >p1.html &&
	test "$(grep -c "<tr><td>page_\|<tr><td>W_0" p1.html)" = 20 &&
	test_grep "page_24<" p1.html && ! test_grep "page_4<" p1.html &&
	test_grep "offset=20\">Older" p1.html &&
	curl -s -b jar4 "${PROJECT_URL}results?offset=20" >p2.html &&
	test "$(grep -c "<tr><td>page_\|<tr><td>W_0" p2.html)" = 5 &&
	test_grep "W_0<" p2.html && ! test_grep "Older" p2.html &&
	curl -s -b jar4 "${PROJECT_URL}results?hostid=$hid" | test_grep "page_24<" &&
	code=$(curl -s -o /dev/null -w "%{http_code}" "${PROJECT_URL}results") && test "$code" = 403 &&
	code=$(curl -s -o /dev/null -w "%{http_code}" -b jar "${PROJECT_URL}results?hostid=$hid") && test "$code" = 404
'

test_expect_success 'a computer of an owner who hides them: 404 for a stranger and another volunteer, shown to its owner' '
	uid=$(q "select id from user where email_addr=\"eve@example.org\"") &&
	hid=$(q "select id from host where userid=$uid") &&
	curl -s "${PROJECT_URL}host?id=$hid" | test_grep "Computer $hid" &&
	! curl -s "${PROJECT_URL}host?id=$hid" | grep -q "eves-laptop" &&
	q "update user set show_hosts=0 where id=$uid" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "${PROJECT_URL}host?id=$hid")" = 404 &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -b jar "${PROJECT_URL}host?id=$hid")" = 404 &&
	curl -s -b jar4 "${PROJECT_URL}host?id=$hid" | test_grep "eves-laptop" &&
	q "update user set show_hosts=1 where id=$uid"
'

test_expect_success 'founding a team through the form, and another volunteer joining it' '
	web eve team_create "Eve<s> & Co" >team.out &&
	test "$(q "select concat(name, \"/\", nusers) from team")" = "Eve<s> & Co/1" &&
	web frank join "Frank" frank@example.org "frank password" &&
	web frank team_join "Eve<s> & Co" &&
	test "$(q "select nusers from team")" = 2 &&
	test "$(q "select teamid from user where email_addr=\"frank@example.org\"")" = "$(q "select id from team")"
'

test_expect_success 'Chromium: the join form never signs in to an existing account, even with its password' '
	n=$(nusers) &&
	web mallory join_existing "Mallory" EVE@example.org "correct horse 1" &&
	test "$(nusers)" = "$n" &&
	test_grep "join \[127.0.0.1\]: refused (-137)" "$PROJECT_DIR/log/web.log"
'

test_expect_success 'Chromium: a CSRF cookie planted by another page of the site, with its value in the form, is refused' '
	n=$(q "select count(*) from team") &&
	web frank csrf_planted "Planted" &&
	test "$(q "select count(*) from team")" = "$n" &&
	test_grep "team_create \[127.0.0.1\]: form refused" "$PROJECT_DIR/log/web.log"
'

test_expect_success 'Chromium: the volunteers'"'"' pages cannot be framed by another site' '
	web frank framed account &&
	web frank framed ""
'

test_expect_success 'the volunteers'"'"' pages carry the ops pages'"'"' security headers' '
	for u in "" join login account "team?id=1" "host?id=999999"; do
		curl -s -D h.txt -o /dev/null "$PROJECT_URL$u" &&
		test_grep "^Content-Security-Policy: default-src '"'"'none'"'"';.*frame-ancestors '"'"'none'"'"'" h.txt &&
		test_grep "^X-Frame-Options: DENY" h.txt &&
		test_grep "^X-Content-Type-Options: nosniff" h.txt &&
		test_grep "^Referrer-Policy: no-referrer" h.txt || return 1
	done &&
	curl -s -D ops.h -o /dev/null "${PROJECT_URL%/}_ops/" &&
	test "$(grep "^Content-Security-Policy" ops.h)" = "$(grep "^Content-Security-Policy" h.txt)"
'

test_expect_success 'Chromium: a new password (account tool) ends every session of the account' '
	web eve session in &&
	printf "correct horse 2\n" >epw &&
	test_project bin/account password --email eve@example.org --password_file "$TRASH_DIRECTORY/epw" &&
	test "$(q "select count(*) from web_session s join user u on u.id=s.userid where u.email_addr=\"eve@example.org\"")" = 0 &&
	web eve session out &&
	web eve login eve@example.org "correct horse 2"
'

test_expect_success 'a new address (am_set_info) ends every session of the account' '
	rm -f jar5 && curl -s -c jar5 -o /dev/null "${PROJECT_URL}login" &&
	t5=$(sed -n "s/.*wseq_csrf\t//p" jar5) &&
	curl -s -b jar5 -c jar5 -o /dev/null --data "email_addr=eve%40example.org&passwd=correct%20horse%202&csrf=$t5" "${PROJECT_URL}login" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -b jar5 "${PROJECT_URL}account")" = 200 &&
	key=$(q "select authenticator from user where email_addr=\"eve@example.org\"") &&
	h=$(printf "%s%s" "correct horse 2" "eve2@example.org" | md5sum | cut -d" " -f1) &&
	curl -s "${PROJECT_URL}am_set_info.php?account_key=$key&email_addr=eve2%40example.org&password_hash=$h" | test_grep "<success/>" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -b jar5 "${PROJECT_URL}account")" = 403 &&
	web eve session out &&
	web eve login eve2@example.org "correct horse 2"
'

test_expect_success 'sessions: an expired one signs nobody in; signing out deletes it; the cookie flags' '
	rm -f jar3 && curl -s -c jar3 -o /dev/null "${PROJECT_URL}login" &&
	t3=$(sed -n "s/.*wseq_csrf\t//p" jar3) &&
	curl -s -D login.h -b jar3 -c jar3 -o /dev/null --data "email_addr=frank%40example.org&passwd=frank%20password&csrf=$t3" "${PROJECT_URL}login" &&
	test_grep "^Set-Cookie: wseq_session=[0-9a-f]\{32\}; Path=/wseq/; Max-Age=[0-9]*; HttpOnly; SameSite=Lax" login.h &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -b jar3 "${PROJECT_URL}account")" = 200 &&
	fid=$(q "select id from user where email_addr=\"frank@example.org\"") &&
	! q "select token_hash from web_session" | grep -q "$(sed -n "s/.*wseq_session\t//p" jar3)" &&
	q "update web_session set expire_time=unix_timestamp()-1 where userid=$fid" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -b jar3 "${PROJECT_URL}account")" = 403 &&
	n=$(q "select count(*) from web_session") &&
	q "update web_session set expire_time=unix_timestamp()+3600 where userid=$fid" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -b jar3 --data "csrf=$t3" "${PROJECT_URL}logout")" = 403 &&
	curl -s -b jar3 "${PROJECT_URL}account" >acct.html &&
	ts=$(sed -n "s/.*name=\"csrf\" value=\"\([0-9a-f]*\)\".*/\1/p" acct.html | head -n 1) &&
	test -n "$ts" && test "$ts" != "$t3" &&
	curl -s -b jar3 -c jar3 -o /dev/null --data "csrf=$ts" "${PROJECT_URL}logout" &&
	test "$(q "select count(*) from web_session")" -lt "$n" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -b jar3 "${PROJECT_URL}account")" = 403
'

test_expect_success 'the screenshots are kept in the trash directory' '
	ls web/*.png >shots &&
	test_line_count -ge 8 shots || { ls web >&2; false; }
'

test_done
