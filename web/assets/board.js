// The board widget: shows an SVG picture drawn by the server's one board
// renderer (GET /api/svg) and reports clicks on squares. Every square and
// piece in the picture carries data-square; the widget only adds classes.
//
//   import { Board } from "/board.js";
//   const b = new Board(document.getElementById("board"), sq => console.log(sq));
//   await b.load("/api/svg?game=bashnya&position=start");

export class Board {
  constructor(element, onSquare) {
    this.element = element;
    this.onSquare = onSquare || (() => {});
    this.url = null;
    element.addEventListener("click", (e) => {
      const hit = e.target.closest("[data-square]");
      if (hit) this.onSquare(hit.dataset.square);
    });
  }

  // Loads and shows the picture at `url`; resolves when it is shown.
  async load(url) {
    this.url = url;
    const reply = await fetch(url);
    const text = await reply.text();
    if (!reply.ok) {
      let message = text;
      try { message = JSON.parse(text).error; } catch (_) { /* keep the text */ }
      const e = new Error(message);
      e.status = reply.status;
      throw e;
    }
    if (this.url === url) this.element.innerHTML = text;
  }

  // Marks the selected squares and the squares a click may go to.
  highlight(selected, targets) {
    for (const g of this.element.querySelectorAll(".sq")) {
      const name = g.dataset.square;
      g.classList.toggle("sel", selected.includes(name));
      g.classList.toggle("tgt", targets.includes(name));
    }
  }
}
