"""Production serving: ``.venv/bin/gunicorn -c gunicorn.conf.py "app:create_app()"``.

Several worker processes. The app opens no database connection at import or
in the master: each worker thread opens its own on its first request and keeps
it (``web.db.get_db``), so every connection is made after the workers fork.

The access log carries no client address, no time, no size and no request
body: its format has the method, the path without its query string, and the
status (answers are in POST bodies, never in URLs). The error log has no time
stamp, and every line of both logs goes through ``serving.redact``, which
drops client addresses (``Invalid request from ip=...``), query strings and
times of day (``serving.GunicornLogger``).
"""

import multiprocessing
import os

bind = os.environ.get("RR_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("RR_WORKERS", 2 * multiprocessing.cpu_count() + 1))
threads = int(os.environ.get("RR_THREADS", 1))
worker_class = "sync" if threads == 1 else "gthread"
preload_app = False  # import the app in each worker, after the fork
timeout = 30
graceful_timeout = 10
keepalive = 5
accesslog = "-"
access_log_format = '"%(m)s %(U)s" %(s)s'
logger_class = "serving.GunicornLogger"
errorlog = "-"
loglevel = "info"
control_socket_disable = True  # one shared socket in $HOME would clash between instances
limit_request_line = 4094
limit_request_fields = 50
