// The board's input: a click, a tap or a key on an element with `data-move-index` plays that
// legal move; hovering or focusing one says it, price included (`#hover`).  On touch, where
// there is no hover, a move with a price or a warning is shown first in `#confirm` and played on
// a second tap or the confirm button (issue #42, item 2); a mouse or the keyboard plays at once.
import { html, render } from "../vendor/htm-preact-standalone.js";
import { T } from "./i18n.js";
import { priceOf } from "./tableparts.js";

/**
 * Listen on `board` for the page's whole life (the page element is fresh per table, app.js).
 * `legal()` is the legal-move list drawn now (or null), `act(i)` plays one; `el(id)` finds the
 * side panel's elements.  Returns `choose(i)`: show move i in `#confirm` (-1: nothing chosen).
 */
export function listenToBoard(board, { legal, act, el }) {
  let pointer = ""; // the kind of pointer that last pressed on the board ("touch", "mouse", "pen")
  let picked = -1; // a costly move tapped once: shown with its price in #confirm, not yet played
  const offered = (event) => {
    const target = event.target.closest("[data-move-index]");
    return target && board.contains(target) ? target : null;
  };

  function choose(index) {
    picked = index;
    const box = el("confirm");
    box.hidden = index < 0;
    board.querySelectorAll(".chosen").forEach((node) => node.classList.remove("chosen"));
    if (index < 0) return render(null, box);
    const list = legal();
    board.querySelector(`[data-move-index="${index}"]`)?.classList.add("chosen");
    render(
      html`<p class="sentence" data-costs=${priceOf(list.moves[index])}>${list.texts[index]}</p>
        <p class="hint">${T("confirm_hint")}</p>
        <button type="button" id="confirm-move" onClick=${() => act(index)}>${T("confirm_move")}</button>
        <button type="button" id="cancel-move" onClick=${() => choose(-1)}>${T("cancel_move")}</button>`,
      box,
    );
  }

  board.addEventListener("pointerdown", (event) => (pointer = event.pointerType));
  board.addEventListener("click", (event) => {
    const target = offered(event);
    if (!target) return;
    const index = Number(target.dataset.moveIndex);
    const touched = (event.pointerType || pointer) === "touch";
    if (touched && index !== picked && (legal()?.moves[index]?.costs || []).length) choose(index);
    else act(index);
  });
  // Every move on the board plays from the keyboard too: Enter or Space on a focused one.
  board.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const target = offered(event);
    if (!target || target.matches("button, a, input, select, textarea")) return;
    event.preventDefault(); // Space would scroll the page
    act(Number(target.dataset.moveIndex));
  });
  const sayHovered = (event) => {
    const target = offered(event);
    const list = legal();
    const index = target ? Number(target.dataset.moveIndex) : -1;
    const move = list && list.moves[index];
    const hover = el("hover");
    hover.textContent = move ? list.texts[index] : "";
    hover.dataset.hoveredMove = move ? String(index) : ""; // not data-move-index: the line is no move to click
    hover.dataset.costs = move ? priceOf(move) : "";
  };
  board.addEventListener("mouseover", sayHovered);
  board.addEventListener("focusin", sayHovered);
  return choose;
}
