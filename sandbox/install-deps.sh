#!/bin/bash
# Install the Debian packages of sandbox/debian-packages.txt that are missing.
# Needs root when anything is missing; prints nothing when all are there.
set -u
list="$(dirname "$0")/debian-packages.txt"
packages=$(sed -e 's/#.*//' "$list" | tr -s ' \n' ' ')
# shellcheck disable=SC2086
missing=$(dpkg-query -W -f='${Status} ${Package}\n' $packages 2>&1 | grep -v '^install ok installed' | wc -l)
[ "$missing" -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: Debian packages are missing; run as root (sudo) to install them:" >&2
	echo "  apt-get install $packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/wseq-apt.XXXXXX)
# shellcheck disable=SC2086
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $packages; } >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	echo "install-deps: apt-get failed (log: $log)" >&2
	exit 1
fi
rm -f "$log"
