// The time left of a started timed quiz (the server wrote it as m:ss when the page was
// made): counted down each second to the moment in data-ends. The server decides whether an
// answer is in time; this only shows the learner how long is left.
(function () {
  "use strict";
  var clock = document.querySelector(".clock[data-ends]");
  if (!clock) return;
  var ends = Date.parse(clock.getAttribute("data-ends"));
  if (isNaN(ends)) return;
  function show() {
    var left = Math.max(0, Math.floor((ends - Date.now()) / 1000));
    var seconds = left % 60;
    clock.textContent = Math.floor(left / 60) + ":" + (seconds < 10 ? "0" : "") + seconds;
    if (left === 0) window.clearInterval(timer);
  }
  var timer = window.setInterval(show, 1000);
  show();
})();
