#!/bin/sh
# Validate for test/t/t6120: the stdout result (on stdin) must be "n=N".
read -r line
[ "$line" = "n=$1" ]
