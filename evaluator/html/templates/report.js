"use strict";
// Filters: every <select data-filter="KEY"> hides the [data-row] elements whose data-KEY differs;
// the rows marked data-count are the ones counted as shown.
// Links to records inside a closed transcript open it first. No data is ever written into this
// script: the page carries it in escaped attributes.
(function () {
  const selects = Array.from(document.querySelectorAll("select[data-filter]"));
  const rows = Array.from(document.querySelectorAll("[data-row]"));
  const shown = document.querySelector("[data-shown]");

  function applyFilters() {
    let visibleRows = 0;
    for (const row of rows) {
      const visible = selects.every((select) => !select.value || row.dataset[select.dataset.filter] === select.value);
      row.hidden = !visible;
      if (visible && "count" in row.dataset) {
        visibleRows += 1;
      }
    }
    if (shown) {
      shown.textContent = String(visibleRows);
    }
  }

  function revealTarget() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    if (!target) {
      return;
    }
    for (let node = target.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") {
        node.open = true;
      }
      if (node.hidden) {
        node.hidden = false;
      }
    }
    target.scrollIntoView({ block: "center" });
  }

  for (const select of selects) {
    select.addEventListener("change", applyFilters);
  }
  window.addEventListener("hashchange", revealTarget);
  applyFilters();
  revealTarget();
})();
