import logging

logger = logging.getLogger(__name__)


def report(rows, total):
    logger.info("rows:", len(rows))
    for row in rows:
        if row.bad:
            logger.info("bad row", row.id,
                  row.reason, sep=" | ")
    logger.info()
    return total
