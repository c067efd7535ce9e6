// A table's scroll box (render.matrix_table, _scroll.html), and a display formula's
// (quizsvc/bank/markdown.py), is a keyboard stop so that a table or formula wider than the
// page can be scrolled without a mouse. A box whose table fits has
// nothing to scroll: it leaves the Tab order, or a page of small matrices (the worked
// example) would make the keyboard stop at every one. Checked again whenever a box
// changes size (a phone turned, a window resized). Without this script every box stays a
// stop, which is the safe side.
(function () {
  "use strict";
  const boxes = document.querySelectorAll(".matrix-scroll, .table-scroll, .math-display");
  const update = (box) => {
    if (box.scrollWidth > box.clientWidth) box.setAttribute("tabindex", "0");
    else if (document.activeElement !== box) box.removeAttribute("tabindex");
  };
  boxes.forEach(update);
  if ("ResizeObserver" in window) {
    const observer = new ResizeObserver((entries) => entries.forEach((e) => update(e.target)));
    boxes.forEach((box) => observer.observe(box));
  }
})();
