# Shared set-up of the back-end daemon tests (t13*): a sandbox project whose
# daemons do not run by themselves, a result template with one output file,
# and helpers. Source it after test-lib.sh.

daemons_setup() {
	wseq_sandbox up --no-daemons sb >sb.log 2>&1 || { cat sb.log >&2; return 1; }
	test_atexit "wseq_sandbox down '$TRASH_DIRECTORY/sb'"
	eval "$(wseq_sandbox env sb)"
	P=$PROJECT_DIR
	cat >"$P/templates/test_out" <<-\EOT
	<file_info>
	    <name><OUTFILE_0/></name>
	    <generated_locally/>
	    <upload_when_present/>
	    <max_nbytes>100000</max_nbytes>
	    <url><UPLOAD_URL/></url>
	</file_info>
	<result>
	    <file_ref>
	        <file_name><OUTFILE_0/></file_name>
	        <open_name>out</open_name>
	    </file_ref>
	</result>
	EOT
}

# Run a program in the project directory, as bin/start does.
in_project() { (cd "$P" && "$@"); }
tool() { in_project wseq_test daemons "$@"; }
# One value (or rows) from the project's database.
q() { test_sql "$WSEQ_DB_NAME" -e "$1"; }
# Put an input file into the download hierarchy.
make_input() { printf '%s\n' "$2" >"$(tool path download "$1")"; }
input_path() { tool path download "$1"; }
output_path() { tool path upload "$1"; }
# Each daemon until it finds nothing to do, round after round.
run_all() {
	for round in 1 2 3 4; do
		in_project transitioner --until_idle -d 1 &&
		in_project validator --until_idle -d 1 &&
		in_project assimilator --until_idle -d 1 &&
		in_project file_deleter --until_idle -d 1 || return 1
	done
}
# "name server_state outcome validate_state" of a workunit's results, by name.
results_of() {
	q "select r.name, r.server_state, r.outcome, r.validate_state from result r
		join workunit w on w.id=r.workunitid where w.name='$1' order by r.name"
}
# A workunit column.
wu_col() { q "select $2 from workunit where name='$1'"; }
