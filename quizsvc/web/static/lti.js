// The Deep Linking response: the form that carries the signed JWT back to the LMS is sent
// as soon as the page loads (its button does the same without JavaScript).
(function () {
  "use strict";
  const form = document.querySelector("form[data-autosubmit]");
  if (form) form.submit();
})();
