/**
 * The console's one script, served as /ui/assets/console.js. Every page works without it; it adds:
 * - times in the browser's zone (contract §24.5): each `<time datetime="…">` (the UTC instant) is
 *   shown as local date and time with its offset, and the zone is named once, above the view; a form's
 *   time-zone field (`name="tz"`, UTC as served) is set to the browser's zone, so the times typed
 *   there are read in the zone the form shows;
 * - live refresh: a region marked `data-refresh="<seconds>"` is fetched again from the page's own URL
 *   while the tab is visible and nothing inside it has focus, and swapped for the new one (nodes, not
 *   markup strings: the server escaped them once, they are never parsed as script);
 * - the log stream: `<ol data-stream="/logs?..." data-resume="<id>">` already holds the last records;
 *   the stream is read with fetch from `data-resume` on (sent as Last-Event-ID, then each frame's id),
 *   so it continues exactly after them, and each record is appended as text, keeping the newest 500.
 */
export const CONSOLE_JS = `'use strict';
(function () {
  var pad = function (n) { return (n < 10 ? '0' : '') + n; };
  var zone = '';
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) { zone = ''; }
  var localTimes = function (root) {
    var list = root.querySelectorAll('time[datetime]');
    for (var i = 0; i < list.length; i++) {
      var t = list[i];
      var d = new Date(t.getAttribute('datetime'));
      if (isNaN(d.getTime())) continue;
      var off = -d.getTimezoneOffset();
      var text = d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + pad(d.getHours()) + ':' + pad(d.getMinutes())
        + (d.getSeconds() !== 0 ? ':' + pad(d.getSeconds()) : '');
      text += off === 0 ? 'Z' : (off > 0 ? '+' : '-') + pad(Math.floor(Math.abs(off) / 60)) + ':' + pad(Math.abs(off) % 60);
      t.textContent = text;
      t.setAttribute('title', t.getAttribute('datetime'));
    }
  };
  if (zone) {
    localTimes(document);
    var note = document.getElementById('zone-note');
    if (note) note.textContent = 'Times in ' + zone + ' (this browser)';
    var refused = /[?&]form=/.test(location.search);
    var fields = document.querySelectorAll('input[name="tz"]');
    for (var f = 0; f < fields.length; f++) if (!refused && fields[f].value === 'UTC') fields[f].value = zone;
  }

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
            if (zone) localTimes(node);
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
  if (list && window.fetch && window.TextDecoder && window.ReadableStream) {
    var status = document.getElementById('stream-status');
    var say = function (text) { if (status) status.textContent = text; };
    var lastId = list.getAttribute('data-resume') || '';
    var add = function (text) {
      var li = document.createElement('li');
      li.textContent = text;
      list.appendChild(li);
      while (list.children.length > 500) list.removeChild(list.firstElementChild);
      list.scrollTop = list.scrollHeight;
    };
    var stopped = false;
    var frame = function (block) {
      var event = 'message';
      var data = [];
      var lines = block.split('\\n');
      for (var i = 0; i < lines.length; i++) {
        var line = lines[i];
        if (line === '' || line.charAt(0) === ':') continue;
        var at = line.indexOf(':');
        var name = at < 0 ? line : line.slice(0, at);
        var value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
        if (name === 'id') lastId = value;
        else if (name === 'event') event = value;
        else if (name === 'data') data.push(value);
      }
      if (data.length === 0) return;
      var body = data.join('\\n');
      if (event === 'log') {
        var text = body;
        try {
          var r = JSON.parse(body);
          var head = [r.ts, r.level, r.agentId, r.event].filter(function (v) { return typeof v === 'string'; }).join(' ');
          text = head + '  ' + body;
        } catch (err) { /* shown as it came */ }
        add(text);
      } else if (event === 'system') {
        var s = {};
        try { s = JSON.parse(body); } catch (err) { /* ignored */ }
        if (s.system === 'token-expired') { say('The sign-in expired; reload the page to continue.'); stopped = true; }
        else if (s.system !== 'caught-up') add('[' + String(s.system) + '] ' + body);
      }
    };
    var connect = function () {
      var headers = { accept: 'text/event-stream' };
      if (lastId) headers['last-event-id'] = lastId;
      fetch(list.getAttribute('data-stream'), { headers: headers, credentials: 'same-origin', cache: 'no-store' }).then(function (res) {
        if (!res.ok || !res.body) throw new Error('HTTP ' + res.status);
        say('Live: new records appear below as they are written.');
        var reader = res.body.getReader();
        var decoder = new TextDecoder();
        var buffer = '';
        var pump = function () {
          return reader.read().then(function (chunk) {
            if (chunk.done) throw new Error('the stream ended');
            buffer += decoder.decode(chunk.value, { stream: true });
            var end;
            while ((end = buffer.indexOf('\\n\\n')) >= 0) {
              frame(buffer.slice(0, end));
              buffer = buffer.slice(end + 2);
            }
            if (!stopped) return pump();
            return reader.cancel();
          });
        };
        return pump();
      }).catch(function () {
        if (stopped) return;
        say('Connection lost; reconnecting…');
        setTimeout(connect, 3000);
      });
    };
    connect();
  }
})();
`;
