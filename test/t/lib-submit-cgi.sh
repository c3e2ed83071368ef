# The submit CGI run directly, as the web server does, under the sanitizers
# (sourced by t5140, t5170): set CGI, AUTH first.
# Leaks and undefined behaviour are reported on stderr; the exit status is
# the CGI's own (0), so the report is what the tests look for.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:print_summary=1
UBSAN_OPTIONS=print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS

req() {
	printf '%s\n' "$1" >req.xml
}
# cgi [SCRIPT [FILE...]]: POST req.xml (and FILEs as file_0, file_1, ...) to
# the CGI program as multipart/form-data, the reply in out, stderr in err;
# fails when a sanitizer reported anything
cgi() {
	script=${1:-submit_rpc_handler.php}
	test $# -gt 0 && shift
	{
		printf -- "--XbOuNdArY\r\nContent-Disposition: form-data; name=\"request\"\r\n\r\n"
		cat req.xml
		i=0
		for f in "$@"; do
			printf -- "\r\n--XbOuNdArY\r\nContent-Disposition: form-data; name=\"file_%d\"; filename=\"%s\"\r\n\r\n" $i "$(basename "$f")"
			cat "$f"
			i=$((i + 1))
		done
		printf -- "\r\n--XbOuNdArY--\r\n"
	} >body &&
	REQUEST_METHOD=POST CONTENT_TYPE="multipart/form-data; boundary=XbOuNdArY" \
	CONTENT_LENGTH=$(wc -c <body) SCRIPT_NAME="/$script" REMOTE_ADDR=127.0.0.1 \
		"$CGI" <body >out 2>err
	clean_run
}
# get QUERY: get_output.php?QUERY, the reply in out
get() {
	REQUEST_METHOD=GET QUERY_STRING="$1" SCRIPT_NAME=/get_output.php REMOTE_ADDR=127.0.0.1 \
		"$CGI" </dev/null >out 2>err
	clean_run
}
clean_run() {
	if grep -q "Sanitizer\|runtime error" err; then
		cat err >&2
		return 1
	fi
	return 0
}
# refused MESSAGE: the reply is an error whose message starts with MESSAGE
refused() {
	grep -q "<error_num>-1</error_num>" out && grep -q "<error_msg>$1" out || {
		echo "not refused with '$1':" >&2
		cat out >&2
		return 1
	}
}
batch_id() {
	test_sql_value "select id from batch where name=\"$1\""
}
# the rows a refusal must leave alone
snapshot() {
	test_sql_value "select id, name, state, njobs, expire_time, user_id from batch order by id;
		select id, name, error_mask, batch from workunit order by id;
		select id, name, delete_time from job_file order by id;
		select * from batch_file_assoc order by job_file_id, batch_id;
		select id, server_state, outcome from result order by id"
}

