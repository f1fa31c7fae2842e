#!/bin/sh
# CMAKE_CXX_COMPILER_LAUNCHER for scripts/compile-time.sh: runs the compile
# command and appends "<source> <user s> <sys s> <peak KB>" to $TENSOROPS_TIME_LOG.
source=""
previous=""
for arg in "$@"; do
  [ "$previous" = "-c" ] && source=$arg
  previous=$arg
done
exec /usr/bin/time -a -o "$TENSOROPS_TIME_LOG" -f "$source %U %S %M" "$@"
