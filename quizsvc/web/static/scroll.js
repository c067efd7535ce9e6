// A table's scroll box (render.matrix_table, _scroll.html), and a display formula's
// (quizsvc/bank/markdown.py), is a keyboard stop so that a table or formula wider than the
// page can be scrolled without a mouse. A box whose table fits has
// nothing to scroll: it leaves the Tab order, or a page of small matrices (the worked
// example) would make the keyboard stop at every one. Checked again whenever a box
// changes size (a phone turned, a window resized). Without this script every box stays a
// stop, which is the safe side.
// Every box is measured before any is changed: a measure after a change would make the
// browser lay the page out again, once per box (hundreds on the worked example).
(function () {
  "use strict";
  const boxes = Array.from(document.querySelectorAll(".matrix-scroll, .table-scroll, .math-display"));
  const update = (targets) => {
    const scrolls = targets.map((box) => box.scrollWidth > box.clientWidth);
    const widths = targets.map((box) => box.clientWidth);
    targets.forEach((box, i) => {
      // not laid out (in a step the browser skips until it nears the screen): it keeps its
      // stop until it is measured
      if (widths[i] === 0) return;
      if (scrolls[i]) box.setAttribute("tabindex", "0");
      else if (document.activeElement !== box) box.removeAttribute("tabindex");
    });
  };
  // A box in a part of the page the browser stops laying out while it is far from the screen
  // (content-visibility: auto) cannot be measured there: it is a stop again, the safe side,
  // until the observer measures it once the part nears the screen.
  document.addEventListener(
    "contentvisibilityautostatechange",
    (event) => {
      if (!event.skipped) return;
      boxes.filter((box) => event.target.contains(box)).forEach((box) => box.setAttribute("tabindex", "0"));
    },
    true,
  );
  if ("ResizeObserver" in window) {
    // it reports every box once when it starts observing, after the page's first layout
    const observer = new ResizeObserver((entries) => update(entries.map((e) => e.target)));
    boxes.forEach((box) => observer.observe(box));
  } else {
    update(boxes);
  }
})();
