// Runs before the first paint (a classic script in <head>, not a module): the theme the user chose,
// or the system's, is on <html> before anything is drawn, so the wrong theme never flashes.
(function () {
  var chosen = null;
  try { chosen = localStorage.getItem("cc.theme"); } catch (e) { /* storage off: follow the system */ }
  var dark = chosen ? chosen === "dark" : window.matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
})();
