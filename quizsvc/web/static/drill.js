// Pasting a whole matrix into one grid cell spreads it over the grid.
(function () {
  "use strict";
  const cells = Array.from(document.querySelectorAll("input.cell"));
  if (!cells.length) return;
  const at = (r, c) => cells.find((el) => +el.dataset.row === r && +el.dataset.col === c);
  cells.forEach((cell) => {
    cell.addEventListener("paste", (event) => {
      const text = (event.clipboardData || window.clipboardData).getData("text");
      // "[[a, b], [c, d]]": the boundary between two bracketed rows is a row break too
      const rows = text.trim().replace(/[\]］]\s*[,，]?\s*[\[［]/g, "\n")
        .replace(/[\[\]［］]/g, " ").split(/\s*[\n;；]\s*/).filter(Boolean);
      const values = rows.map((row) => row.trim().split(/[\s,，]+/).filter(Boolean));
      if (values.length === 1 && values[0].length === 1) return; // a single number: paste as usual
      event.preventDefault();
      const r0 = +cell.dataset.row, c0 = +cell.dataset.col;
      values.forEach((row, i) => row.forEach((value, j) => {
        const target = at(r0 + i, c0 + j);
        if (target) target.value = value;
      }));
    });
  });
})();
