// A rejected form's page, and the page right after an answer, open at a fragment (the
// question or the answer form), and browsers then skip `autofocus` (HTML: autofocus is not
// run when the URL targets an element), and Chromium clears the focus when it scrolls to a
// fragment that cannot take it. So once the page has loaded (and scrolled), focus what the
// server marked, without scrolling away: the keyboard and screen readers start at the field
// to fix, or at the answer's result.
(function () {
  "use strict";
  window.addEventListener("load", () => {
    const field = document.querySelector("[autofocus]");
    if (field && document.activeElement !== field) field.focus({ preventScroll: true });
  });
})();
