"""Keep client addresses and times of day out of the server's log.

Werkzeug's development server logs every request as
``<address> - - [<time>] "<request line>" <status>``. The filter drops the
address and the time; the request line carries no answer (answers are only
ever in POST bodies). Gunicorn's access log format is set in
``gunicorn.conf.py`` with the same rule.
"""

from __future__ import annotations

import logging
import re

from flask import Flask

_ADDRESS_AND_TIME = re.compile(r"^\S+ - - \[[^\]]*\] ")


class RedactClientAddress(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = _ADDRESS_AND_TIME.sub("", record.msg)
        return True


def init_app(app: Flask) -> None:
    werkzeug_logger = logging.getLogger("werkzeug")
    if not any(isinstance(f, RedactClientAddress) for f in werkzeug_logger.filters):
        werkzeug_logger.addFilter(RedactClientAddress())
