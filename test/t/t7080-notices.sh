#!/bin/sh
# The Manager's notices (issue 33 item 3): the scheduler reply carries
# <gui_urls> and <rss_feeds> as upstream's (the project's gui_urls.xml, or
# links to its own pages by default; everything filled in escaped, a file
# not well-formed not sent); an admin posts, edits and withdraws news on the
# ops pages (headless Chromium; POST with CSRF, logged; bad input refused
# with a clear error); the news page and the RSS feeds (notices.php, as the
# reply names it, with its auth; rss_main.php) show it escaped twice, so no
# item becomes markup in the Manager or a browser; a real BOINC client shows
# a posted item in its notices (boinccmd --get_notices). And the ops pages'
# "mail all users": a dry run counts, a send mails everyone through the
# private mail server, each with an unsubscribe link.
test_description='notices: gui_urls, the news RSS feed, news from ops in a real client, mail all users from ops'
. "$WSEQ_SRCDIR/test/test-lib.sh"
. "$WSEQ_SRCDIR/test/t/lib-mail.sh"

test_sandbox_up sb --no-daemons || exit 1
. "$WSEQ_SRCDIR/test/t/lib-sched.sh"
. "$WSEQ_SRCDIR/test/t/lib-ops.sh"
P=$PROJECT_DIR

q() { test_sql_value "$1"; }
# opost PAGE ARGS...: POST to an ops page with the news page's CSRF token
opost() {
	_p=$1; shift
	curl -sS -o page.html -b jar "${OPS}news" && _c=$(csrf_of page.html) &&
	status -b jar --data-urlencode "csrf=$_c" "$@" "${OPS}$_p"
}
reply_for() {
	sched_request 0 >req.xml && sched_rpc req.xml "$1"
}
feed_url() { sed -n 's|.*<url>\(.*notices\.php[^<]*\)</url>.*|\1|p' "$1" | sed 's/&amp;/\&/g'; }
news_n() { q "select count(*) from news"; }

mail_server_up || exit 1
mail_project "$P"

test_expect_success 'the reply has gui_urls and the notices feed: the project pages, escaped, well-formed' '
	q "update user set name=\"Ad <b>min</b> & co\" where id=1" &&
	reply_for r1.xml &&
	xmllint --noout r1.xml &&
	test_grep "<gui_urls>" r1.xml &&
	test_grep "<url>${PROJECT_URL}account</url>" r1.xml &&
	test_grep "<url>${PROJECT_URL}news</url>" r1.xml &&
	test_grep -v "<ifteam>" r1.xml && test_grep -v "Your team" r1.xml &&
	test_grep "<url>${PROJECT_URL}notices.php?userid=1&amp;auth=1_[0-9a-f]\{32\}</url>" r1.xml &&
	test_grep "<poll_interval>86400</poll_interval>" r1.xml
'

test_expect_success 'the project gui_urls.xml: placeholders filled in escaped; <ifteam> kept for a member' '
	q "insert into team (id, userid, name, create_time) values (7, 1, \"T<7>\", unix_timestamp());
	   update user set teamid=7 where id=1" &&
	cat >"$P/gui_urls.xml" <<-\EOT &&
	<gui_urls>
	    <gui_url>
	        <name>Hi <user_name/></name>
	        <description>host <hostid/> of <project_name/></description>
	        <url><master_url/>show_user.php?userid=<userid/>&x=1</url>
	    </gui_url>
	    <ifteam><gui_url><name>Team <team_name/></name><url><master_url/>team?id=<teamid/></url></gui_url></ifteam>
	</gui_urls>
	EOT
	reply_for r2.xml &&
	xmllint --noout r2.xml &&
	test_grep "<name>Hi Ad &lt;b&gt;min&lt;/b&gt; &amp; co</name>" r2.xml &&
	test_grep "<url>${PROJECT_URL}show_user.php?userid=1&amp;x=1</url>" r2.xml &&
	test_grep "<name>Team T&lt;7&gt;</name>" r2.xml &&
	test_grep "team?id=7</url>" r2.xml &&
	test_grep -v "<rss_feeds>" r2.xml
'

test_expect_success 'a gui_urls.xml not well-formed is not sent, and the log says so' '
	printf "<gui_urls><gui_url><name>broken</gui_url>\n" >"$P/gui_urls.xml" &&
	reply_for r3.xml &&
	xmllint --noout r3.xml &&
	test_grep -v "gui_urls" r3.xml &&
	cat "$P"/log/*.log >logs.txt && test_grep "gui_urls.xml: not well-formed" logs.txt &&
	rm "$P/gui_urls.xml" &&
	q "update user set teamid=0, name=\"admin\" where id=1"
'

test_expect_success 'bad news input gets clear errors and adds nothing: empty, huge, control characters, bad CSRF' '
	test "$(signin jar)" = 303 &&
	test "$(opost news_post --data-urlencode title= --data-urlencode text=x)" = 400 &&
	test_grep "The title is empty." out.html &&
	test "$(opost news_post --data-urlencode title=t --data-urlencode text=)" = 400 &&
	test_grep "The text is empty." out.html &&
	head -c 70000 /dev/zero | tr "\0" a >huge.txt &&
	test "$(opost news_post --data-urlencode title=t --data-urlencode text@huge.txt)" = 400 &&
	test_grep "longer than 64 KiB" out.html &&
	test "$(opost news_post --data-urlencode "title=$(printf "a\tb")" --data-urlencode text=x)" = 400 &&
	test_grep "not one line of UTF-8" out.html &&
	test "$(status -b jar --data-urlencode csrf=0123456789abcdef0123456789abcdef \
		--data-urlencode title=t --data-urlencode text=x "${OPS}news_post")" = 403 &&
	test "$(status -b jar "${OPS}news_post")" = 405 &&
	test "$(news_n)" = 0
'

TITLE='Hello <script>alert(1)</script> & welcome'
TEXT='First line\n<img src=x onerror=alert(2)> & <b>not bold</b>'
test_expect_success 'an admin posts a news item in Chromium; the ops list shows it as text' '
	ops a login "$ADMIN_AUTHENTICATOR" news >login.out &&
	ops a news "$TITLE" "$TEXT" news-01-posted >post.out &&
	test_grep "item: 1 .* Hello <script>alert(1)</script> & welcome admin shown" post.out &&
	test "$(q "select title from news where id=1")" = "$TITLE" &&
	test "$(q "select author from news where id=1")" = admin &&
	test_grep "admin admin (user 1) .* posted news item 1" "$P/log/ops.log"
'

test_expect_success 'the RSS feed parses; title and text are escaped twice (text in the Manager)' '
	curl -sS -D h.txt -o feed.xml "${PROJECT_URL}rss_main.php" &&
	test_grep "Content-Type: application/xml" h.txt &&
	xmllint --noout feed.xml &&
	test_grep "<rss version=\"2.0\">" feed.xml &&
	test_grep "<title>Hello &amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt; &amp;amp; welcome</title>" feed.xml &&
	test_grep "<description>First line&lt;br&gt;$" feed.xml &&
	test_grep "&amp;lt;img src=x onerror=alert(2)&amp;gt;" feed.xml &&
	test_grep "<guid>${PROJECT_URL}news#news_1</guid>" feed.xml &&
	test_grep "<pubDate>[A-Z][a-z][a-z], [0-9][0-9] [A-Z][a-z][a-z] 20[0-9][0-9] [0-9:]\{8\} GMT</pubDate>" feed.xml &&
	xmllint --xpath "string(//item/title)" feed.xml >t.txt &&
	test_grep "^Hello &lt;script&gt;" t.txt &&
	test_grep -v "<script" t.txt
'

test_expect_success 'notices.php: the feed with the auth of the reply; a wrong auth or none is refused' '
	reply_for r4.xml && url=$(feed_url r4.xml) && test -n "$url" &&
	curl -sS -o n.xml -w "%{http_code}" "$url" >code && test "$(cat code)" = 200 &&
	xmllint --noout n.xml && test_grep "<guid>${PROJECT_URL}news#news_1</guid>" n.xml &&
	curl -sS -o bad.xml -w "%{http_code}" "${url%_*}_0123456789abcdef0123456789abcdef" >code && test "$(cat code)" = 403 &&
	test_grep "<error_num>-155</error_num>" bad.xml &&
	curl -sS -o bad.xml -w "%{http_code}" "${PROJECT_URL}notices.php?userid=1" >code &&
	test "$(cat code)" = 403 &&
	curl -sS -o bad.xml -w "%{http_code}" "${PROJECT_URL}notices.php?userid=x&auth=y" >code &&
	test "$(cat code)" = 403
'

test_expect_success 'the news page shows the item as text: no script runs in Chromium' '
	curl -sS -o news.html "${PROJECT_URL}news" &&
	test_grep "Hello &lt;script&gt;alert(1)&lt;/script&gt; &amp; welcome" news.html &&
	test_grep -v "<script" news.html && test_grep -v "<img" news.html &&
	ops b public "${PROJECT_URL}news" news-02-public "article.news" "script" "img" >pub.out &&
	test_grep "^article.news: 1$" pub.out &&
	test_grep "^script: 0$" pub.out && test_grep "^img: 0$" pub.out
'

# boinccmd --get_notices prints each notice's description; the client keeps
# the whole notice (title, link, guid) in its archive of the feed
has_notice() {
	test_boinccmd c1 --get_notices 0 >notices.out 2>&1 &&
	grep -q "First line" notices.out
}
test_expect_success 'a real BOINC client shows the posted item in its notices, as text' '
	test_boinc_client_up c1 --notices &&
	test_boinc_attach c1 "$PROJECT_URL" "$ADMIN_AUTHENTICATOR" &&
	test_boinc_poll c1 "$PROJECT_URL" 300 has_notice &&
	test_grep "^1: (.*) First line<br>$" notices.out &&
	test_grep "^&lt;img src=x onerror=alert(2)&gt; &amp; &lt;b&gt;not bold&lt;/b&gt;" notices.out &&
	cat c1/notices/archive_*notices.php.xml >archive.xml &&
	test_grep "<title>Hello &lt;script&gt;alert(1)&lt;/script&gt; &amp; welcome</title>" archive.xml &&
	test_grep "<guid>${PROJECT_URL}news#news_1</guid>" archive.xml &&
	test_grep "<project_name>wseq</project_name>" archive.xml
'

test_expect_success 'edit and withdraw in ops; a withdrawn item leaves the page and the feed' '
	test "$(signin jar)" = 303 &&
	test "$(status -b jar "${OPS}news_edit?id=1")" = 200 && test_grep "Hello &lt;script" out.html &&
	test "$(status -b jar "${OPS}news_edit?id=9")" = 404 &&
	test "$(status -b jar "${OPS}news_edit?id=x")" = 400 &&
	test "$(opost news_post --data-urlencode id=1 --data-urlencode "title=Edited title" \
		--data-urlencode text=new)" = 303 &&
	test "$(q "select concat(title, \"|\", text) from news where id=1")" = "Edited title|new" &&
	test "$(opost news_post --data-urlencode id=99 --data-urlencode title=t --data-urlencode text=x)" = 404 &&
	test "$(opost news_withdraw --data-urlencode id=9)" = 404 &&
	test "$(status -b jar --data-urlencode csrf=0123456789abcdef0123456789abcdef \
		--data-urlencode id=1 "${OPS}news_withdraw")" = 403 &&
	test "$(q "select withdrawn from news where id=1")" = 0 &&
	test "$(opost news_withdraw --data-urlencode id=1)" = 303 &&
	test "$(q "select withdrawn from news where id=1")" = 1 &&
	curl -sS -o feed2.xml "${PROJECT_URL}rss_main.php" && xmllint --noout feed2.xml &&
	test_grep -v "<item>" feed2.xml &&
	curl -sS -o news2.html "${PROJECT_URL}news" && test_grep "No news yet" news2.html &&
	test_grep "edited news item 1" "$P/log/ops.log" &&
	test_grep "withdrew news item 1" "$P/log/ops.log"
'

test_expect_success 'mail all users from ops: the count, then everyone mailed with an unsubscribe link' '
	echo "ann pass 123" >pw.txt &&
	for who in ann bob; do
		test_project bin/account create --email $who@example.org --name $who \
			--password_file "$TRASH_DIRECTORY/pw.txt" >/dev/null 2>&1 || return 1
	done &&
	want=$(q "select count(*) from user where send_email=1") && test "$want" -ge 2 &&
	ops a mail "Project news" "A new app." mail_count mail-01-count >count.out &&
	test_grep "outcome: $want users would get the message." count.out &&
	test "$(mail_count || :)" = 0 &&
	ops a mail "Project news" "A new app." mail_send mail-02-sent >send.out &&
	test_grep "outcome: $want users mailed." send.out &&
	mail_wait_for "$want" &&
	mail_body 1 | tr -d "\r" >m1.txt &&
	test_grep "^Subject: Project news" m1.txt && test_grep "A new app." m1.txt &&
	test_grep "opt_out.php?userid=[0-9]*&code=[0-9a-f]\{32\}" m1.txt &&
	test_grep "mailed all users: $want users" "$P/log/ops.log"
'

test_expect_success 'mail all users: an empty subject, two lines or a bad CSRF token are refused; nothing sent' '
	n=$(mail_count || :) &&
	curl -sS -o page.html -b jar "${OPS}mail" && c=$(csrf_of page.html) &&
	test "$(status -b jar --data-urlencode csrf=$c --data-urlencode subject= \
		--data-urlencode body=x --data-urlencode send=1 "${OPS}mail_users")" = 400 &&
	test_grep "The subject is empty." out.html &&
	test "$(status -b jar --data-urlencode csrf=$c --data-urlencode "subject=$(printf "a\nb")" \
		--data-urlencode body=x --data-urlencode send=1 "${OPS}mail_users")" = 400 &&
	test "$(status -b jar --data-urlencode csrf=0123456789abcdef0123456789abcdef \
		--data-urlencode subject=s --data-urlencode body=x "${OPS}mail_users")" = 403 &&
	test "$(mail_count || :)" = "$n"
'

test_done
