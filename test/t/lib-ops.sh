# The ops pages from a test (sourced after test_sandbox_up): OPS, their URL;
# ops PROFILE STEP ARGS..., a step of test/data/web/ops.py in headless
# Chromium with its own profile (screenshots in web/); status, signin and
# csrf_of, the same with curl.
OPS="${PROJECT_URL%/}_ops/"
mkdir -p "$TRASH_DIRECTORY/web"

ops() {
	_prof=$1; shift
	OPS_URL=$OPS WEB_OUT="$TRASH_DIRECTORY/web" WEB_PROFILE=$_prof \
		python3 "$WSEQ_SRCDIR/test/data/web/ops.py" "$@"
}
# status [CURL ARGS...] URL: the HTTP status of a request, its body in out.html
status() { curl -sS --max-time 60 -o out.html -w "%{http_code}" "$@"; }
# signin JAR [FIELDS]: sign in with curl (the admin's key unless FIELDS), cookies in JAR; the status
signin() {
	_jar=$1; shift
	rm -f "$_jar"
	curl -sS -c "$_jar" -o /dev/null "${OPS}login" &&
	_t=$(sed -n "s/.*wseq_ops_csrf\t//p" "$_jar") &&
	status -b "$_jar" -c "$_jar" --data-urlencode "csrf=$_t" \
		--data-urlencode "${1:-authenticator=$ADMIN_AUTHENTICATOR}" ${2:+--data-urlencode "$2"} \
		"${OPS}login"
}
# csrf_of FILE: the CSRF token of the first form of a page
csrf_of() { sed -n 's/.*name="csrf" value="\([0-9a-f]*\)".*/\1/p' "$1" | head -n 1; }
