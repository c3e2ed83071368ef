#!/bin/sh
# Validate: the result (on stdin) must be "BASE^EXP = NUMBER"
read -r line
case "$line" in
"$1^$2 = "[0-9]*) exit 0 ;;
*) exit 1 ;;
esac
