#!/bin/sh
# Validate for test/t/t6130, t6131: the stdout result (on stdin) must be "n=N".
read -r line
[ "$line" = "n=$1" ]
