"""The form fields a submission carries besides its answers.

One list for the three places that name them: :mod:`surveys.schema` refuses a question
with one of these names, the forms (:mod:`web.forms`) accept them next to the
questions, and ``static/randomize.js`` copies them into the post it builds
on the device (a test reads the script and checks it names these).
"""

from __future__ import annotations

#: Copied as they are from the respondent's form into the device post (``carried``: a survey of several
#: pages, the signed noisy answers of the pages before, see :mod:`web.pages`).
COPIED_FIELDS = ("csrf_token", "submission_key", "invitation_code", "carried")
#: A page's signed answers so far, and the button pressed on a page (``next`` or ``back``).
CARRIED = "carried"
GO = "go"
#: Which path randomized the answers: ``"device"`` or ``"server"``.
RANDOMIZED_ON = "randomized_on"
#: The confirm page's signed noisy answers (JavaScript off).
SEALED = "sealed"
#: The respondent's arm in one character (:data:`surveys.arms.ARM_WIRE`), on surveys with groups or a control arm.
ARM = "arm"
#: Form fields that are not questions; no question may take one of these names.
CONTROL_FIELDS = frozenset({*COPIED_FIELDS, RANDOMIZED_ON, SEALED, ARM, GO})
#: The device path posts each noisy answer as ``rr-<question name>`` (WTForms' ``prefix``).
DEVICE_PREFIX = "rr"
