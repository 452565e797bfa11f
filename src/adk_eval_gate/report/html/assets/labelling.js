"use strict";
// report.html's labelling view (in the page's one script with report.js, allowed by its hash in the
// Content-Security-Policy). It builds the judged turns from the page's data (adk_eval_gate.report.html.
// labelling_view: every text set as textContent) when the view is opened, each with controls to agree or disagree
// with the judge's verdict or give a score on the metric's scale, and downloads the labels file as a Blob: each
// turn a person labelled confirmed, the others as the judge suggested them and unconfirmed, as `adk-eval-gate
// label` writes them. Nothing leaves the page but the downloaded file.
(function () {
  const view = document.getElementById("label-view");
  if (!view) return;
  const OPPOSITE = { valid: "invalid", invalid: "valid", yes: "no", no: "yes" };
  const listing = document.getElementById("label-items");
  const counter = document.getElementById("label-count");
  const labeller = document.getElementById("labeller");
  const data = JSON.parse(document.getElementById("label-data").textContent);
  const items = data.items;
  const chosen = new Array(items.length); // per turn: the person's label, or undefined
  let built = false;
  let lastUrl = null;

  function node(tag, cls, text) {
    const made = document.createElement(tag);
    if (cls) made.className = cls;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function scaleText(scale) {
    return scale ? " (" + scale[0] + " to " + scale[1] + ")" : "";
  }

  function texts(item) {
    const list = node("dl", "kv");
    [["user", item.user], ["answer", item.answer], ["expected", item.expected]].forEach(function (pair) {
      if (pair[1] === null) return;
      const pre = node("pre", null, pair[1]);
      pre.tabIndex = 0;
      const value = node("dd");
      value.appendChild(pre);
      list.append(node("dt", null, pair[0]), value);
    });
    return list;
  }

  function choice(index, value, words) {
    const input = node("input");
    input.type = "radio";
    input.name = "label-" + index;
    input.value = value;
    const label = node("label", "choice");
    label.append(input, document.createTextNode(words));
    return label;
  }

  function inScale(value, scale) {
    return Number.isFinite(value) && (!scale || (value >= scale[0] && value <= scale[1]));
  }

  function controls(item, index) {
    const set = node("fieldset");
    set.appendChild(node("legend", null, "Your label"));
    const none = choice(index, "", "not labelled");
    none.firstElementChild.checked = true;
    set.appendChild(none);
    if (typeof item.judge === "string") {
      set.appendChild(choice(index, "agree", "agree: " + item.judge));
      set.appendChild(choice(index, "disagree", "disagree: " + OPPOSITE[item.judge]));
    } else {
      set.appendChild(choice(index, "agree", "agree: " + item.judge));
      const own = choice(index, "score", "my score" + scaleText(item.scale) + ": ");
      const score = node("input");
      score.type = "number";
      score.step = "any";
      if (item.scale) { score.min = item.scale[0]; score.max = item.scale[1]; }
      score.setAttribute("aria-label", "my score for turn " + (index + 1) + scaleText(item.scale));
      own.appendChild(score);
      set.appendChild(own);
    }
    set.addEventListener("change", function () { decide(item, index, set); });
    set.addEventListener("input", function (event) {
      if (event.target.type === "number") {
        set.querySelector('input[value="score"]').checked = true;
        decide(item, index, set);
      }
    });
    return set;
  }

  function decide(item, index, set) {
    const picked = set.querySelector("input[type=radio]:checked").value;
    const score = set.querySelector("input[type=number]");
    let label;
    if (picked === "agree") label = item.judge;
    else if (picked === "disagree") label = OPPOSITE[item.judge];
    else if (picked === "score") {
      const value = score.value === "" ? NaN : Number(score.value);
      score.setAttribute("aria-invalid", inScale(value, item.scale) ? "false" : "true");
      if (inScale(value, item.scale)) label = value;
    }
    chosen[index] = label;
    set.parentElement.dataset.state = label === undefined ? "unlabelled" : "labelled";
    count();
  }

  function count() {
    const labelled = chosen.filter(function (label) { return label !== undefined; }).length;
    counter.textContent = labelled + " of " + items.length + (items.length === 1 ? " turn" : " turns") + " labelled";
  }

  function turn(item, index) {
    const box = node("div", "label-item");
    box.id = "label-" + index;
    box.dataset.state = item.refused ? "refused" : "unlabelled";
    const head = node("h3", null, (index + 1) + ". " + item.metric);
    const where = node("span", "where", item.case);
    const scale = typeof item.judge === "string" ? "" : scaleText(item.scale);
    const judge = node("p", "judge", "judge: " + item.judge + scale);
    box.append(head, where, texts(item), judge);
    box.appendChild(item.refused ? node("p", "refused", item.refused) : controls(item, index));
    return box;
  }

  function build() {
    if (built) return;
    built = true;
    const fragment = document.createDocumentFragment();
    items.forEach(function (item, index) { fragment.appendChild(turn(item, index)); });
    listing.appendChild(fragment);
  }

  // The file: every turn the page could label, in the page's order; its entry as `label` wrote it but for the
  // person's label, confirmed, and their name when given.
  function labelsFile() {
    const name = labeller.value.trim();
    const labels = [];
    items.forEach(function (item, index) {
      if (!item.entry) return;
      const entry = Object.assign({}, item.entry);
      if (chosen[index] !== undefined) {
        entry.label = chosen[index];
        entry.confirmed = true;
        if (name) entry.labeller = name;
      }
      labels.push(entry);
    });
    return JSON.stringify({ schema_version: 1, labels: labels }, null, 2) + "\n";
  }

  function download() {
    if (lastUrl) URL.revokeObjectURL(lastUrl);
    lastUrl = URL.createObjectURL(new Blob([labelsFile()], { type: "application/json" }));
    const link = document.createElement("a");
    link.href = lastUrl;
    link.download = data.file;
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  view.addEventListener("toggle", function () { if (view.open) build(); });
  document.getElementById("download-labels").addEventListener("click", download);
  if (view.open) build();
})();
