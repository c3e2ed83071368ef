#!/bin/sh
# Generate configure and Makefile.in from a git checkout.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
if [ ! -f build-aux/tap-driver.sh ]; then
	for d in /usr/share/automake-*; do
		[ -f "$d/tap-driver.sh" ] && cp "$d/tap-driver.sh" build-aux/ && break
	done
fi
autoreconf --install --force
