// The report's only script, inlined (and allowed by hash in the page's Content-Security-Policy). The page is
// complete without it; the script adds filtering, search, copy buttons and keyboard shortcuts. It only reads
// text (textContent, data-* attributes) and toggles `hidden`/`open`: it never turns data into markup.
// Plain ES2017 in a string: it runs in the browser, not under tsx.
export const REPORT_JS = String.raw`
(function () {
  'use strict';
  var doc = document;
  var filters = doc.getElementById('filters');
  if (!filters) return;
  filters.hidden = false;
  var search = doc.getElementById('search');
  var sectionSelect = doc.getElementById('section-filter');
  var shown = doc.getElementById('shown');
  var boxes = Array.prototype.slice.call(filters.querySelectorAll('input[name=status]'));
  var sections = Array.prototype.slice.call(doc.querySelectorAll('.spec-section'));
  var rows = Array.prototype.slice.call(doc.querySelectorAll('tr.spec-row'));
  // Search text of each row is read once: its id, spec words, statuses and checks (not the evidence).
  var texts = rows.map(function (r) { return (r.textContent || '').toLowerCase(); });

  // Evidence rows by the id of the row they belong to, gathered once (filtering runs on every keystroke).
  var evidenceFor = {};
  Array.prototype.forEach.call(doc.querySelectorAll('tr.evidence'), function (e) {
    var key = e.getAttribute('data-for');
    (evidenceFor[key] = evidenceFor[key] || []).push(e);
  });
  function evidenceRows(row) {
    return evidenceFor[row.id] || [];
  }

  function apply() {
    var wanted = {};
    boxes.forEach(function (b) { if (b.checked) wanted[b.value] = true; });
    var section = sectionSelect.value;
    var terms = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var count = 0;
    rows.forEach(function (row, i) {
      var statuses = (row.getAttribute('data-status') || '').split(' ');
      var ok = statuses.some(function (s) { return wanted[s]; }) &&
        (section === '' || row.getAttribute('data-section') === section) &&
        terms.every(function (t) { return texts[i].indexOf(t) >= 0; });
      row.hidden = !ok;
      evidenceRows(row).forEach(function (e) { e.hidden = !ok; });
      if (ok) count++;
    });
    sections.forEach(function (s) { s.hidden = s.querySelector('tr.spec-row:not([hidden])') === null; });
    shown.textContent = 'Showing ' + count + ' of ' + rows.length + ' rows';
  }

  function setStatuses(list) {
    boxes.forEach(function (b) { b.checked = list === null || list.indexOf(b.value) >= 0; });
    apply();
  }

  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  sectionSelect.addEventListener('change', apply);
  search.addEventListener('input', apply);
  search.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') { search.value = ''; apply(); }
  });
  doc.getElementById('only-failures').addEventListener('click', function () { setStatuses(['failed']); });
  doc.getElementById('show-all').addEventListener('click', function () {
    search.value = '';
    sectionSelect.value = '';
    setStatuses(null);
  });

  // "/" jumps to the search box, as on many sites; not while typing in a field.
  doc.addEventListener('keydown', function (e) {
    var t = e.target;
    var typing = t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
    if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      search.focus();
    }
  });

  // Copy buttons name the element whose text they copy. The clipboard API works on file:// in Chromium and
  // Firefox; older browsers fall back to a selected textarea (its value is text, never markup).
  function announce(button, words) {
    var old = button.getAttribute('data-label') || button.textContent;
    button.setAttribute('data-label', old);
    button.textContent = words;
    var status = doc.getElementById('copy-status');
    if (status) status.textContent = words;
    setTimeout(function () { button.textContent = old; }, 1500);
  }
  function fallbackCopy(text) {
    var area = doc.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    doc.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = doc.execCommand('copy'); } catch (err) { ok = false; }
    doc.body.removeChild(area);
    return ok;
  }
  doc.addEventListener('click', function (e) {
    var button = e.target && e.target.closest ? e.target.closest('button.copy') : null;
    if (!button) return;
    var source = doc.getElementById(button.getAttribute('data-copy'));
    if (!source) return;
    var text = source.textContent || '';
    button.setAttribute('data-copied', text);
    var done = function () { announce(button, 'Copied'); };
    var fail = function () { announce(button, fallbackCopy(text) ? 'Copied' : 'Copy failed: select the text'); };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, fail);
    else fail();
  });

  // Links to a row (from the failure list, or a shared URL) show it even when filtered out, and open its
  // evidence so the answer to "why" is one click away.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!/^row-\d+$/.test(id)) return;
    var row = doc.getElementById(id);
    if (!row) return;
    if (row.hidden) { search.value = ''; sectionSelect.value = ''; setStatuses(null); }
    evidenceRows(row).forEach(function (e) {
      var d = e.querySelector('details.failure');
      if (d) d.open = true;
    });
    var heading = row.querySelector('th');
    if (heading) { heading.setAttribute('tabindex', '-1'); heading.focus(); }
  }
  window.addEventListener('hashchange', reveal);

  // Printing shows the evidence of the rows on screen; the closed ones are restored afterwards.
  var openedForPrint = [];
  window.addEventListener('beforeprint', function () {
    openedForPrint = Array.prototype.slice.call(doc.querySelectorAll('tr.evidence:not([hidden]) details.failure:not([open])'));
    openedForPrint.forEach(function (d) { d.open = true; });
  });
  window.addEventListener('afterprint', function () {
    openedForPrint.forEach(function (d) { d.open = false; });
    openedForPrint = [];
  });

  apply();
  reveal();
})();
`;
