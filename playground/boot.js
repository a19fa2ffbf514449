// The one classic script of the page, run before its modules: when a file of the
// page fails to load (a network failure, a blocked script) or the page's code throws
// before it is ready, it says what failed and what to do, instead of leaving an
// empty page. Not a module, so it runs in browsers that cannot load the others too.
(function () {
  "use strict";
  var shown = false;
  /** @param {string} what */
  function show(what) {
    if (shown || (document.body && document.body.dataset.ready === "true")) return;
    shown = true;
    var box = document.getElementById("boot");
    if (!box) return;
    box.textContent =
      "The playground could not start: " +
      what +
      ". Reload the page; if it keeps failing, check the network and any blocker of scripts. Meanwhile the API does everything the page does: POST /v1/playground/{engine} with the policy and the request (docs/api.md, Playground), or npx arbiter eval offline.";
    box.hidden = false;
    document.body.dataset.failure = box.textContent;
  }
  window.addEventListener(
    "error",
    function (event) {
      var target = event.target;
      if (target instanceof HTMLScriptElement || target instanceof HTMLLinkElement) {
        var name = (target.getAttribute("src") || target.getAttribute("href") || "a file").replace(
          /^.*\//,
          "",
        );
        // The editor module has its own fallback (plain text boxes): app.js says so itself.
        if (name === "codemirror.js") return;
        show(name + " did not load");
      } else if (event instanceof ErrorEvent) show("its code failed (" + event.message + ")");
    },
    true,
  );
})();
