#!/bin/sh
# sweep_bundle.sh PROGRAM DIR: make DIR the bundle of PROGRAM (doc/sweep_client.md,
# "The bundle"): PROGRAM, every shared library `ldd PROGRAM` names (in DIR/lib)
# and the dynamic loader, with DIR/start, which runs PROGRAM through that loader
# on those libraries only:
#     ./ld-linux-x86-64.so.2 --library-path lib ./sweep_client ARGS
# so it needs nothing on a machine beyond the kernel (and /bin/sh). The client
# bundle the sweep master deploys is sweep_client's; the sweep kit carries the
# master's too (sweep/Makefile.inc). A static PROGRAM gets a bundle of itself and
# start. Run by make; DIR is replaced whole, never left half made.
set -eu

usage() {
	echo "usage: sweep_bundle.sh PROGRAM DIR" >&2
	echo "  make DIR the self-contained bundle of PROGRAM: its shared libraries, the" >&2
	echo "  dynamic loader and a start script (doc/sweep_client.md)" >&2
}

case ${1:-} in
--help | -h) usage; exit 0 ;;
esac
[ $# -eq 2 ] || { usage; exit 2; }
client=$1 dir=$2 name=${1##*/}
[ -x "$client" ] || { echo "sweep_bundle.sh: $client is not an executable" >&2; exit 1; }

tmp=$dir.tmp.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp/lib"
cp "$client" "$tmp/$name"

# ldd's lines: "name => /path (addr)", the loader as "/path (addr)", the vDSO
# as "name (addr)"; a static program: "not a dynamic executable" (exit 1).
loader=
if ldd "$client" >"$tmp/ldd" 2>&1; then
	if grep -q "=> not found" "$tmp/ldd"; then
		echo "sweep_bundle.sh: $client needs libraries this machine lacks:" >&2
		grep "=> not found" "$tmp/ldd" >&2
		exit 1
	fi
	for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 }' "$tmp/ldd"); do
		cp -L "$lib" "$tmp/lib/"
	done
	loader=$(awk '$1 ~ /^\// && $2 ~ /^\(/ { print $1 }' "$tmp/ldd")
	[ -n "$loader" ] || { echo "sweep_bundle.sh: no dynamic loader in ldd $client:" >&2;
		cat "$tmp/ldd" >&2; exit 1; }
	cp -L "$loader" "$tmp/"
	loader=${loader##*/}
fi
rm -f "$tmp/ldd"

{
	echo '#!/bin/sh'
	echo "# $name with the libraries it carries (made by sweep_bundle.sh): no library of"
	echo '# this host is loaded, and the programs it runs get the environment unchanged'
	echo 'case $0 in */*) d=${0%/*} ;; *) d=. ;; esac'
	if [ -n "$loader" ]; then
		echo "exec \"\$d/$loader\" --library-path \"\$d/lib\" \"\$d/$name\" \"\$@\""
	else
		echo "exec \"\$d/$name\" \"\$@\""
	fi
} >"$tmp/start"
chmod 755 "$tmp/start" "$tmp/$name"
[ -z "$loader" ] || chmod 755 "$tmp/$loader"
rmdir "$tmp/lib" 2>/dev/null || :
# the bundle must start here, without this machine's libraries in its way
if ! env -i PATH=/nonexistent "$tmp/start" --help >/dev/null 2>"$tmp.err"; then
	echo "sweep_bundle.sh: the bundle of $client does not start:" >&2
	cat "$tmp.err" >&2
	rm -f "$tmp.err"
	exit 1
fi
rm -f "$tmp.err"
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$tmp" "$dir"
trap - EXIT
