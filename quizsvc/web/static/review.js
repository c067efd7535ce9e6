// The review pages without a round trip: the score of the ticked key points shown as they are
// ticked (their weights' share, as the server computes it again when the form is sent), and
// keys to go through the list: N and P follow the Next and Previous links (outside a text
// box), Ctrl+Enter (or Cmd+Enter) sends the form with Save and next. Everything works without
// this script: the links, the buttons and their access keys.
(function () {
  "use strict";
  const lang = document.documentElement.lang || "en";
  const percent = (share) => new Intl.NumberFormat(lang, {
    style: "percent", maximumFractionDigits: 1,
  }).format(share);

  document.querySelectorAll("form.review-form").forEach((form) => {
    const output = form.querySelector("output[id^='points-sum-']");
    const total = Number(form.dataset.totalWeight);
    if (!output || !(total > 0)) return;
    const boxes = Array.from(form.querySelectorAll("input[type=checkbox][name=point]"));
    const show = () => {
      const ticked = boxes.filter((box) => box.checked)
        .reduce((sum, box) => sum + Number(box.dataset.weight), 0);
      output.textContent = percent(Math.min(1, ticked / total));
    };
    boxes.forEach((box) => box.addEventListener("change", show));
    // drafts.js may tick boxes back after a reload: show their sum once it has
    window.addEventListener("load", show);
    show();
  });

  const notText = ["checkbox", "radio", "button", "submit", "reset"];
  const typing = (element) => element && (element.isContentEditable
    || ["TEXTAREA", "SELECT"].includes(element.tagName)
    || (element.tagName === "INPUT" && !notText.includes(element.type)));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      const form = event.target.closest && event.target.closest("form.review-form");
      const next = form && form.querySelector("button[name=then][value=next]");
      if (next) {
        event.preventDefault();
        form.requestSubmit(next);
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const rel = { n: "next", p: "prev" }[event.key.toLowerCase()];
    const link = rel && document.querySelector(`nav.review-nav a[rel=${rel}]`);
    if (link) {
      event.preventDefault();
      link.click();
    }
  });
})();
