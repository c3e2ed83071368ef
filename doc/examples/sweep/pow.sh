#!/bin/sh
# the worker: prints BASE^EXP; the note arrives as the file note.txt
b=$1 e=$2 r=1
while [ "$e" -gt 0 ]; do r=$((r * b)); e=$((e - 1)); done
echo "$1^$2 = $r"
