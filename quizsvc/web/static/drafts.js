// What is typed into an answer form (or an instructor's review form) is kept in this tab
// (sessionStorage) until the answer is sent and taken, and put back when the page opens
// again: after a reload (a phone's pull to refresh), the back button, the language toggle, a
// login that ended before the answer was sent (the login page leads back here), or, in the
// review queue, another answer's review sent first. The browser restores none of it on these
// pages (no-store; the grid's cells are also autocomplete=off, so that no suggestions pop up
// over the grid).
//
// A form's data-draft is its key within the page's data-draft-scope (a drill variant and
// its attempts left, so a graded attempt's page never shows an older draft; a chapter and
// its question; the review queue, or one answer's page, and the answer with the latest
// review the form was opened after). A draft of the scope whose form the page no longer has (answered, graded)
// is dropped, and logging out drops every draft, as the session keeps nothing of a user
// after it.
(function () {
  "use strict";
  const PREFIX = "quizsvc-draft:";
  let drafts;
  try {
    drafts = window.sessionStorage;
  } catch (error) {
    return; // storage disabled: nothing is kept
  }
  if (!drafts) return;

  function dropDrafts(keep) {
    for (let i = drafts.length - 1; i >= 0; i -= 1) {
      const key = drafts.key(i);
      if (key && keep(key) === false) drafts.removeItem(key);
    }
  }
  document.querySelectorAll("header form[action$='/logout']").forEach((logout) => {
    logout.addEventListener("submit", () => dropDrafts((key) => !key.startsWith(PREFIX)));
  });

  const scope = document.querySelector("[data-draft-scope]");
  if (!scope) return;
  const scopePrefix = `${PREFIX}${scope.dataset.draftScope}:`;
  const forms = Array.from(document.querySelectorAll("form[data-draft]"));
  const keyOf = (form) => scopePrefix + form.dataset.draft;
  const onPage = new Set(forms.map(keyOf));
  dropDrafts((key) => !key.startsWith(scopePrefix) || onPage.has(key));

  // a radio button or a checkbox is kept as checked or not, by its name and value
  const checkable = (field) => field.type === "radio" || field.type === "checkbox";
  const entry = (field) => (checkable(field) ? `${field.name}=${field.value}` : field.name);
  const fields = (form) => Array.from(form.elements).filter(
    (field) => field.name && !["hidden", "submit", "button"].includes(field.type),
  );

  forms.forEach((form) => {
    let draft = null;
    try {
      draft = JSON.parse(drafts.getItem(keyOf(form)));
    } catch (error) {
      draft = null; // not a draft this script wrote
    }
    if (draft && typeof draft === "object") {
      fields(form).forEach((field) => {
        const kept = draft[entry(field)];
        if (checkable(field) && typeof kept === "boolean") field.checked = kept;
        else if (!checkable(field) && typeof kept === "string") field.value = kept;
      });
    }
    form.addEventListener("input", () => {
      const typed = {};
      fields(form).forEach((field) => {
        typed[entry(field)] = checkable(field) ? field.checked : field.value;
      });
      try {
        drafts.setItem(keyOf(form), JSON.stringify(typed));
      } catch (error) {
        // storage full: the page works on, without a draft
      }
    });
  });
})();
