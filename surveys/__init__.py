"""The survey domain: what a survey is, how researchers' files become one,
how an answer is randomized, and what the answers say.

``surveys.definition`` holds the frozen objects (:class:`~surveys.definition.Survey`,
:class:`~surveys.definition.Question`, :class:`~surveys.definition.Choice`);
``surveys.loader`` reads the YAML files in the survey folder into them and
reports every mistake it finds; ``surveys.design_contract`` is how a
question's design is written down, stored and read back; ``surveys.protocol``
is the live randomizer; ``surveys.submission`` turns answers into the
:class:`~surveys.submission.NoisyResponse` storage writes; ``surveys.results``
and ``surveys.export`` compute and write out the estimates from plain values.
Nothing here knows about Flask or a database (``storage/`` does; ``web/``
connects the two).
"""
