// Town: enhances pages in place; every page works without it.
// An error page with data-retry-after counts down and loads the address again.
// A page drawn at a journal height (data-live) follows /live and reloads itself when the
// journal moves past it, at most once every two seconds (a busy town does not turn watching
// into a stream of reloads); a card page (data-view-object) follows /live/{object} and redraws
// its paint from each `view` event. A stream the town refuses (429) is said on the page, with
// a reload button, and opened again with a growing wait. Only a signed-in page carries these attributes: the
// streams need the session cookie.
(function () {
  var body = document.body;
  // A page over a limit (429) or a busy town (503) asks again by itself when the wait is over:
  // as a plain GET of the same address, never a form sent twice.
  var retry = Number(body.getAttribute('data-retry-after'));
  if (retry > 0) {
    var left = document.getElementById('retry-in');
    var started = Date.now();
    var tick = setInterval(function () {
      var remaining = Math.max(0, Math.ceil(retry - (Date.now() - started) / 1000));
      if (left) left.textContent = String(remaining);
      if (remaining === 0) {
        clearInterval(tick);
        location.replace(location.href);
      }
    }, 250);
  }
  // A page still waiting for the town's answer (the feed) looks again every three seconds,
  // unless the reader is typing: the answer lands just after the journal moves.
  function typing() {
    var active = document.activeElement;
    return active && (active.tagName === 'INPUT' || active.tagName === 'TEXTAREA' || active.tagName === 'SELECT');
  }
  // At most twenty looks in a row: a post the town never answers does not keep a page reloading.
  var looks = 0;
  try {
    looks = Number(sessionStorage.getItem('town-looks')) || 0;
    sessionStorage.setItem('town-looks', body.hasAttribute('data-waiting') ? String(looks + 1) : '0');
  } catch (err) {
    looks = 0;
  }
  if (body.hasAttribute('data-waiting') && looks < 20) {
    var look = setInterval(function () {
      if (typing()) return;
      clearInterval(look);
      location.reload();
    }, 3000);
  }
  if (!window.EventSource) return;
  var loadedAt = Date.now();

  // A stream the town refused (over its share of streams, 429) closes for good: the page says
  // so, offers a reload, and opens the stream again after 2, 4, 8 … up to 60 seconds.
  var notice = null;
  function refused(again) {
    if (!notice) {
      notice = document.createElement('p');
      notice.className = 'live-refused';
      notice.setAttribute('role', 'status');
      notice.appendChild(document.createTextNode('This page stopped following the town: too many pages are following it at once. It tries again by itself; '));
      var button = document.createElement('button');
      button.type = 'button';
      button.textContent = 'reload now';
      button.addEventListener('click', function () {
        location.reload();
      });
      notice.appendChild(button);
      var main = document.getElementById('main') || body;
      main.insertBefore(notice, main.firstChild);
    }
    setTimeout(again, follow.wait);
    follow.wait = Math.min(60000, follow.wait * 2);
  }
  var follow = { wait: 2000 };
  function following() {
    follow.wait = 2000;
    if (notice) {
      notice.remove();
      notice = null;
    }
  }
  // A stream closed by an error (EventSource does not reconnect after a refusal) is opened again.
  function stream(url, listen) {
    var source = new EventSource(url());
    source.addEventListener('open', following);
    source.addEventListener('error', function () {
      if (source.readyState === EventSource.CLOSED) {
        refused(function () {
          stream(url, listen);
        });
      }
    });
    listen(source);
  }

  var height = body.getAttribute('data-live');
  if (height !== null) {
    stream(
      function () {
        return '/live?h=' + encodeURIComponent(height);
      },
      function (moved) {
        moved.addEventListener('moved', function () {
          moved.close();
          // A reader typing into a form keeps the page; elsewhere it is drawn again.
          if (typing()) {
            body.classList.add('stale');
            return;
          }
          setTimeout(function () {
            location.reload();
          }, Math.max(0, loadedAt + 2000 - Date.now()));
        });
      },
    );
  }
  var object = body.getAttribute('data-view-object');
  if (object !== null) {
    var version = body.getAttribute('data-view-version') || '0';
    stream(
      function () {
        return '/live/' + encodeURIComponent(object) + '?v=' + encodeURIComponent(version);
      },
      function (view) {
        view.addEventListener('view', function (ev) {
          try {
            var data = JSON.parse(ev.data);
            var paint = document.getElementById('paint');
            if (paint && typeof data.paint === 'string') paint.textContent = data.paint;
            if (typeof data.version === 'number') version = String(data.version);
          } catch (err) {
            view.close();
          }
        });
      },
    );
  }
})();
