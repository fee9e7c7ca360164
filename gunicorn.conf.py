"""Production serving: ``.venv/bin/gunicorn -c gunicorn.conf.py "app:create_app()"``.

Several worker processes. The app opens no database connection at import or
in the master: each worker thread opens its own on its first request and keeps
it (``web.db.get_db``), so every connection is made after the workers fork.

Each worker serves ``threads`` requests at once, each on a thread of its own
(``serving.ThreadWorker``, gunicorn's ``gthread`` worker), and takes only as
many connections as it has threads (``worker_connections``): the others wait
in the listen queue for a worker with a free thread instead of queueing
behind a busy one. A client has ``RR_READ_TIMEOUT`` seconds (10) to send its
whole request once the worker starts reading it (``serving.DeadlineSocket``):
a body that does not come in time is answered 408 and frees the thread, and a
malformed body (a bad chunk size) is answered 400 (``serving.GuardedBody``,
installed by the ``pre_request`` hook), never a 500.

The access log carries no client address, no time, no size and no request
body: its format has the method, the path without its query string, and the
status (answers are in POST bodies, never in URLs). The error log has no time
stamp, and every line of both logs goes through ``serving.redact``, which
drops client addresses (``Invalid request from ip=...``), query strings and
times of day (``serving.GunicornLogger``).
"""

import multiprocessing
import os

import serving

bind = os.environ.get("RR_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("RR_WORKERS", 2 * multiprocessing.cpu_count() + 1))
threads = int(os.environ.get("RR_THREADS", 4))  # as many as a worker's PostgreSQL pool has connections
worker_class = "serving.ThreadWorker"
worker_connections = threads  # no connection waits behind a busy thread while another worker has a free one
serving.read_timeout()  # a bad RR_READ_TIMEOUT stops the server at start, naming the value
preload_app = False  # import the app in each worker, after the fork
timeout = 30
graceful_timeout = 10
keepalive = 0  # one request per connection: a kept-alive connection would hold a connection slot idle
pre_request = serving.guard_body
post_request = serving.unguard_body
accesslog = "-"
access_log_format = '"%(m)s %(U)s" %(s)s'
logger_class = "serving.GunicornLogger"
errorlog = "-"
loglevel = "info"
control_socket_disable = True  # one shared socket in $HOME would clash between instances
limit_request_line = 4094
limit_request_fields = 50
