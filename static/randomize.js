/*
 * Randomized response on the respondent's device.
 *
 * The true answers stay in the visible form and are never sent: on submit,
 * each answer is randomized with crypto.getRandomValues and a separate form
 * carrying only the noisy answers (rr-<name>, randomized_on=device) is posted.
 * The noisy answers are remembered per survey and version in localStorage
 * (by choice name), and sent again on a retake (RAPPOR's permanent randomized
 * response), so retaking cannot average the noise away.
 *
 * Every question is sent, always, as its fixed-width wire value (the
 * fieldset's data-wire, or data-no-answer when nothing is checked), so the
 * request is as long whatever the answers (see web/forms.py).
 *
 * Twin of surveys/protocol.py: same designs, same exact-fraction draws.
 */
(function () {
  "use strict";

  var TWO_32 = 4294967296;

  /* Uniform integer in [0, n), without modulo bias: draws at or above the
     largest multiple of n below 2^32 are rejected and drawn again. */
  function randomBelow(n) {
    if (!(Number.isInteger(n) && n > 0 && n <= TWO_32)) {
      throw new RangeError("randomBelow needs an integer in [1, 2^32], got " + n);
    }
    var limit = TWO_32 - (TWO_32 % n);
    var buffer = new Uint32Array(1);
    for (;;) {
      crypto.getRandomValues(buffer);
      if (buffer[0] < limit) {
        return buffer[0] % n;
      }
    }
  }

  function fraction(text) {
    var parts = String(text).split("/");
    var num = parseInt(parts[0], 10);
    var den = parts.length > 1 ? parseInt(parts[1], 10) : 1;
    if (!(den > 0 && num >= 0 && num <= den)) {
      throw new RangeError("bad probability " + text);
    }
    return { num: num, den: den };
  }

  function gcd(x, y) { return y === 0 ? x : gcd(y, x % y); }
  function lcm(x, y) { return (x / gcd(x, y)) * y; }

  function isTwoCoin(design) {
    return design.t === "1/2" && design.a === "1/4" && design.b === "1/4";
  }

  /* Forced response: truthful with t, yes with a, no with b. Every draw is
     made before the answer is looked at. Returns a boolean (true = yes). */
  function randomizeYesNo(truth, design) {
    if (isTwoCoin(design)) {
      var first = randomBelow(2);
      var second = randomBelow(2);
      return first === 1 ? second === 1 : truth;
    }
    var t = fraction(design.t), a = fraction(design.a), b = fraction(design.b);
    var d = lcm(lcm(t.den, a.den), b.den);
    var u = randomBelow(d);
    var truthful = u < (t.num * d) / t.den;
    var forcedYes = u < (t.num * d) / t.den + (a.num * d) / a.den;
    return truthful ? truth : forcedYes;
  }

  /* k options: the true index with t, otherwise uniform over the k options. */
  function randomizeIndex(truthIndex, design) {
    var t = fraction(design.t);
    var k = design.k;
    var u = randomBelow(t.den);
    var randomOption = randomBelow(k);
    return u < t.num ? truthIndex : randomOption;
  }

  /* The noisy choice index for the true one; a plain question passes it through. */
  function randomizeChoiceIndex(truthIndex, spec) {
    if (spec.design === null) {
      return truthIndex;
    }
    if (spec.design.kind === "forced_response") {
      var yes = randomizeYesNo(spec.choices[truthIndex] === "yes", spec.design);
      return spec.choices.indexOf(yes ? "yes" : "no");
    }
    return randomizeIndex(truthIndex, spec.design);
  }

  /* The same by choice name. */
  function randomizeAnswer(value, spec) {
    return spec.choices[randomizeChoiceIndex(spec.choices.indexOf(value), spec)];
  }

  function memoKey(form) {
    return "rr:" + form.dataset.survey + ":v" + form.dataset.version;
  }

  function loadMemo(form) {
    try {
      return JSON.parse(window.localStorage.getItem(memoKey(form))) || {};
    } catch (e) {
      return {};
    }
  }

  function saveMemo(form, memo) {
    try {
      window.localStorage.setItem(memoKey(form), JSON.stringify(memo));
    } catch (e) {
      /* storage full or disabled: the server's cookie still refuses a retake */
    }
  }

  function hidden(name, value) {
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    return input;
  }

  /* The noisy choice index of one question, reusing a remembered one. */
  function noisyIndex(fieldset, truthIndex, memo) {
    var designKey = fieldset.dataset.design;
    var spec = JSON.parse(designKey);
    if (spec.design === null) {
      return truthIndex;
    }
    var name = fieldset.dataset.question;
    var remembered = memo[name];
    var index = remembered && remembered.design === designKey ? spec.choices.indexOf(remembered.value) : -1;
    if (index < 0) {
      index = randomizeChoiceIndex(truthIndex, spec);
      memo[name] = { design: designKey, value: spec.choices[index] };
    }
    return index;
  }

  /* The wire value of every question's noisy answer, in form order. */
  function noisyWireValues(form) {
    var memo = loadMemo(form);
    var values = {};
    form.querySelectorAll("fieldset[data-question]").forEach(function (fieldset) {
      var wire = JSON.parse(fieldset.dataset.wire);
      var checked = fieldset.querySelector("input[type=radio]:checked");
      var truthIndex = checked ? wire.indexOf(checked.value) : -1;
      values[fieldset.dataset.question] =
        truthIndex < 0 ? fieldset.dataset.noAnswer : wire[noisyIndex(fieldset, truthIndex, memo)];
    });
    saveMemo(form, memo);
    return values;
  }

  function submitNoisy(event) {
    var form = event.target;
    event.preventDefault();
    if (!form.reportValidity()) {
      return;
    }
    var answers = noisyWireValues(form);
    var out = document.createElement("form");
    out.method = "post";
    out.action = form.action;
    out.hidden = true;
    ["csrf_token", "submission_key", "invitation_code"].forEach(function (name) {
      var field = form.elements.namedItem(name);
      if (field) {
        out.appendChild(hidden(name, field.value));
      }
    });
    out.appendChild(hidden("randomized_on", "device"));
    Object.keys(answers).forEach(function (name) {
      out.appendChild(hidden("rr-" + name, answers[name]));
    });
    form.querySelector("button[type=submit]").disabled = true;
    document.body.appendChild(out);
    out.submit();
  }

  window.RR = {
    randomBelow: randomBelow,
    randomizeYesNo: randomizeYesNo,
    randomizeIndex: randomizeIndex,
    randomizeChoiceIndex: randomizeChoiceIndex,
    randomizeAnswer: randomizeAnswer
  };

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("survey-form");
    if (!form || !window.crypto || !crypto.getRandomValues) {
      return; /* no crypto: the form posts as is and the server randomizes */
    }
    var note = document.getElementById("js-note");
    if (note) {
      note.hidden = false;
    }
    form.addEventListener("submit", submitNoisy);
  });
})();
