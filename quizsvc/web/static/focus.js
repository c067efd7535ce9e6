// A rejected form's page opens at its fragment (the question or the answer form), and
// browsers then skip `autofocus` (HTML: autofocus is not run when the URL targets an
// element), and Chromium clears the focus when it scrolls to a fragment that cannot take
// it. So once the page has loaded (and scrolled), focus the field the server marked,
// without scrolling away: the keyboard and screen readers start at the field to fix.
(function () {
  "use strict";
  window.addEventListener("load", () => {
    const field = document.querySelector("[autofocus]");
    if (field && document.activeElement !== field) field.focus({ preventScroll: true });
  });
})();
