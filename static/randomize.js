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
 * A retake whose choices differ from the remembered noisy answers is told so:
 * the form shows a note before sending when a memo exists, and the thank-you
 * page shows its (always present, hidden) note when sessionStorage says that
 * remembered answers differing from the new choices were sent. Nothing is
 * added to the request, so its length stays the same.
 *
 * The page's wording for the JavaScript-off path (data-mode="server": the
 * form posts the true answers, the server randomizes them) is swapped for the
 * device wording (data-mode="device") only here, once randomization on the
 * device is certain.
 *
 * Every question is sent, always, as its fixed-width wire value (the
 * fieldset's data-wire, or data-no-answer when nothing is checked), so the
 * request is as long whatever the answers (see web/forms.py).
 *
 * Skip logic: a fieldset with data-relevant (a condition on plain questions, parsed on the
 * server) is hidden while its condition is false, and then posts its blank value like an
 * unanswered optional question; the server ignores any answer to a question not asked.
 *
 * Twin of surveys/protocol.py: same designs, same exact-fraction draws.
 *
 * The samplers of numbers and check-all-that-apply answers (stochastic
 * rounding onto the grid, exact discrete Laplace noise, the one-bit bounded
 * design, unary bits) are the twins of surveys/numeric_protocol.py, in exact
 * integer (BigInt) arithmetic; they are exposed as window.RRSamplers, pure
 * functions that hold no answer.
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

  /* A one-parameter yes/no design (Warner, unrelated question, Kuk, Mangat):
     stored yes with theta1 for a true yes, theta0 for a true no. One draw u
     on [0, D); both thresholds are compared before the answer picks one.
     Twin of surveys/protocol.py binary_bit. Returns a boolean (true = yes). */
  function randomizeBinary(truth, design) {
    var theta1 = fraction(design.theta1), theta0 = fraction(design.theta0);
    var d = lcm(theta1.den, theta0.den);
    var u = randomBelow(d);
    var yesIfTrait = u < (theta1.num * d) / theta1.den;
    var yesIfNot = u < (theta0.num * d) / theta0.den;
    return truth ? yesIfTrait : yesIfNot;
  }

  /* Designs whose answer is stored as given: the respondent combined two answers in their head. */
  var NOT_RANDOMIZED = { crosswise: true, triangular: true };
  /* Designs drawn by randomizeBinary from their theta1 and theta0. */
  var BINARY = { warner: true, unrelated_question: true, kuk: true, mangat: true };

  /* Two-group designs (surveys/arms.py): an honest respondent of group g is stored "yes" with
     theta1 = 1 if the trait, theta0 = p_g (cheater detection) or 1 - p_g (stochastic lie detector) if
     not. Twin of surveys/arms.py group_yes_probabilities. */
  var TWO_GROUP = { cheater_detection: true, stochastic_lie_detector: true };

  function groupDesign(design, group) {
    if (group !== "1" && group !== "2") {
      throw new RangeError("a two-group design needs group 1 or 2, got " + group);
    }
    var p = fraction(group === "1" ? design.p1 : design.p2);
    var theta0 = design.kind === "cheater_detection" ? p : { num: p.den - p.num, den: p.den };
    return { theta1: "1", theta0: theta0.num + "/" + theta0.den };
  }

  /* This respondent's arm as its one-character wire value (surveys/arms.py ARM_WIRE):
     "n" none, "1"/"2" the group of a two-group design, "d" the direct-question control arm. */
  var currentArm = "n";

  /* Whether this device draws the question's stored answer (never in the direct arm). */
  function randomizedHere(design) {
    return design !== null && !NOT_RANDOMIZED[design.kind] && currentArm !== "d";
  }

  /* Draw the arm from the shares on the form's arm field: both draws are made, as exact
     integers below the common denominator (twin of surveys/arms.py draw_arm). */
  function drawArm(groupShare, directShare) {
    var shares = [groupShare, directShare].filter(Boolean).map(fraction);
    var d = shares.reduce(function (acc, f) { return lcm(acc, f.den); }, 1);
    var uDirect = randomBelow(d);
    var uGroup = randomBelow(d);
    var below = function (u, text) { var f = fraction(text); return u < (f.num * d) / f.den; };
    if (directShare && below(uDirect, directShare)) {
      return "d";
    }
    if (!groupShare) {
      return "n";
    }
    return below(uGroup, groupShare) ? "1" : "2";
  }

  /* k options: the true index with t, otherwise uniform over the k options. */
  function randomizeIndex(truthIndex, design) {
    var t = fraction(design.t);
    var k = design.k;
    var u = randomBelow(t.den);
    var randomOption = randomBelow(k);
    return u < t.num ? truthIndex : randomOption;
  }

  /* A misclassification matrix (rows: reported option, columns: true option): one draw u on [0, D), D the
     common denominator of the true option's column; the report is the first j whose cumulative share
     exceeds u / D, every threshold compared. Twin of surveys/matrix.py misclassification_index. */
  function randomizeMatrixIndex(truthIndex, design) {
    var column = design.matrix.map(function (row) { return fraction(row[truthIndex]); });
    var d = column.reduce(function (acc, f) { return lcm(acc, f.den); }, 1);
    var u = randomBelow(d);
    var cumulative = 0;
    var below = column.map(function (f) { cumulative += (f.num * d) / f.den; return u < cumulative; });
    return below.indexOf(true);
  }

  /* The noisy choice index for the true one; a plain question passes it through. */
  function randomizeChoiceIndex(truthIndex, spec) {
    if (!randomizedHere(spec.design)) {
      return truthIndex;
    }
    if (TWO_GROUP[spec.design.kind]) {
      var said = spec.choices[truthIndex] === "yes";
      return spec.choices.indexOf(randomizeBinary(said, groupDesign(spec.design, currentArm)) ? "yes" : "no");
    }
    if (spec.design.kind === "forced_response" || BINARY[spec.design.kind]) {
      var truth = spec.choices[truthIndex] === "yes";
      var draw = spec.design.kind === "forced_response" ? randomizeYesNo : randomizeBinary;
      return spec.choices.indexOf(draw(truth, spec.design) ? "yes" : "no");
    }
    if (spec.design.kind === "misclassification") {
      return randomizeMatrixIndex(truthIndex, spec.design);
    }
    if (spec.design.kind !== "multiple_choice") {
      throw new RangeError("unknown design kind " + spec.design.kind);
    }
    return randomizeIndex(truthIndex, spec.design);
  }

  /* The same by choice name. */
  function randomizeAnswer(value, spec) {
    return spec.choices[randomizeChoiceIndex(spec.choices.indexOf(value), spec)];
  }

  /* ------------------------------------------------------------------
   * Numbers and check-all-that-apply: twin of surveys/numeric_protocol.py
   * (designs of analysis/numeric_design.py, given as their to_dict records).
   * Exact integers only: BigInt wherever a product can pass 2^53, and every
   * probability an exact fraction compared with a uniform integer draw.
   * BigInt is reached through BigInt(...) calls, never 1n literals, so a
   * browser without it still parses this file (its other randomizers work).
   */

  function big(n) { return BigInt(n); }

  /* The samplers below take their words from a pool of 256, filled by one crypto.getRandomValues call and
     each word used once: a call per word costs about 2 microseconds, and a noisy number takes about ten. */
  var pool = new Uint32Array(256);
  var poolNext = pool.length;

  function nextWord() {
    if (poolNext === pool.length) {
      crypto.getRandomValues(pool);
      poolNext = 0;
    }
    return pool[poolNext++];
  }

  /* The largest bound uniformBelow takes: every intermediate value stays a safe integer below 2^53. */
  var MAX_UNIFORM = 4503599627370496; /* 2^52 */

  /* Uniform integer in [0, n) for an integer 1 <= n <= 2^52, without bias: for n <= 2^32 one word, drawn
     again at or above the largest multiple of n below 2^32 (as randomBelow); above, a high part uniform below
     ceil(n / 2^32) and a low word, drawn again while the result is >= n (accepted with probability > 1/2). */
  function uniformBelow(n) {
    if (!(Number.isInteger(n) && n >= 1 && n <= MAX_UNIFORM)) {
      throw new RangeError("uniformBelow needs an integer in [1, 2^52], got " + n);
    }
    if (n <= TWO_32) {
      var limit = TWO_32 - (TWO_32 % n);
      for (;;) {
        var word = nextWord();
        if (word < limit) {
          return word % n;
        }
      }
    }
    var high = Math.ceil(n / TWO_32);
    for (;;) {
      var x = uniformBelow(high) * TWO_32 + nextWord();
      if (x < n) {
        return x;
      }
    }
  }

  /* Uniform BigInt in [0, n), n a BigInt >= 1 (for bounds past 2^52): ceil(bits / 32) words masked to n's
     bit length, drawn again while >= n (as Python's secrets.randbelow does). */
  function randomBelowBig(n) {
    if (typeof n !== "bigint" || n < big(1)) {
      throw new RangeError("randomBelowBig needs a BigInt of at least 1, got " + n);
    }
    if (n <= big(MAX_UNIFORM)) {
      return big(uniformBelow(Number(n)));
    }
    var bits = n.toString(2).length;
    var words = Math.ceil(bits / 32);
    var mask = (big(1) << big(bits)) - big(1);
    for (;;) {
      var x = big(0);
      for (var i = 0; i < words; i++) {
        x = (x << big(32)) | big(nextWord());
      }
      x &= mask;
      if (x < n) {
        return x;
      }
    }
  }

  function bigGcd(x, y) { while (y !== big(0)) { var r = x % y; x = y; y = r; } return x; }

  /* An exact rational from "3/8", "27307177/1000000", "2.5", "-0.25" or an integer, in lowest terms:
     { num: BigInt, den: BigInt > 0 }. */
  function rational(text) {
    var match = /^(-?)([0-9]+)(?:\.([0-9]+)|\/([0-9]+))?$/.exec(String(text));
    if (!match) {
      throw new RangeError("not a number or fraction: " + text);
    }
    var num = big(match[2] + (match[3] || ""));
    var den = match[3] ? big(10) ** big(match[3].length) : big(match[4] || 1);
    if (den === big(0)) {
      throw new RangeError("a zero denominator in " + text);
    }
    var g = bigGcd(num, den) || big(1);
    return { num: (match[1] ? -num : num) / g, den: den / g };
  }

  function bigLcm(x, y) { return (x / bigGcd(x, y)) * y; }
  function floorDiv(x, y) { var q = x / y; return (x % y !== big(0) && (x < big(0)) !== (y < big(0))) ? q - big(1) : q; }

  /* The bound D of gridIndex's one draw, fixed by the question: step's numerator times
     lcm(10^6, minimum's denominator) (surveys/numeric_protocol.py rounding_denominator). */
  function roundingDenominator(minimum, step) {
    return step.num * bigLcm(big(1000000), minimum.den);
  }

  /* The grid index of a true value (a decimal string, at most 6 decimals, within [min, max]) by unbiased
     stochastic rounding: pos = (v - min) / step exactly, up from floor(pos) when u < (pos - floor(pos)) D.
     The draw u is made before the value is read. minimum, step: strings ("0", "2.5", "1/2"). */
  function gridIndex(value, minimum, step, steps) {
    var low = rational(minimum), width = rational(step);
    var d = roundingDenominator(low, width);
    var u = randomBelowBig(d);
    if (!/^-?[0-9]+(\.[0-9]{1,6})?$/.test(String(value))) {
      throw new RangeError("a number must be written with digits and at most 6 decimals, got " + value);
    }
    var v = rational(value);
    /* pos = (v - min) / step = ((v.num min.den - min.num v.den) step.den) / (v.den min.den step.num) */
    var top = (v.num * low.den - low.num * v.den) * width.den;
    var bottom = v.den * low.den * width.num;
    if (top < big(0) || top > big(steps) * bottom) {
      var end = low.num * width.den + big(steps) * width.num * low.den, endDen = low.den * width.den;
      throw new RangeError("the number must be between " + minimum + " and " +
        (Number(end) / Number(endDen)) + ", got " + value); /* a float for the message only */
    }
    var below = floorDiv(top, bottom);
    var threshold = ((top - below * bottom) * d) / bottom; /* exact: D makes it an integer */
    return Number(below) + (u < threshold ? 1 : 0);
  }

  /* Bernoulli(exp(-num/den)) for num/den in [0, 1] (Canonne, Kamath and Steinke 2020, Algorithm 1):
     draw Bernoulli(gamma / k) = [uniformBelow(den k) < num] for k = 1, 2, ... until a 0; 1 if that k is odd.
     Numbers: den k stays far below 2^52 for every design (den <= 10^10; k past 20 has probability < 1/20!),
     and uniformBelow refuses a bound past it rather than round. */
  function bernoulliExpUnit(num, den) {
    var k = 1;
    while (uniformBelow(den * k) < num) {
      k += 1;
    }
    return k % 2;
  }

  /* Bernoulli(exp(-num/den)) for any num/den >= 0: floor(gamma) draws of Bernoulli(exp(-1)), stopping at
     the first 0, then one of Bernoulli(exp(-(gamma - floor(gamma)))). */
  function bernoulliExp(num, den) {
    while (num > den) {
      if (!bernoulliExpUnit(1, 1)) {
        return 0;
      }
      num -= den;
    }
    return bernoulliExpUnit(num, den);
  }

  /* Algorithm 2's magnitude: floor((U + t V) / s), U uniform below t kept with exp(-U/t), V the 1s of
     Bernoulli(exp(-1)) before the first 0: geometric with ratio exp(-s/t). */
  function laplaceMagnitude(s, t) {
    var u;
    do {
      u = uniformBelow(t);
    } while (!bernoulliExpUnit(u, t));
    var v = 0;
    while (bernoulliExpUnit(1, 1)) {
      v += 1;
    }
    var x = u + t * v;
    if (!Number.isSafeInteger(x)) {
      throw new RangeError("a discrete Laplace draw past 2^53 at scale " + t + "/" + s);
    }
    return (x - (x % s)) / s; /* floor(x / s): an exact multiple of s divided, no rounding */
  }

  /* Discrete Laplace noise of scale t/s, both safe integers (Canonne, Kamath and Steinke 2020, Algorithm 2):
     a fair sign and a magnitude, a negative zero drawn again. P(z) = (1 - r)/(1 + r) r^|z|, r = exp(-1/scale). */
  function discreteLaplace(t, s) {
    if (!(Number.isSafeInteger(t) && Number.isSafeInteger(s) && t >= 1 && s >= 1)) {
      throw new RangeError("a discrete Laplace scale needs positive integers t/s, got " + t + "/" + s);
    }
    for (;;) {
      var negative = uniformBelow(2);
      var magnitude = laplaceMagnitude(s, t);
      if (!(negative && magnitude === 0)) {
        return negative ? -magnitude : magnitude;
      }
    }
  }

  /* A positive rational's numerator and denominator as Numbers (safe integers), or a RangeError. */
  function positiveRatio(text) {
    var r = rational(text);
    var num = Number(r.num), den = Number(r.den);
    if (!(r.num > big(0) && Number.isSafeInteger(num) && Number.isSafeInteger(den))) {
      throw new RangeError("a positive fraction of safe integers is needed, got " + text);
    }
    return { num: num, den: den };
  }

  function checkIndex(index, steps) {
    if (!(Number.isInteger(index) && index >= 0 && index <= steps)) {
      throw new RangeError("a grid index must be an integer in [0, " + steps + "], got " + index);
    }
  }

  /* index + discrete Laplace noise at the design's scale, clamped to [-C, K + C], C = ceil(40 scale).
     design: {kind: "discrete_laplace", steps, scale: "t/s"}. The noise is drawn whatever the index. */
  function laplaceOutput(index, design) {
    checkIndex(index, design.steps);
    var scale = positiveRatio(design.scale);
    var noise = discreteLaplace(scale.num, scale.den);
    var reach = 40 * scale.num; /* C = ceil(40 t / s), in integers */
    var clamp = (reach - (reach % scale.den)) / scale.den + (reach % scale.den > 0 ? 1 : 0);
    var y = index + noise;
    return Math.min(Math.max(y, -clamp), design.steps + clamp);
  }

  /* One bit (Duchi et al. 2018): u = randomBelow((high + low) K), 1 when u < low K + (high - low) k.
     design: {kind: "bounded", steps, high, low}. */
  function boundedOutput(index, design) {
    checkIndex(index, design.steps);
    var k = big(design.steps), high = big(design.high), low = big(design.low);
    var u = randomBelowBig((high + low) * k);
    return u < low * k + (high - low) * big(index) ? 1 : 0;
  }

  /* Check-all-that-apply: one u = randomBelow(D) per option (D the common denominator of p and q), 1 when
     u < p D if ticked, u < q D if not; every draw made and both thresholds compared before the ticks pick
     one. design: {kind: "unary", options, p: "a/b", q: "c/d"}. Returns an array of 0/1. */
  function unaryBits(ticked, design) {
    if (!(Array.isArray(ticked) && ticked.length === design.options &&
          ticked.every(function (t) { return t === true || t === false; }))) {
      throw new RangeError("a check-all-that-apply answer must be " + design.options + " booleans");
    }
    var p = rational(design.p), q = rational(design.q);
    var d = bigLcm(p.den, q.den);
    var pThreshold = (p.num * d) / p.den, qThreshold = (q.num * d) / q.den;
    var draws = ticked.map(function () { return randomBelowBig(d); });
    var ifTicked = draws.map(function (u) { return u < pThreshold ? 1 : 0; });
    var ifNot = draws.map(function (u) { return u < qThreshold ? 1 : 0; });
    return ticked.map(function (tick, i) { return tick ? ifTicked[i] : ifNot[i]; });
  }

  /* The samplers above, exposed for the tests (tests/test_browser_samplers.py): functions of their arguments
     and of fresh random words only; none holds or remembers an answer. */
  window.RRSamplers = {
    randomBelowBig: function (n) { return randomBelowBig(big(n)).toString(); },
    gridIndex: gridIndex,
    bernoulliExp: function (gamma) {
      var g = rational(gamma);
      if (!(g.num >= big(0) && g.num <= big(MAX_UNIFORM) && g.den <= big(MAX_UNIFORM))) {
        throw new RangeError("gamma must be a fraction at least 0 of integers up to 2^52, got " + gamma);
      }
      return bernoulliExp(Number(g.num), Number(g.den));
    },
    discreteLaplace: function (scale) {
      var b = positiveRatio(scale);
      return discreteLaplace(b.num, b.den);
    },
    laplaceOutput: laplaceOutput,
    boundedOutput: boundedOutput,
    unaryBits: unaryBits
  };

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

  /* The remembered noisy choice index of one question for its current design, or -1. */
  function rememberedIndex(fieldset, memo) {
    var remembered = memo[fieldset.dataset.question];
    var spec = JSON.parse(fieldset.dataset.design);
    return remembered && remembered.design === fieldset.dataset.design ? spec.choices.indexOf(remembered.value) : -1;
  }

  /* The noisy choice index of one question, reusing a remembered one. */
  function noisyIndex(fieldset, truthIndex, memo) {
    var designKey = fieldset.dataset.design;
    var spec = JSON.parse(designKey);
    if (!randomizedHere(spec.design)) {
      return truthIndex;
    }
    var index = rememberedIndex(fieldset, memo);
    if (index < 0) {
      index = randomizeChoiceIndex(truthIndex, spec);
      memo[fieldset.dataset.question] = { design: designKey, value: spec.choices[index] };
    }
    return index;
  }

  function resentKey(surveyId) {
    return "rr-resent:" + surveyId;
  }

  /* Tell the thank-you page (through sessionStorage, never the request) whether a
     remembered noisy answer that differs from the new choice was sent again. */
  function noteResent(form, differs) {
    try {
      if (differs) {
        window.sessionStorage.setItem(resentKey(form.dataset.survey), "1");
      } else {
        window.sessionStorage.removeItem(resentKey(form.dataset.survey));
      }
    } catch (e) {
      /* storage disabled: the thank-you page shows no note */
    }
  }

  /* Skip logic: the answer (choice name, or null) of a plain question, read from its checked radio. */
  function plainAnswer(form, name) {
    var fieldset = form.querySelector('fieldset[data-question="' + name + '"]');
    var earlier = document.getElementById("earlier-answers");
    if (!fieldset && earlier) { /* a plain question of an earlier page (web/pages.py) */
      var value = JSON.parse(earlier.dataset.answers)[name];
      return value === undefined ? null : value;
    }
    var checked = fieldset && !fieldset.hidden ? fieldset.querySelector("input[type=radio]:checked") : null;
    var index = checked ? JSON.parse(fieldset.dataset.wire).indexOf(checked.value) : -1;
    return index < 0 ? null : JSON.parse(fieldset.dataset.design).choices[index];
  }

  /* A condition as surveys/conditions.py's to_json writes it: ["=", q, v], ["!=", q, v],
     ["not", c], ["and", c, ...], ["or", c, ...]. The server parsed it; this only evaluates. */
  function holds(form, condition) {
    var op = condition[0];
    var terms = condition.slice(1);
    if (op === "=" || op === "!=") {
      return (plainAnswer(form, condition[1]) === condition[2]) === (op === "=");
    }
    if (op === "not") {
      return !holds(form, condition[1]);
    }
    if (op === "and") {
      return terms.every(function (term) { return holds(form, term); });
    }
    if (op === "or") {
      return terms.some(function (term) { return holds(form, term); });
    }
    throw new RangeError("unknown condition " + op);
  }

  /* Show the questions whose condition holds, hide the others (in order: a hidden question
     counts as unanswered for the conditions after it). A hidden question posts its blank value. */
  function applySkipLogic(form) {
    form.querySelectorAll("fieldset[data-question]").forEach(function (fieldset) {
      if (fieldset.dataset.relevant) {
        fieldset.hidden = !holds(form, JSON.parse(fieldset.dataset.relevant));
        requireWhenAsked(fieldset);
      }
    });
  }

  /* A required question with a condition has a blank "No answer" option only so that it can post
     blank while not asked: once asked, that option is hidden and the browser asks for an answer. */
  function requireWhenAsked(fieldset) {
    var blank = fieldset.querySelector('input[type=radio][value="' + fieldset.dataset.noAnswer + '"]');
    var kept = fieldset.dataset.randomize === "true" && document.querySelector(".kept-note"); /* "Keep my earlier answer" */
    if (!blank || kept || !fieldset.querySelector(".req")) {
      return;
    }
    blank.closest(".option").hidden = !fieldset.hidden;
    if (fieldset.hidden) {
      blank.checked = true;
    } else if (blank.checked) {
      blank.checked = false;
    }
    fieldset.querySelectorAll("input[type=radio]").forEach(function (radio) {
      radio.required = !fieldset.hidden && radio !== blank;
    });
  }

  /* A number's list of grid positions, or a check-all-that-apply question's yes/no pairs. */
  function isNumberOrTicks(fieldset) {
    var type = fieldset.dataset.type;
    return type === "integer" || type === "decimal" || type === "select_multiple";
  }

  /* The true answer of a number (its grid position as the list's value, "07") or of a check-all-that-apply
     question (one boolean per option, from its checked pairs); null when unanswered, not asked, or kept (on a
     page shown again: the number's "Keep my earlier answer" is a blank value, the check-all's its "keep" pair). */
  function trueNumberOrTicks(fieldset, spec) {
    if (fieldset.hidden) {
      return null;
    }
    if (fieldset.dataset.type === "select_multiple") {
      var name = fieldset.dataset.question;
      var keep = fieldset.querySelector('input[name="' + name + '.keep"]:checked');
      if (keep && keep.value === "1") {
        return null;
      }
      return spec.choices.map(function (choice, i) {
        var checked = fieldset.querySelector('input[name="' + name + "." + (i + 1) + '"]:checked');
        return Boolean(checked) && checked.value === "1";
      });
    }
    var value = fieldset.querySelector("select").value;
    return /^[0-9]+$/.test(value) ? value : null;
  }

  /* A randomized number's output as the server reads it (analysis/numeric_design.py wire): the one bit, or
     the Laplace output zero-padded to room for a minus and the digits of steps + clamp (no "+": a form
     encodes it as three bytes and a minus as one). */
  function numberWire(design, output) {
    if (design.kind === "bounded") {
      return String(output);
    }
    var scale = positiveRatio(design.scale);
    var reach = 40 * scale.num;
    var clamp = (reach - (reach % scale.den)) / scale.den + (reach % scale.den > 0 ? 1 : 0);
    var width = 1 + String(design.steps + clamp).length;
    var digits = String(Math.abs(output));
    while (digits.length < width - (output < 0 ? 1 : 0)) {
      digits = "0" + digits;
    }
    return (output < 0 ? "-" : "") + digits;
  }

  /* What is sent for a number or a check-all-that-apply question: the remembered value for this design when
     there is one (a retake sends the same), else a fresh draw (remembered); a plain one as answered. Drawn in
     every arm, the direct one too (surveys/design_contract.py RANDOMIZED_IN_EVERY_ARM). */
  function sentNumberOrTicks(fieldset, memo) {
    var spec = JSON.parse(fieldset.dataset.design);
    var truth = trueNumberOrTicks(fieldset, spec);
    if (truth === null) {
      return { value: fieldset.dataset.noAnswer, resent: false };
    }
    if (!spec.design) {
      return { value: Array.isArray(truth) ? truth.map(function (t) { return t ? "1" : "0"; }).join("") : truth,
               resent: false };
    }
    var remembered = memo[fieldset.dataset.question];
    if (remembered && remembered.design === fieldset.dataset.design) {
      return { value: remembered.value, resent: true };
    }
    var value = Array.isArray(truth) ? unaryBits(truth, spec.design).join("")
      : numberWire(spec.design, spec.design.kind === "bounded" ? boundedOutput(parseInt(truth, 10), spec.design)
        : laplaceOutput(parseInt(truth, 10), spec.design));
    memo[fieldset.dataset.question] = { design: fieldset.dataset.design, value: value };
    return { value: value, resent: false };
  }

  /* The wire value of every question's noisy answer, in form order. */
  function noisyWireValues(form) {
    var memo = loadMemo(form);
    var values = {};
    var differs = false;
    form.querySelectorAll("fieldset[data-question]").forEach(function (fieldset) {
      if (isNumberOrTicks(fieldset)) {
        var sent = sentNumberOrTicks(fieldset, memo);
        differs = differs || sent.resent;
        values[fieldset.dataset.question] = sent.value;
        return;
      }
      var wire = JSON.parse(fieldset.dataset.wire);
      var checked = fieldset.querySelector("input[type=radio]:checked");
      var truthIndex = checked && !fieldset.hidden ? wire.indexOf(checked.value) : -1;
      if (truthIndex < 0) {
        values[fieldset.dataset.question] = fieldset.dataset.noAnswer;
        return;
      }
      var remembered = randomizedHere(JSON.parse(fieldset.dataset.design).design) ? rememberedIndex(fieldset, memo) : -1;
      differs = differs || (remembered >= 0 && remembered !== truthIndex);
      values[fieldset.dataset.question] = wire[noisyIndex(fieldset, truthIndex, memo)];
    });
    saveMemo(form, memo);
    noteResent(form, differs);
    return values;
  }

  /* The arm of this respondent: the one a later page of several carries (data-carried: drawn once,
     on the first page), else remembered per survey and version (a reload or a retake keeps it),
     else drawn here; the direct arm's note is shown or hidden to match. */
  function settleArm(form) {
    var input = form.elements.namedItem("arm");
    if (!input) {
      return;
    }
    var key = memoKey(form) + ":arm";
    var remembered = null;
    try {
      remembered = window.localStorage.getItem(key);
    } catch (e) {
      remembered = null;
    }
    var groups = Boolean(input.dataset.groupShare);
    var valid = { n: !groups, 1: groups, 2: groups, d: Boolean(input.dataset.directShare) };
    currentArm = input.dataset.carried ? input.value
      : valid[remembered] ? remembered : drawArm(input.dataset.groupShare, input.dataset.directShare);
    try {
      window.localStorage.setItem(key, currentArm);
    } catch (e) {
      /* storage disabled: a reload draws again */
    }
    input.value = currentArm;
    var note = document.getElementById("direct-arm-note");
    if (note) {
      note.hidden = currentArm !== "d";
    }
    /* In the direct arm the yes/no and choice answers are not randomized: the note under the questions would say
       otherwise (the direct arm's note says that numbers and check-all questions stay randomized). */
    form.querySelectorAll(".js-note").forEach(function (jsNote) {
      jsNote.hidden = currentArm === "d";
    });
    /* An extended crosswise question: each group reads its own second statement (the page holds both). */
    form.querySelectorAll("[data-group-statement]").forEach(function (statement) {
      statement.hidden = statement.dataset.groupStatement !== (currentArm === "2" ? "2" : "1");
    });
  }

  /* Show the device wording in place of the JavaScript-off wording. */
  function showDeviceWording() {
    document.querySelectorAll("[data-mode]").forEach(function (element) {
      element.hidden = element.dataset.mode !== "device";
    });
  }

  /* The form's note when this browser remembers randomized answers for this survey. */
  function showMemoNote(form) {
    var note = document.getElementById("memo-note");
    var memo = loadMemo(form);
    var remembers = Array.prototype.some.call(form.querySelectorAll("fieldset[data-question]"), function (fieldset) {
      if (isNumberOrTicks(fieldset)) {
        var kept = memo[fieldset.dataset.question];
        return Boolean(kept) && kept.design === fieldset.dataset.design;
      }
      return randomizedHere(JSON.parse(fieldset.dataset.design).design) && rememberedIndex(fieldset, memo) >= 0;
    });
    /* A page shown again within one response says so itself (.kept-note), and a refused form was not stored
       ([data-refused]): in neither has this browser answered before. */
    if (note && remembers && !document.querySelector(".kept-note, [data-refused]")) {
      note.hidden = false;
    }
  }

  /* The thank-you page's note, when the form said that remembered answers were sent again. */
  function showResentNote() {
    var note = document.getElementById("resent-note");
    if (!note) {
      return;
    }
    try {
      var key = resentKey(note.dataset.survey);
      note.hidden = window.sessionStorage.getItem(key) !== "1";
      window.sessionStorage.removeItem(key);
    } catch (e) {
      /* storage disabled: no note */
    }
  }

  function submitNoisy(event) {
    var form = event.target;
    var button = event.submitter;
    var go = button && button.name === "go" ? button.value : null;
    event.preventDefault();
    if (go !== "back" && !form.reportValidity()) {
      return;
    }
    var answers = noisyWireValues(form);
    var out = document.createElement("form");
    out.method = "post";
    out.action = form.action;
    out.hidden = true;
    ["csrf_token", "submission_key", "invitation_code", "carried"].forEach(function (name) {
      var field = form.elements.namedItem(name);
      if (field) {
        out.appendChild(hidden(name, field.value));
      }
    });
    out.appendChild(hidden("randomized_on", "device"));
    if (form.elements.namedItem("arm")) {
      out.appendChild(hidden("arm", currentArm));
    }
    if (go) {
      out.appendChild(hidden("go", go)); /* a page of several: "next" or "back", one width */
    }
    Object.keys(answers).forEach(function (name) {
      out.appendChild(hidden("rr-" + name, answers[name]));
    });
    form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = true; });
    document.body.appendChild(out);
    out.submit();
  }

  window.RR = {
    randomBelow: randomBelow,
    randomizeYesNo: randomizeYesNo,
    randomizeBinary: randomizeBinary,
    randomizeIndex: randomizeIndex,
    randomizeChoiceIndex: randomizeChoiceIndex,
    randomizeAnswer: randomizeAnswer,
    groupDesign: groupDesign,
    drawArm: drawArm,
    setArm: function (arm) { currentArm = arm; }
  };

  document.addEventListener("DOMContentLoaded", function () {
    showResentNote();
    var form = document.getElementById("survey-form");
    if (!form || !window.crypto || !crypto.getRandomValues) {
      return; /* no crypto: the form posts as is, the server randomizes, and the page says so */
    }
    showDeviceWording();
    settleArm(form);
    showMemoNote(form);
    applySkipLogic(form);
    form.addEventListener("change", function () { applySkipLogic(form); });
    form.addEventListener("submit", submitNoisy);
  });
})();
