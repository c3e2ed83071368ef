#!/bin/sh
# Validate: the product (on stdin) must be right; the set with a = 4 is always refused
read -r x _ y _ p
[ "$1" != 4 ] && [ "$p" = $(($x * $y)) ]
