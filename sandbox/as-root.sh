# Sourced first by the README's two commands (sandbox/demo.sh,
# test/run-all.sh): they install Debian packages and start services, so they
# run as root. In a root shell (many containers and fresh machines, which
# have no sudo) nothing happens; anyone else has the script run again under
# sudo when sudo exists, or is told to be root.
#
#   . "$top/sandbox/as-root.sh" "$0" "$@"
#
# -h or --help is answered by the script as it is, and --no-install (the
# packages are there: nothing needs root) runs as whoever asks.
case " $* " in *" -h "* | *" --help "* | *" --no-install "*) ;; *)
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		exec sudo --preserve-env=PATH bash "$@"
	fi
	echo "${1##*/}: run this as root (it installs Debian packages and starts services)" >&2
	exit 1
fi
;; esac
