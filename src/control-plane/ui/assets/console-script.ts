/**
 * The console's one script, served as /ui/assets/console.js. Every page works without it; it adds:
 * - live refresh: a region marked `data-refresh="<seconds>"` is fetched again from the page's own URL
 *   while the tab is visible and nothing inside it has focus, and swapped for the new one (nodes, not
 *   markup strings: the server escaped them once, they are never parsed as script);
 * - the log stream: `<ol data-stream="/logs?...">` follows the control plane's /logs with EventSource
 *   and appends each record as text, keeping the newest 500.
 */
export const CONSOLE_JS = `'use strict';
(function () {
  var region = document.querySelector('[data-refresh]');
  if (region && window.fetch && window.DOMParser) {
    var every = Math.max(2, Number(region.getAttribute('data-refresh')) || 5) * 1000;
    var busy = false;
    var tick = function () {
      if (busy || document.hidden || region.contains(document.activeElement)) return;
      busy = true;
      fetch(location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin' })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (text) {
          if (text === null) return;
          var doc = new DOMParser().parseFromString(text, 'text/html');
          var fresh = doc.getElementById(region.id);
          if (fresh) {
            var node = document.importNode(fresh, true);
            region.replaceWith(node);
            region = node;
          }
        })
        .catch(function () {})
        .then(function () { busy = false; });
    };
    setInterval(tick, every);
  }

  var list = document.querySelector('ol[data-stream]');
  if (list && window.EventSource) {
    var status = document.getElementById('stream-status');
    var say = function (text) { if (status) status.textContent = text; };
    var source = new EventSource(list.getAttribute('data-stream'));
    var add = function (text) {
      var li = document.createElement('li');
      li.textContent = text;
      list.appendChild(li);
      while (list.children.length > 500) list.removeChild(list.firstElementChild);
      list.scrollTop = list.scrollHeight;
    };
    source.onopen = function () { say('Live: new records appear below as they are written.'); };
    source.onerror = function () { say('Connection lost; reconnecting…'); };
    source.addEventListener('log', function (e) {
      var text = e.data;
      try {
        var r = JSON.parse(e.data);
        var head = [r.ts, r.level, r.agentId, r.event].filter(function (v) { return typeof v === 'string'; }).join(' ');
        text = head + '  ' + e.data;
      } catch (err) { /* shown as it came */ }
      add(text);
    });
    source.addEventListener('system', function (e) {
      var r = {};
      try { r = JSON.parse(e.data); } catch (err) { /* ignored */ }
      if (r.system === 'token-expired') { say('The sign-in expired; reload the page to continue.'); source.close(); }
      else if (r.system !== 'caught-up') add('[' + String(r.system) + '] ' + e.data);
    });
  }
})();
`;
