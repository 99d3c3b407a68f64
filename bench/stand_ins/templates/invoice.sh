#!/bin/sh
# Sum the invoice lines of each CSV file given, applying each line's tax rate.
set -eu

rates=${RATES:-rates.csv}
total=0
for file in "$@"; do
    if [ ! -s "$file" ]; then
        echo "skipping empty $file" >&2
        continue
    fi
    sum=$(awk -F, -v rates="$rates" -f lines.awk "$file")
    total=$(echo "$total + $sum" | bc)
    echo "$file: $sum"
done
printf 'total: %.2f\n' "$total"
