"use strict";
// report.html's only script (allowed by its hash in the Content-Security-Policy). It builds the case list's rows
// from the page's data (adk_eval_gate.report.html.cases.case_rows: every text set as textContent), the first
// screens at once and the rest in short slices, so a list of 10,000 cases is ready at once and the page answers
// while the rest comes; it applies the filters to every case; it fills a case's details when the case is opened
// (escaped HTML made by adk_eval_gate.report.html, kept in the page as compressed chunks of cases: only the chunk
// of an opened case is unpacked) and marks the word differences of the answers (elements with textContent only).
(function () {
  const list = document.getElementById("case-list");
  const header = list.firstElementChild;
  const data = JSON.parse(document.getElementById("case-rows").textContent);
  const rows = data.rows;
  const STATUS = 0, FILE = 1, METRICS = 2, FAILING = 3, NAME = 4, CELLS = 5; // cases.ROW_FIELDS
  const FIRST = 100; // rows built before the page is ready: more than a screen
  const SLICE_MS = 12; // then rows are added for this long at a time, between which the page answers
  const nodes = new Array(rows.length);
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

  // A piece of a cell: bare text, or [text, style] with style an index of data.styles ([class, title]).
  function piece(part) {
    if (typeof part === "string") return document.createTextNode(part);
    const span = document.createElement("span");
    const style = data.styles[part[1]];
    span.className = style[0];
    if (style[1]) span.title = style[1];
    span.textContent = part[0];
    return span;
  }

  function row(index) {
    if (nodes[index]) return nodes[index];
    const item = document.createElement("details");
    item.className = "case";
    item.id = "case-" + index;
    item.dataset.index = index;
    item.dataset.status = rows[index][STATUS];
    const summary = document.createElement("summary");
    summary.className = "row";
    rows[index][CELLS].forEach(function (cell, column) {
      const span = document.createElement("span");
      span.className = data.columns[column];
      cell.forEach(function (part) { span.appendChild(piece(part)); });
      summary.appendChild(span);
    });
    const body = document.createElement("div");
    body.className = "case-body";
    item.append(summary, body);
    nodes[index] = item;
    return item;
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

  // The list shows `matching` (the indexes of the cases the filters let through, in the page's order); its first
  // `added` rows are in the page, in blocks of BLOCK rows that the browser lays out only near the screen
  // (content-visibility: far cheaper than each row on its own; a block's height is guessed until then, from
  // ROW_PX a row). `generation` tells a pending slice that the filters changed since.
  const BLOCK = 100, ROW_PX = 48;
  let matching = [], added = 0, generation = 0, block = null;

  function addUntil(end) {
    while (added < end) {
      if (added % BLOCK === 0) {
        block = document.createElement("div");
        block.className = "rows";
        list.appendChild(block);
      }
      const fragment = document.createDocumentFragment();
      const stop = Math.min(end, added - (added % BLOCK) + BLOCK);
      for (; added < stop; added++) fragment.appendChild(row(matching[added]));
      block.appendChild(fragment);
    }
    if (added === matching.length && added % BLOCK) {
      block.style.containIntrinsicSize = "auto " + (added % BLOCK) * ROW_PX + "px"; // the last block, not full
    }
  }

  function addLater(mine) {
    setTimeout(function () {
      if (mine !== generation) return;
      const started = performance.now();
      while (added < matching.length && performance.now() - started < SLICE_MS) {
        addUntil(Math.min(matching.length, added + 25));
      }
      if (added < matching.length) addLater(mine);
      else list.setAttribute("aria-busy", "false");
    }, 0);
  }

  function show() {
    generation++;
    list.replaceChildren(header);
    added = 0;
    addUntil(Math.min(FIRST, matching.length));
    list.setAttribute("aria-busy", added < matching.length ? "true" : "false");
    if (added < matching.length) addLater(generation);
  }

  function apply() {
    const statuses = new Set(statusBoxes.filter(function (box) { return box.checked; }).map(function (box) {
      return box.value;
    }));
    const file = fileSelect.value === "" ? -1 : Number(fileSelect.value);
    const metric = metricSelect.value === "" ? -1 : Number(metricSelect.value);
    const failing = failingBox.checked;
    const needle = textBox.value.trim().toLowerCase();
    matching = [];
    rows.forEach(function (fields, index) {
      if (statuses.has(fields[STATUS])
        && (file < 0 || fields[FILE] === file)
        && (metric < 0 || (failing ? fields[FAILING] : fields[METRICS]).indexOf(metric) >= 0)
        && (metric >= 0 || !failing || fields[FAILING].length > 0)
        && (needle === "" || fields[NAME].indexOf(needle) >= 0)) matching.push(index);
    });
    shownCount.textContent = matching.length + " of " + rows.length + " cases shown";
    show();
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

  // A link to a case (report.html#case-12) opens it, its row added at once if the filters show it.
  function openLinked() {
    const linked = /^#case-(\d+)$/.exec(location.hash);
    const position = linked ? matching.indexOf(Number(linked[1])) : -1;
    if (position < 0) return;
    if (position >= added) addUntil(position + 1);
    const item = nodes[matching[position]];
    item.open = true;
    fill(item);
    item.scrollIntoView();
  }
  window.addEventListener("hashchange", openLinked);

  apply();
  openLinked();
  document.documentElement.setAttribute("data-ready", "1");
})();
