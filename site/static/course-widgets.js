/* The course site's precomputed widgets (site/coursesite/frames.py writes their markup).
 *
 * Each .course-widget holds its controls, the first frame as an <img>, and a JSON table of
 * every frame drawn at build time. Moving a control looks up the frame of the new grid point
 * and swaps the image and its alt text (also read out through the live status line). No
 * kernel, no network: frames are files of the site. Without this script the first frame shows.
 */
(function () {
  "use strict";

  function Widget(root) {
    this.root = root;
    this.data = JSON.parse(root.querySelector("script.course-widget-data").textContent);
    this.image = root.querySelector("img.course-widget-frame");
    this.status = root.querySelector(".course-widget-status");
    this.fields = Array.prototype.slice.call(root.querySelectorAll("[data-control]"));
    this.timer = null;
    var self = this;
    this.fields.forEach(function (field) {
      field.addEventListener("input", function () { self.update(); });
      field.addEventListener("change", function () { self.update(); });
    });
    root.querySelectorAll("[data-action]").forEach(function (button) {
      var action = self.data.actions[Number(button.dataset.action)];
      button.addEventListener("click", function () { self.act(action, button); });
    });
  }

  /* The choices' positions joined by dots: the key of a slider's positions under them. */
  Widget.prototype.choiceKey = function () {
    var data = this.data;
    return this.fields.filter(function (field) {
      return data.controls[Number(field.dataset.control)].kind === "select";
    }).map(function (field) { return field.value; }).join(".");
  };

  Widget.prototype.field = function (index) {
    return this.fields.filter(function (f) { return Number(f.dataset.control) === index; })[0];
  };

  /* Sliders take the positions of the current choices (as a slider whose maximum follows a
   * drop-down does in JupyterLab), readouts their labels, and the image the grid point's frame. */
  Widget.prototype.update = function () {
    var data = this.data, choice = this.choiceKey(), root = this.root;
    this.fields.forEach(function (field) {
      var control = data.controls[Number(field.dataset.control)];
      if (control.kind !== "range") { return; }
      var labels = control.labels[choice], last = labels.length - 1;
      if (Number(field.max) !== last) {
        field.max = String(last);
        if (Number(field.value) > last) { field.value = String(last); }
      }
      var text = labels[Number(field.value)];
      field.setAttribute("aria-valuetext", text);
      var readout = root.querySelector('output[for="' + field.id + '"]');
      if (readout) { readout.textContent = text; }
    });
    var point = this.fields.map(function (field) { return field.value; }).join(".");
    var name = data.frames[point];
    if (!name) { return; }
    this.image.src = data.prefix + name;
    this.image.alt = data.alts[point];
    this.status.textContent = data.alts[point];
  };

  /* A Step button moves its slider to the first position at least `step` further on; Run
   * plays the slider to its end, and pressed again, pauses. */
  Widget.prototype.act = function (action, button) {
    var self = this, field = this.field(action.control);
    if (!field) { return; }
    if (action.kind === "play") {
      if (this.timer) { this.stop(button); return; }
      button.setAttribute("aria-pressed", "true");
      this.timer = window.setInterval(function () {
        if (!self.advance(field, action.step)) { self.stop(button); }
      }, Math.max(200, action.interval));
      return;
    }
    this.advance(field, action.step);
  };

  Widget.prototype.stop = function (button) {
    window.clearInterval(this.timer);
    this.timer = null;
    button.setAttribute("aria-pressed", "false");
  };

  /* Move `field` forward by `step` in value (or one position when its values are not
   * numbers); false when it is already at its end. */
  Widget.prototype.advance = function (field, step) {
    var control = this.data.controls[Number(field.dataset.control)];
    var values = control.values[this.choiceKey()], at = Number(field.value);
    var last = Number(field.max), next = at + 1;
    if (at >= last) { return false; }
    if (values) {
      while (next < last && values[next] < values[at] + step) { next += 1; }
    }
    field.value = String(next);
    this.update();
    return true;
  };

  function start() {
    document.querySelectorAll(".course-widget").forEach(function (root) {
      root.courseWidget = new Widget(root);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
