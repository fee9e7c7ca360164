"""Keep client addresses, query strings, sizes and times of day out of the app's logs.

Werkzeug's development server logs every request as
``<address> - - [<time>] "<request line>" <status> <size>``; the filter
leaves ``"<method> <path> <protocol>" <status>``, the path without its query
(an invitation link's ``?code=`` stays out). Flask's own logger (``Exception
on /path [GET]`` and its traceback) loses its time stamp. Gunicorn's logs go
through the same :func:`serving.redact` (``gunicorn.conf.py``).
"""

from __future__ import annotations

import logging

from flask import Flask
from flask.logging import default_handler

from serving import RedactingFormatter, redact

#: Flask's default format without ``[%(asctime)s]``.
APP_LOG_FORMAT = "%(levelname)s in %(module)s: %(message)s"


class RedactClientAddress(logging.Filter):
    """Rewrites each werkzeug record to its redacted text (address, time, query and size gone)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = ()
        return True


def init_app(app: Flask) -> None:
    werkzeug_logger = logging.getLogger("werkzeug")
    if not any(isinstance(f, RedactClientAddress) for f in werkzeug_logger.filters):
        werkzeug_logger.addFilter(RedactClientAddress())
    if not isinstance(default_handler.formatter, RedactingFormatter):
        default_handler.setFormatter(RedactingFormatter(APP_LOG_FORMAT))
