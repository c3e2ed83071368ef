#!/bin/bash
# The main job, in one command on a fresh Debian machine: install what is
# needed, build wseq, and bring up a private demo project (MariaDB, Apache,
# the project and its daemons) on loopback, then show what it serves.
#
#   sudo tools/demo.sh [DIR]        (default DIR: ./demo)
#   tools/wseq_sandbox down DIR     stops it
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/demo}
build="$top/_build"

"$top/tools/install-deps.sh"
if [ ! -x "$build/tools/make_project" ]; then
	echo "demo: building wseq in $build" >&2
	(cd "$top" && ./autogen.sh >/dev/null 2>&1)
	mkdir -p "$build"
	(cd "$build" && ../configure >/dev/null && make -j2 >/dev/null)
else
	make -C "$build" -j2 >/dev/null
fi
export WSEQ_LIBEXECDIR="$build/stage/libexec" WSEQ_DATADIR="$build/stage/share"
PATH="$build/stage/bin:$PATH"

wseq_sandbox up "$dir"
eval "$(wseq_sandbox env "$dir")"
echo
echo "== master page $PROJECT_URL"
curl -sf "$PROJECT_URL"
echo "== daemons ($PROJECT_DIR/bin/status)"
(cd "$PROJECT_DIR" && ./bin/status) || true
echo
echo "The demo project runs. Attach a BOINC client:"
echo "  boinccmd --project_attach $PROJECT_URL \$(cat $PROJECT_DIR/keys/admin_authenticator)"
echo "Settings:  wseq_sandbox env $dir"
echo "Stop it:   $top/tools/wseq_sandbox down $dir"
