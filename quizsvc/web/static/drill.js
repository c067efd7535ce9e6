// The answer grid. Pasting a whole matrix into one cell spreads it over the grid from that
// cell; one too large to fit from there but of the grid's own shape fills the whole grid,
// and any other leaves the grid as it was and says why, naming both shapes (values dropped
// at the grid's edge would go unseen), or, for rows of different lengths, the first row
// whose length differs from row 1's, as the server does. A matrix that fits the grid, pasted
// or typed into the "Paste a matrix" box, is copied into the grid and the box emptied (a
// typed one when the box is left, e.g. for the Submit button), so the grid is the one
// answer the learner sees and edits: the server reads the box only while the grid is empty,
// and on a retry the grid holds the last attempt. The arrow keys move between cells as in a
// spreadsheet; a cell's "−∞" button fills in minus infinity. The error summary's links lead
// to the fields to fix.
(function () {
  "use strict";
  // A link of the error summary (above the grid) takes the keyboard to its cell or box, with
  // the field in the middle of the screen: the row and column headers stay in view.
  document.querySelectorAll(".error-summary a[href^='#']").forEach((link) => {
    link.addEventListener("click", (event) => {
      const field = document.getElementById(link.getAttribute("href").slice(1));
      if (!field) return;
      event.preventDefault();
      field.scrollIntoView({ block: "center" });
      field.focus({ preventScroll: true });
    });
  });

  const cells = Array.from(document.querySelectorAll("input.cell"));
  if (!cells.length) return;
  const at = (r, c) => cells.find((el) => +el.dataset.row === r && +el.dataset.col === c);
  const rowCount = Math.max(...cells.map((el) => +el.dataset.row)) + 1;
  const colCount = Math.max(...cells.map((el) => +el.dataset.col)) + 1;

  // Split as the server's reader (quizsvc/grading/parse.py) reads a table: NumPy's
  // array(...) wrapper, round brackets as square ones, "1 × 10^(-3)" as one value.
  function matrixValues(text) {
    let table = text.trim().replace(/（/g, "(").replace(/）/g, ")");
    const wrapper = table.match(/^(?:(?:np|numpy|torch)\.)?(?:array|tensor)\(([\s\S]*)\)$/);
    if (wrapper) table = wrapper[1].replace(/,\s*dtype\s*=\s*[\w.]+\s*$/, "");
    table = table.replace(/\^\s*\(\s*([+\-−]?\d+)\s*\)/g, "^$1")
      .replace(/\s*([×xX*·])\s*(?=10\^)/g, "$1")
      .replace(/[(（]/g, "[").replace(/[)）]/g, "]");
    // "[[a, b], [c, d]]": the boundary between two bracketed rows is a row break too
    const rows = table.replace(/[\]］]\s*[,，]?\s*[\[［]/g, "\n")
      .replace(/[\[\]［］]/g, " ").split(/[ \t]*[\r\n;；][ \t]*/).filter((row) => row.trim());
    // A spreadsheet separates its cells by tabs, and where the decimal mark is a comma
    // ("0,5") the comma is part of a number: the server then says how to write it.
    return rows.map((row) => row.includes("\t")
      ? row.split("\t").map((value) => value.trim())
      : row.trim().split(/[\s,，]+/).filter(Boolean));
  }

  function fill(values, r0, c0) {
    values.forEach((row, i) => row.forEach((value, j) => {
      const target = at(r0 + i, c0 + j);
      if (target) {
        target.value = value;
        target.dispatchEvent(new Event("input", { bubbles: true })); // drafts.js keeps it
      }
    }));
  }

  const fits = (values) =>
    values.length === rowCount && values.every((row) => row.length === colCount);
  const width = (values) => Math.max(...values.map((row) => row.length));
  // the first row (counted from 0) whose length differs from row 1's, or -1 if none does
  const unevenRow = (values) => values.findIndex((row) => row.length !== values[0].length);
  // a status line's text for the pasted values: its data-ragged one, naming the uneven row,
  // for rows of different lengths, else its data-<key> one, naming both shapes
  function statusText(line, key, values) {
    const uneven = unevenRow(values);
    if (uneven >= 0) {
      return line.dataset.ragged.replace("{row}", uneven + 1)
        .replace("{count}", values[uneven].length).replace("{width}", values[0].length);
    }
    return line.dataset[key]
      .replace("{rows}", values.length).replace("{cols}", width(values))
      .replace("{grid_rows}", rowCount).replace("{grid_cols}", colCount);
  }
  const gridStatus = document.querySelector(".grid-status");
  function sayOfGrid(key, values) {
    if (gridStatus) gridStatus.textContent = statusText(gridStatus, key, values);
  }

  cells.forEach((cell) => {
    cell.addEventListener("paste", (event) => {
      const values = matrixValues((event.clipboardData || window.clipboardData).getData("text"));
      if (values.length === 1 && values[0].length === 1) return; // a single number: paste as usual
      event.preventDefault();
      const r0 = +cell.dataset.row;
      const c0 = +cell.dataset.col;
      if (unevenRow(values) >= 0) {
        sayOfGrid("noFit", values); // rows of different lengths: nothing pasted
      } else if (r0 + values.length <= rowCount && c0 + width(values) <= colCount) {
        fill(values, r0, c0);
        if (gridStatus) gridStatus.textContent = "";
      } else if (fits(values)) {
        fill(values, 0, 0);
        sayOfGrid("filled", values);
      } else {
        sayOfGrid("noFit", values);
      }
    });
  });

  // Up and down move to the cell above and below; left and right too once the caret is at
  // the value's edge (or the whole value is selected), so that they still move the caret
  // within a value being edited.
  const atStart = (el) => el.selectionEnd === 0 ||
    (el.selectionStart === 0 && el.selectionEnd === el.value.length);
  const atEnd = (el) => el.selectionStart === el.value.length ||
    (el.selectionStart === 0 && el.selectionEnd === el.value.length);
  cells.forEach((cell) => {
    cell.addEventListener("keydown", (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      const r = +cell.dataset.row;
      const c = +cell.dataset.col;
      const next = {
        ArrowUp: () => at(r - 1, c),
        ArrowDown: () => at(r + 1, c),
        ArrowLeft: () => (atStart(cell) ? at(r, c - 1) : null),
        ArrowRight: () => (atEnd(cell) ? at(r, c + 1) : null),
      }[event.key];
      const target = next && next();
      if (!target) return;
      event.preventDefault();
      target.focus();
      target.select();
    });
  });

  // The "−∞" buttons (only where the answer may hold minus infinity): hidden in the page as
  // sent, so that without this script there is no button that does nothing.
  document.querySelectorAll("button.fill-minus-infinity").forEach((button) => {
    const cell = document.getElementById(button.dataset.cell);
    if (!cell) return;
    button.hidden = false;
    button.addEventListener("click", () => {
      cell.value = "−∞";
      cell.dispatchEvent(new Event("input", { bubbles: true })); // drafts.js keeps it
    });
  });

  const box = document.querySelector("textarea[name=pasted]");
  const status = document.querySelector(".paste-status");
  if (!box) return;
  function copyIntoGrid(values) {
    fill(values, 0, 0);
    box.value = "";
    box.dispatchEvent(new Event("input", { bubbles: true }));
    if (status) {
      status.textContent = status.dataset.message
        .replace("{rows}", rowCount).replace("{cols}", colCount);
    }
  }
  // left in the box as it is (the server refuses it, and says so, using no attempt)
  function sayWrongShape(values) {
    if (!status) return;
    status.textContent = values.length ? statusText(status, "wrongShape", values) : "";
  }
  box.addEventListener("paste", (event) => {
    const values = matrixValues((event.clipboardData || window.clipboardData).getData("text"));
    if (!fits(values)) {
      sayWrongShape(values);
      return;
    }
    event.preventDefault();
    copyIntoGrid(values);
    at(0, 0).focus();
  });
  // typed, not pasted: copied when the box is left (the focus goes on, to the Submit button
  // say, so it is not moved back to the grid)
  box.addEventListener("change", () => {
    const values = matrixValues(box.value);
    if (fits(values)) copyIntoGrid(values);
    else sayWrongShape(values);
  });
})();
