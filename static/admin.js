/* Admin pages: the copy buttons beside each survey's public link.
 *
 * Without JavaScript the buttons stay hidden and the link, in a read-only field, can be
 * selected by hand. Nothing here touches a respondent's answers.
 */
(function () {
  "use strict";

  function copy(field, button) {
    function done(text) { button.textContent = text; }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(
        function () { done("Copied"); },
        function () { field.select(); done("Press Ctrl+C to copy"); }
      );
      return;
    }
    field.select();
    done(document.execCommand && document.execCommand("copy") ? "Copied" : "Press Ctrl+C to copy");
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("button[data-copy]").forEach(function (button) {
      var field = document.getElementById(button.dataset.copy);
      if (!field) { return; }
      button.hidden = false;
      button.addEventListener("click", function () { copy(field, button); });
    });
  });
}());
