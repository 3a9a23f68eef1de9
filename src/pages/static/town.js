// Town: enhances pages in place; every page works without it.
// An error page with data-retry-after counts down and loads the address again.
// A page drawn at a journal height (data-live) follows /live and reloads itself when the
// journal moves past it, at most once every two seconds (a busy town does not turn watching
// into a stream of reloads); a card page (data-view-object) follows /live/{object} and redraws
// its paint from each `view` event. Only a signed-in page carries these attributes: the
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
  if (!window.EventSource) return;
  var loadedAt = Date.now();
  var height = body.getAttribute('data-live');
  if (height !== null) {
    var moved = new EventSource('/live?h=' + encodeURIComponent(height));
    moved.addEventListener('moved', function () {
      moved.close();
      // A reader typing into a form keeps the page; elsewhere it is drawn again.
      var active = document.activeElement;
      if (active && (active.tagName === 'INPUT' || active.tagName === 'TEXTAREA' || active.tagName === 'SELECT')) {
        body.classList.add('stale');
        return;
      }
      setTimeout(function () {
        location.reload();
      }, Math.max(0, loadedAt + 2000 - Date.now()));
    });
  }
  var object = body.getAttribute('data-view-object');
  if (object !== null) {
    var version = body.getAttribute('data-view-version') || '0';
    var view = new EventSource('/live/' + encodeURIComponent(object) + '?v=' + encodeURIComponent(version));
    view.addEventListener('view', function (ev) {
      try {
        var data = JSON.parse(ev.data);
        var paint = document.getElementById('paint');
        if (paint && typeof data.paint === 'string') paint.textContent = data.paint;
      } catch (err) {
        view.close();
      }
    });
  }
})();
