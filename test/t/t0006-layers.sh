#!/bin/sh
# The include rule of doc/HACKING.md ("Layers"), held by the build: each
# directory compiles with its own include set (Makefile.am, *_CPPFLAGS), which
# holds its own headers and those of the layers below it. This test checks
# that every program and library outside test/ names its directory's set, and
# that the compiler then refuses an include that reaches upward or sideways.
test_description='each directory builds its own sources, every target names its directory include set, and an upward include does not compile'
. "$WSEQ_SRCDIR/test/test-lib.sh"

# The build's compiler; its include sets are in ./sets (the first test).
cc=$(sed -n 's/^CC = //p' "$WSEQ_BUILDDIR/Makefile")

# try_include SET HEADER: compile a file that includes HEADER with the
# directory include set SET (LIB, DB, ..., as Makefile.am names them).
try_include() {
	printf '#include "autoconf.h"\n#include "%s"\nint wseq_probe;\n' "$2" >probe.c &&
	(cd "$WSEQ_BUILDDIR" && $cc $(sed -n "s/^$1 //p" "$OLDPWD/sets") -fsyntax-only \
		"$OLDPWD/probe.c") 2>probe.err
}

# wrong_sets SRCDIR: each target outside test/ whose _CPPFLAGS does not start
# with the set of the directory its first source file is in.
wrong_sets() {
	python3 - "$1" <<-\PY
	import glob, os, re, sys
	src = sys.argv[1]
	sets = {"lib": "LIB", "db": "DB", "backend": "BACKEND", "serve": "SERVE",
	        "sched": "SCHED", "upload": "UPLOAD", "submit": "SUBMIT",
	        "daemons": "DAEMONS", "html": "HTML", "sim": "SIM", "gahp": "GAHP",
	        "tools": "TOOLS", "apps": "APPS", "sweep/proto": "SWEEP_PROTO",
	        "sweep/client": "SWEEP_CLIENT", "sweep/master": "SWEEP_MASTER",
	        "sweep/store": "SWEEP_STORE",
	        "sweep/endpoints": "SWEEP_ENDPOINTS"}
	text = ""
	for f in sorted(glob.glob(src + "/*/Makefile*.inc") + glob.glob(src + "/*/*/Makefile*.inc")):
	    if "/test/" not in f:
	        text += open(f).read().replace("\\\n", " ") + "\n"
	for name, srcs in re.findall(r"^([a-z]\w*)_SOURCES[ \t]*=[ \t]*(.*)$", text, re.M):
	    first = next(s for s in srcs.split() if "/" in s)
	    d = max((d for d in sets if first.startswith(d + "/")), key=len, default=None)
	    if name.startswith("test_"):
	        continue
	    m = re.search(r"^%s_CPPFLAGS[ \t]*=[ \t]*(.*)$" % name, text, re.M)
	    cpp = m.group(1).split() if m else []
	    if name == "apps_wseq_sample" and m and not cpp:
	        continue        # built against nothing of ours (apps/Makefile.inc)
	    want = "$(%s_CPPFLAGS)" % sets.get(d, "?")
	    if not cpp or cpp[0] != want:
	        print("%s: %s_CPPFLAGS should start with %s" % (first, name, want))
	PY
}

# strays SRCDIR: each program or library outside test/ that a directory's
# Makefile fragment builds from another directory's sources.
strays() {
	python3 - "$1" <<-\PY
	import glob, os, re, sys
	src = sys.argv[1]
	for f in sorted(glob.glob(src + "/*/Makefile*.inc") + glob.glob(src + "/*/*/Makefile*.inc")):
	    d = os.path.relpath(os.path.dirname(f), src)
	    if d.startswith("test"):
	        continue
	    text = open(f).read().replace("\\\n", " ")
	    for name, srcs in re.findall(r"^([a-z]\w*)_SOURCES[ \t]*\+?=[ \t]*(.*)$", text, re.M):
	        first = next((s for s in srcs.split() if "/" in s), "")
	        if not name.startswith("test_") and not first.startswith(d + "/"):
	            print("%s builds %s from %s" % (os.path.relpath(f, src), name, first))
	PY
}

test_expect_success 'each directory builds what it holds, and only that' '
	strays "$WSEQ_SRCDIR" >wrong &&
	test_line_count = 0 wrong &&
	mkdir -p copy2/db &&
	printf "bin_PROGRAMS += tools/y\ntools_y_SOURCES = tools/y.c\n" >copy2/db/Makefile.inc &&
	strays copy2 >wrong &&
	grep -F "db/Makefile.inc builds tools_y from tools/y.c" wrong
'

test_expect_success 'the build lists its include sets (make include-sets)' '
	make -s -C "$WSEQ_BUILDDIR" include-sets >out &&
	grep -E "^[A-Z_]+ " out >sets &&
	test_line_count = 19 sets &&
	grep "^LIB .*/lib " sets && ! grep "^LIB .*/db " sets
'

test_expect_success 'every program and library outside test/ names its directory include set' '
	wrong_sets "$WSEQ_SRCDIR" >wrong &&
	test_line_count = 0 wrong
'

test_expect_success 'the check names a target that has no set' '
	mkdir -p copy/tools &&
	printf "bin_PROGRAMS += tools/x\ntools_x_SOURCES = tools/x.c\n" >copy/tools/Makefile.inc &&
	wrong_sets copy >wrong &&
	grep -F "tools/x.c: tools_x_CPPFLAGS should start with \$(TOOLS_CPPFLAGS)" wrong
'

test_expect_success 'a directory sees its own headers and those below it' '
	try_include LIB sbuf.h &&
	try_include DB db.h &&
	try_include SCHED plan_class.h &&
	try_include HTML plan_class.h &&
	try_include SWEEP_CLIENT sweep_msg.h &&
	try_include SWEEP_MASTER sweep_store.h &&
	try_include GAHP submit_client.h
'

test_expect_success 'an include that reaches upward or sideways does not compile' '
	for probe in LIB:db.h LIB:serve.h DB:work.h BACKEND:serve.h SERVE:plan_class.h \
		SWEEP_CLIENT:db.h SWEEP_PROTO:sweep_client.h GAHP:submit.h SCHED:upload.h \
		DAEMONS:serve.h TOOLS:daemon.h HTML:upload.h SWEEP_STORE:sweep_session.h \
		SWEEP_PROTO:sweep_store.h
	do
		if try_include "${probe%%:*}" "${probe#*:}"; then
			echo "compiled: ${probe#*:} with ${probe%%:*}"; return 1
		fi
		grep -q "No such file" probe.err || { cat probe.err; return 1; }
	done
'

test_done
