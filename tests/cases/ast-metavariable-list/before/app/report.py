import logging

logger = logging.getLogger(__name__)


def report(rows, total):
    print("rows:", len(rows))
    for row in rows:
        if row.bad:
            print("bad row", row.id,
                  row.reason, sep=" | ")
    print()
    return total
