# A volunteer host as a stranger plays it, for tests of what the submitter's
# side does with a host's output: the job sent to a host (wseq_test daemons
# send), a file of the host's choosing uploaded as the result's output
# through the project's real file_upload_handler (with the certificate the
# scheduler gives out, signed for the template's max_nbytes), and the result
# reported done and made canonical (quorum 1: one host's word is taken).
# Needs a sandbox (test_sandbox_up) and crypt_prog on PATH.

# host_upload_req NAME MAX_NBYTES FILE: an upload of FILE as the BOINC 7.20 client writes it
host_upload_req() {
	printf '<data_server_request>\n    <core_client_major_version>7</core_client_major_version>\n'
	printf '    <core_client_minor_version>20</core_client_minor_version>\n'
	printf '    <core_client_release>5</core_client_release>\n<file_upload>\n<file_info>\n'
	printf '<name>%s</name>\n<xml_signature>\n%s</xml_signature>\n' "$1" \
		"$(crypt_prog -sign_string "<name>$1</name><max_nbytes>$2</max_nbytes>" \
			"$PROJECT_DIR/keys/upload_private" 2>/dev/null)"
	printf '<max_nbytes>%s</max_nbytes>\n</file_info>\n<nbytes>%s</nbytes>\n' "$2" "$(wc -c <"$3")"
	printf '<md5_cksum>%s</md5_cksum>\n<offset>0</offset>\n<data>\n' "$(md5sum <"$3" | cut -c1-32)"
	cat "$3"
}

# host_output RESULT N: the name and the signed max_nbytes of result RESULT's output N (from 1)
host_output() {
	test_sql_value "select xml_doc_in from result where name=\"$1\"" >host_out.xml &&
	name=$(grep -o "<name>[^<]*</name>" host_out.xml | sed -n "$2s|<name>\(.*\)</name>|\1|p") &&
	max=$(grep -o "<max_nbytes>[^<]*</max_nbytes>" host_out.xml |
		sed -n "$2s|<max_nbytes>\([0-9]*\).*|\1|p") &&
	test -n "$name" && echo "$name ${max:-100000}"
}

# host_returns WORKUNIT FILE: a host is sent WORKUNIT's first result and
# returns FILE as its first output; the result is done and canonical
host_returns() {
	r="$1_0"
	test_project bin/transitioner --one_pass >/dev/null 2>&1 &&
	test_project "$WSEQ_BUILDDIR/test/wseq_test" daemons send "$r" >/dev/null &&
	set -- "$r" "$2" $(host_output "$r" 1) &&
	host_upload_req "$3" "$4" "$2" >host_up.req &&
	curl -sS --data-binary @host_up.req -H 'Content-Type: application/octet-stream' \
		"$(wseq_config --project "$PROJECT_DIR" upload_url)" >host_up.reply &&
	grep -q "<status>0</status>" host_up.reply || { cat host_up.reply >&2; return 1; }
	test_sql "$WSEQ_DB_NAME" -e "update result set server_state=5, outcome=1, validate_state=1,
			exit_status=0, cpu_time=1, received_time=unix_timestamp() where name=\"$1\";
		update workunit w join result r on r.workunitid=w.id set w.canonical_resultid=r.id
			where r.name=\"$1\""
}

# host_upload_output NAME: result NAME's first output ("output of NAME"), uploaded as its host would
host_upload_output() {
	set -- "$1" $(host_output "$1" 1) &&
	echo "output of $1" >host_out.txt &&
	host_upload_req "$2" "$3" host_out.txt >host_up.req &&
	curl -sS --data-binary @host_up.req -H 'Content-Type: application/octet-stream' \
		"$(wseq_config --project "$PROJECT_DIR" upload_url)" >host_up.reply &&
	grep -q "<status>0</status>" host_up.reply
}

# host_zip ZIP NAME=TEXT...: a zip of entries (TEXT with \n escapes, or @FILE) as a host may make it
host_zip() {
	python3 - "$@" <<-\EOF
	import sys, zipfile
	with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
	    for a in sys.argv[2:]:
	        name, _, text = a.partition("=")
	        data = open(text[1:], "rb").read() if text.startswith("@") else \
	            text.encode().decode("unicode_escape").encode("latin-1")
	        z.writestr(name, data)
	EOF
}
