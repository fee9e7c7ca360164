"""Rate limits and sign-in throttles, per client address, across workers.

The address is never stored: buckets and keys are HMACs of it under the
app's secret key, kept only in the rate-limit file (or, on PostgreSQL, the
database's unlogged rate-limit tables) and deleted once they
have run out (:mod:`storage.ratelimit`). Settings: ``RATELIMIT_ENABLED``,
``RATELIMIT_SUBMISSIONS``, ``RATELIMIT_SIGNINS`` (``COUNT/SECONDS``),
``RATELIMIT_DATABASE`` and ``SIGNIN_CONCURRENCY``.

Sign-ins count per network (an IPv4 /24, an IPv6 /64: :func:`storage.ratelimit.network_of`),
or, from a browser that signed in as the account before, per that browser's remembered-device
token (:func:`signin_client`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from flask import current_app, render_template, request
from flask_babel import gettext, ngettext

from analysis.bursts import MIN_BURST_COUNT, hour_threshold, usual_rate_of_others
from storage import burst_days, ratelimit, responses
from web.db import get_db
from web.errors import STATUS_NAMES


def _connection():
    """This worker thread's connection to the rate-limit file, opened once and kept.

    Every submission and sign-in touches the file, so opening it per request
    would cost more than the counting itself. Connections are kept on the app
    (never at module level), one per process and thread: each is opened in the
    process that uses it, after gunicorn's fork, and never shared between threads.
    On PostgreSQL the counts are in the app's database, shared by every app
    server: the request's pooled connection (:func:`web.db.get_db`) is used.
    """
    if current_app.config.get("DATABASE_URL"):
        return get_db()
    cache = current_app.extensions.setdefault("ratelimit_connections", {})
    key = (os.getpid(), threading.get_ident(), current_app.config["RATELIMIT_DATABASE"])
    conn = cache.get(key)
    if conn is None:
        conn = cache[key] = ratelimit.connect(current_app.config["RATELIMIT_DATABASE"])
    return conn


def _keyed(label: str, text: str) -> str:
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, f"{label}\0{text}".encode(), hashlib.sha256).hexdigest()[:24]


def _address_key() -> str:
    return _keyed("address", request.remote_addr or "")


def signin_client(remembered_token: str | None = None) -> str:
    """Whose budget a sign-in spends, as a keyed hash: the client's network (every address of an IPv4
    /24 or an IPv6 /64 is one client), or ``remembered_token``'s own when the browser holds a live
    remembered-device token for the account it signs in as (checked by the caller)."""
    if remembered_token:
        return _keyed("device", remembered_token)
    return _keyed("network", ratelimit.network_of(request.remote_addr))


def _name_key(name: str) -> str:
    return _keyed("account", name)


def too_many(description: str, retry_after: int, status: int = 429):
    """An error page with ``Retry-After``."""
    name = gettext(STATUS_NAMES[status]) if status == 429 else gettext("Busy")
    body = render_template("error.html", code=status, name=name, description=description)
    return body, status, {"Retry-After": str(retry_after)}


def refuse_if_over(kind: str, setting: str, client: str | None = None):
    """None if allowed; else a 429 page with Retry-After. Counted per address, or per ``client``
    (a key from :func:`signin_client`) when given."""
    return send_refusal(kind, setting, client)()


def send_refusal(kind: str, setting: str, client: str | None = None) -> Callable[[], object]:
    """:func:`refuse_if_over` with the count sent now and its verdict read when the returned function is
    called: inside a pipeline (:func:`storage.connection.pipeline`) the count travels with the queries after
    it, one round trip for all on PostgreSQL."""
    if not current_app.config["RATELIMIT_ENABLED"]:
        return lambda: None
    limit = ratelimit.Limit.parse(current_app.config[setting])
    pending = ratelimit.send_hit(_connection(), f"{kind}:{client or _address_key()}", limit, time.time())

    def refusal():
        verdict = pending()
        if verdict.allowed:
            return None
        return too_many(
            gettext(
                "Too many requests from your network. Please try again in %(seconds)s seconds.",
                seconds=verdict.retry_after,
            ),
            verdict.retry_after,
        )

    return refusal


@dataclass(frozen=True)
class Arrival:
    """One response's arrival: ``count``, the survey's responses in this clock hour with this one, and
    ``hour``, which clock hour (hours since the epoch). ``hour`` lives only in this process's memory, as
    the key of :meth:`BurstRules.burst_of`'s rule: it is never stored or logged. ``counted``: where the
    arrival was counted (:func:`arrivals`; None: by the caller), which says where the hour's own entry in
    the hour histogram is (:func:`storage.burst_days.judged_hour_histogram`)."""

    count: int
    hour: int
    counted: responses.Arrivals | None = None


def arrivals(survey_id: str) -> responses.Arrivals:
    """Where and when a response to ``survey_id`` is counted in its clock hour (by
    :func:`storage.responses.store_submission`, once its key and code are accepted): a bucket of the
    rate-limit file, deleted when the hour ends (on PostgreSQL the unlogged rate-limit tables of the
    same database, counted in the answer's transaction). The answers database never learns at what
    hour a response came."""
    return responses.Arrivals(_connection(), f"arrivals:{survey_id}", time.time())


@dataclass(frozen=True)
class BurstRule:
    """A survey's burst rule for one clock hour: ``usual_rate`` (None: no other active hour) and
    ``threshold``, the least count of the hour that is a burst (:func:`analysis.bursts.hour_threshold`:
    the Poisson rule's at the usual rate, or the survey's ceiling if lower; None: neither applies)."""

    usual_rate: float | None
    threshold: int | None


@dataclass(frozen=True)
class Burst:
    """The verdict on an answer that arrives while its hour is flagged as a burst: ``usual_rate``, the rate
    the hour was judged against (None: flagged by the ceiling, with no other hour to learn one from)."""

    usual_rate: float | None


class BurstRules:
    """Each survey's burst rule for the current clock hour, worked out once and kept in memory.

    :meth:`burst_of` is what a submission asks. The app keeps one per process
    (:func:`burst_rules`); a rule is dropped when its hour is over.
    """

    def __init__(self) -> None:
        self._rules: dict[tuple[str, int, int | None], BurstRule] = {}

    def burst_of(self, db, survey_id: str, arrival: Arrival, ceiling: int | None = None) -> Burst | None:
        """A :class:`Burst` when this clock hour, at ``arrival.count`` responses with this one, is flagged
        (:mod:`analysis.bursts`: far above the survey's usual rate, or at its ``ceiling`` per hour), else
        None; the store then marks the answer and notes the day in the same transaction. Ordinary traffic
        costs one comparison: below the smallest count that can be a burst nothing is read; from there, the
        hour's rule (:func:`burst_rule`) is worked out once (the other hours are over, so the usual rate
        cannot change within the hour) and each answer is compared with its threshold."""
        if arrival.count < min(MIN_BURST_COUNT, ceiling or MIN_BURST_COUNT):
            return None
        key = (survey_id, arrival.hour, ceiling)
        rule = self._rules.get(key)
        if rule is None:
            for old in [k for k in self._rules if k[1] != arrival.hour]:
                self._rules.pop(old, None)
            rule = self._rules[key] = burst_rule(db, survey_id, arrival, ceiling)
        if rule.threshold is None or arrival.count < rule.threshold:
            return None
        return Burst(rule.usual_rate)


def burst_rules() -> BurstRules:
    """This app's :class:`BurstRules` (one per process: each worker works the rule out once an hour)."""
    return current_app.extensions.setdefault("burst_rules", BurstRules())


def burst_rule(db, survey_id: str, arrival: Arrival, ceiling: int | None = None) -> BurstRule:
    """The rule of ``arrival``'s hour: the usual rate of the survey's other active hours, from its hour
    histogram with this hour left out (where the histogram holds it: :func:`storage.burst_days.judged_hour_histogram`;
    never taken for another hour, even while other answers of the hour commit), and the survey's ``ceiling``
    per hour."""
    histogram, this_hour = burst_days.judged_hour_histogram(db, survey_id, arrival.counted, arrival.count)
    usual = usual_rate_of_others(histogram, leave_out=this_hour)
    return BurstRule(usual, hour_threshold(usual, ceiling))


def signin_lock(name: str, client: str) -> int:
    """Seconds left of the lock on signing in as ``name`` from ``client`` (:func:`signin_client`; 0: none)."""
    return ratelimit.signin_lock(_connection(), _name_key(name), client, time.time())


def record_signin_failure(name: str, client: str) -> int:
    """Count a failed sign-in as ``name`` from ``client``; return the failures in a row."""
    return ratelimit.record_signin_failure(_connection(), _name_key(name), client, time.time())


def clear_signin_failures(name: str, client: str | None = None) -> None:
    """Forget failed sign-ins as ``name``: from ``client``, or (None) from everywhere."""
    ratelimit.clear_signin_failures(_connection(), _name_key(name), client)


#: Password-check slots kept for browsers that signed in before (:func:`hashing_slot`).
REMEMBERED_SLOTS = 1


@contextmanager
def hashing_slot(remembered: bool = False):
    """Yield True while holding one of the machine's ``SIGNIN_CONCURRENCY``
    password-hashing slots, or False at once when all are busy.

    Argon2id takes 64 MiB and a large share of a core per check, and it runs
    on the workers that serve respondents: this bounds the work all sign-ins
    together can take, whatever the number of addresses they come from.
    A ``remembered`` browser's sign-in (one holding a live remembered-device
    token for its account) first tries :data:`REMEMBERED_SLOTS` slots of its
    own, which no other sign-in can take: a flood of strangers, from any
    number of addresses, cannot keep it waiting.
    """
    base = current_app.config["RATELIMIT_DATABASE"]
    Path(base).parent.mkdir(parents=True, exist_ok=True)  # on PostgreSQL nothing else creates the folder
    lanes = [(base + ".hashing", int(current_app.config["SIGNIN_CONCURRENCY"]))]
    if remembered:
        lanes.insert(0, (base + ".hashing-remembered", REMEMBERED_SLOTS))
    with ExitStack() as stack:
        held = any(stack.enter_context(ratelimit.exclusive_slot(path, slots)) for path, slots in lanes)
        yield held


def refuse_if_over_survey_limit(survey):
    """None if allowed; else a 429 page with Retry-After, once ``survey`` has taken its
    ``max_responses_per_address_per_hour`` from this address in the clock hour.

    Counted in a bucket of its own per survey (``survey:<id>:<keyed hash>``),
    so one survey's limit never spends another's or the site-wide one.
    """
    most = survey.max_responses_per_address_per_hour
    if most is None or not current_app.config["RATELIMIT_ENABLED"]:
        return None
    bucket = f"survey:{survey.id}:{_address_key()}"
    verdict = ratelimit.hit(_connection(), bucket, ratelimit.Limit(most, 3600), time.time())
    if verdict.allowed:
        return None
    return too_many(
        ngettext(
            "This survey takes at most %(num)s response an hour from one network address, and that many have "
            "come from yours. Please try again in %(seconds)s seconds.",
            "This survey takes at most %(num)s responses an hour from one network address, and that many have "
            "come from yours. Please try again in %(seconds)s seconds.",
            most,
            seconds=verdict.retry_after,
        ),
        verdict.retry_after,
    )
