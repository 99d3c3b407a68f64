#!/bin/sh
# The project's formatter: a space on each side of "+" (x+1 -> x + 1); exit 1 when it changed a file.
status=0
for f in "$@"; do
    if grep -q "[a-z0-9]+[a-z0-9]" "$f"; then
        sed "s/\([a-z0-9]\)+\([a-z0-9]\)/\1 + \2/g" "$f" > "$f.tmp" && mv "$f.tmp" "$f"
        echo "reformatted $f"
        status=1
    fi
done
exit $status
