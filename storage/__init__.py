"""Everything that talks to the database (SQLite, through sqlite-utils).

``storage.connection`` opens the file and holds transactions, rebuild and
backup; ``storage.migrations`` the schema; ``storage.responses`` the write
path (responses, submission keys, invitation codes, open/closed state,
excluded days, bursts); ``storage.queries`` the reads that feed results,
``storage.kept_counts`` the model's pattern and the correlation's pair counts, ``storage.export_rows`` the
cursors the exports stream from; ``storage.accounts`` admin accounts and sessions;
``storage.ratelimit`` the rate-limit file. Nothing here imports Flask or the
web layer; the web layer and the CLI connect storage to the domain.
"""
