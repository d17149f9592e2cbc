// kacl console: progressive enhancement only; every page works without this file.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  // Plan page: load a chosen file into the text area (the form posts text, not files).
  var file = document.getElementById("plan-file");
  var text = document.getElementById("document");
  if (file && text) {
    file.hidden = false;
    file.addEventListener("change", function () {
      var f = file.files && file.files[0];
      if (!f) return;
      f.text().then(function (t) { text.value = t; });
    });
  }
  // ACL search sent while the answer arrived: its counts and pager came last; put them
  // above the rows, where a page rendered whole has them.
  var top = document.getElementById("result-top");
  var early = document.getElementById("early-rows");
  if (top && early && early.offsetParent !== null) {
    early.parentNode.insertBefore(top, early);
  }
  // Cluster page: reload the chart image every 5 s.
  var chart = document.getElementById("metrics-chart");
  if (chart) {
    setInterval(function () {
      fetch("/cluster/chart.svg", { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (svg) { if (svg) chart.innerHTML = svg; });
    }, 5000);
  }
});
