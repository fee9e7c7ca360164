"""The survey domain: what a survey is, how researchers' files become one,
and how an answer is randomized.

``surveys.definition`` holds the frozen objects (:class:`~surveys.definition.Survey`,
:class:`~surveys.definition.Question`, :class:`~surveys.definition.Choice`);
``surveys.files`` reads the YAML files in the survey folder and
``surveys.schema`` checks them into those objects, reporting every mistake
it finds; ``surveys.protocol`` is the live randomizer.
Nothing here knows about Flask or SQLite.
"""
