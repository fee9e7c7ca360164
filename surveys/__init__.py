"""The survey domain: what a survey is, how researchers' files become one,
how an answer is randomized, and what the answers say.

``surveys.definition`` holds the frozen objects (:class:`~surveys.definition.Survey`,
:class:`~surveys.definition.Question`, :class:`~surveys.definition.Choice`);
``surveys.files`` reads the YAML files in the survey folder and
``surveys.schema`` checks them into those objects, reporting every mistake
it finds; ``surveys.design_contract`` is how a question's design is written
down, stored and read back; ``surveys.protocol`` is the live randomizer;
``surveys.submission`` turns answers into the
:class:`~surveys.submission.NoisyResponse` storage writes;
``surveys.results`` and ``surveys.breakdowns`` compute the estimates and
``surveys.export`` writes them out, from plain values; ``surveys.wording``
turns numbers into text; ``surveys.form_fields`` names the form's fields.
Nothing here knows about Flask or a database (``storage/`` does; ``web/``
connects the two).
"""
