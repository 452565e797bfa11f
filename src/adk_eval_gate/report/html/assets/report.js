"use strict";
// report.html's only script (allowed by its hash in the Content-Security-Policy). It fills a case's details when
// the case is opened (escaped HTML made by adk_eval_gate.report.html, kept in the page as compressed chunks of
// cases: only the chunk of an opened case is unpacked), marks the word differences of the answers (building
// elements with textContent only), and applies the filters.
(function () {
  const list = document.getElementById("case-list");
  const cases = Array.from(list.querySelectorAll("details.case"));
  let packed = null;
  const chunks = new Map();

  function inflate(text) {
    const bytes = Uint8Array.from(atob(text), function (c) { return c.charCodeAt(0); });
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }

  function detailsOf(index) {
    if (packed === null) packed = JSON.parse(document.getElementById("case-details").textContent);
    const number = Math.floor(index / packed.size);
    if (!chunks.has(number)) chunks.set(number, inflate(packed.chunks[number]));
    return chunks.get(number).then(function (chunk) { return chunk[index % packed.size]; });
  }

  const WORDS = /\S+\s*/g;
  const MAX_CELLS = 4000000; // the word diff's table: about 2,000 words on each side

  function words(text) {
    const lead = text.match(/^\s*/)[0];
    const tokens = text.slice(lead.length).match(WORDS) || [];
    if (lead) tokens.unshift(lead);
    return tokens;
  }

  // Longest common subsequence of the words (compared without their trailing spaces): flags of kept words.
  function common(a, b) {
    const n = a.length, m = b.length, width = m + 1;
    const table = new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i * width + j] = a[i].trim() === b[j].trim()
          ? table[(i + 1) * width + j + 1] + 1
          : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
      }
    }
    const keepA = new Uint8Array(n), keepB = new Uint8Array(m);
    let i = 0, j = 0;
    while (i < n && j < m) {
      if (a[i].trim() === b[j].trim()) { keepA[i++] = 1; keepB[j++] = 1; }
      else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) i++;
      else j++;
    }
    return [keepA, keepB];
  }

  function mark(pre, tokens, keep, tag) {
    pre.textContent = "";
    let plain = "";
    tokens.forEach(function (token, k) {
      if (keep[k]) { plain += token; return; }
      if (plain) { pre.appendChild(document.createTextNode(plain)); plain = ""; }
      const changed = document.createElement(tag);
      changed.textContent = token;
      pre.appendChild(changed);
    });
    if (plain) pre.appendChild(document.createTextNode(plain));
  }

  function wordDiff(pair) {
    const expected = pair.querySelector("pre.expected"), actual = pair.querySelector("pre.actual");
    if (!expected || !actual) return;
    const a = words(expected.textContent), b = words(actual.textContent);
    if ((a.length + 1) * (b.length + 1) > MAX_CELLS) {
      pair.setAttribute("data-diff", "too-long");
      return;
    }
    const keep = common(a, b);
    mark(expected, a, keep[0], "del");
    mark(actual, b, keep[1], "ins");
    pair.setAttribute("data-diff", "done");
  }

  function fill(item) {
    const body = item.querySelector(".case-body");
    if (body.childElementCount || body.textContent || body.dataset.filling) return;
    body.dataset.filling = "1";
    detailsOf(Number(item.dataset.index)).then(function (html) {
      body.innerHTML = html; // escaped HTML written by the report renderer
      body.querySelectorAll('.answers[data-diff="words"]').forEach(wordDiff);
    });
  }

  list.addEventListener("toggle", function (event) {
    if (event.target.matches && event.target.matches("details.case") && event.target.open) fill(event.target);
  }, true);

  const statusBoxes = Array.from(document.querySelectorAll('#filters input[name="status"]'));
  const fileSelect = document.getElementById("file-filter");
  const metricSelect = document.getElementById("metric-filter");
  const failingBox = document.getElementById("metric-failing");
  const textBox = document.getElementById("text-filter");
  const shownCount = document.getElementById("shown-count");

  function listed(value, wanted) {
    return (" " + value + " ").indexOf(" " + wanted + " ") >= 0;
  }

  function apply() {
    const statuses = new Set(statusBoxes.filter(function (box) { return box.checked; }).map(function (box) {
      return box.value;
    }));
    const file = fileSelect.value, metric = metricSelect.value, failing = failingBox.checked;
    const needle = textBox.value.trim().toLowerCase();
    let shown = 0;
    cases.forEach(function (item) {
      const data = item.dataset;
      const visible = statuses.has(data.status)
        && (file === "" || data.file === file)
        && (metric === "" || listed(failing ? data.failing : data.metrics, metric))
        && (metric !== "" || !failing || data.failing !== "")
        && (needle === "" || data.name.indexOf(needle) >= 0);
      item.hidden = !visible;
      if (visible) shown++;
    });
    shownCount.textContent = shown + " of " + cases.length + " cases shown";
  }

  statusBoxes.concat([fileSelect, metricSelect, failingBox]).forEach(function (control) {
    control.addEventListener("change", apply);
  });
  textBox.addEventListener("input", apply);

  // The sticky filters must never hide what takes the focus: the page scrolls it below them (scroll-padding).
  const bar = document.getElementById("filters");
  function padBelowBar() {
    document.documentElement.style.setProperty("--bar", (bar.offsetHeight + 8) + "px");
  }
  window.addEventListener("resize", padBelowBar);
  padBelowBar();

  const target = location.hash && document.getElementById(location.hash.slice(1));
  if (target && target.matches("details.case")) { target.open = true; fill(target); }
  apply();
  document.documentElement.setAttribute("data-ready", "1");
})();
