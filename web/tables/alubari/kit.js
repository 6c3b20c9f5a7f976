// The Alubari table's small HTML kit: a board piece that is a button when it offers a legal move,
// seat pawns, resource amounts and the owner of a space.  Layout and looks live in alubari.css.
//
// A piece offering a move is a real <button> with `data-move-index` (the shell posts the move on
// a click, Enter or Space) and the move's sentence as its tooltip; it is marked by a dashed
// border and a "▸" as well as by its colour, so the choice does not hang on colour alone.

import { html } from "../../vendor/htm-preact-standalone.js";
import { seatColour, seatName } from "../drawing.js";
import { costParts, pointsText } from "./words.js";

/** `className` plus the modifiers whose value is truthy: cls("a", {b: true}) -> "a b". */
export function cls(base, flags = {}) {
  return [base, ...Object.entries(flags).filter(([, on]) => on).map(([name]) => name)].join(" ");
}

/**
 * A board piece: a button offering legal move `found` (an entry of `offers()`), else a box.
 * `label` (optional) names a button whose visible text is short (an action space's number).
 */
export function piece(ctx, found, className, children, data = {}, label = null) {
  if (!found) return html`<div class=${className} ...${data}>${children}</div>`;
  ctx.placed.add(found.index);
  const sentence = ctx.table.legal?.texts?.[found.index] || "";
  // Its price is the shell's to say: hovering any [data-move-index] on the board fills #hover.
  return html`<button type="button" class=${`${className} alu-choice`} data-move-index=${found.index}
    title=${sentence} aria-label=${label || undefined} ...${data}>${children}</button>`;
}

/** A seat's pawn: a disc in the seat's colour (decorative: its name is said next to it or in `title`). */
export function pawn(seat, name = "") {
  return html`<span class="alu-pawn" style=${`--seat: ${seatColour(seat)}`} title=${name || undefined}
    aria-hidden="true"></span>`;
}

/** A seat's pawn and name. */
export function seatTag(ctx, seat) {
  const name = seatName(ctx.table, seat, ctx.w);
  const you = ctx.table.seat === seat ? ` (${ctx.w.you})` : "";
  return html`<span class="alu-seat">${pawn(seat)}<span>${name}${you}</span></span>`;
}

/** The owner of a railway or estate space in words: a seat (pawn and name), the game, blocked, free. */
export function ownerTag(ctx, owner) {
  if (owner >= 0) return seatTag(ctx, owner);
  const said = { "-1": ctx.w.owner.free, "-2": ctx.w.owner.game, "-3": ctx.w.owner.blocked };
  return html`<span class="alu-owner-word">${said[String(owner)] ?? ctx.w.owner.unmarked}</span>`;
}

/** A cost as "2 iron ore, 1 stone" with a small swatch per resource (the word says it; the swatch helps). */
export function costTag(cost, w, empty = "") {
  const parts = costParts(cost);
  if (!parts.length) return empty ? html`<span>${empty}</span>` : null;
  return html`<span class="alu-cost">${parts.map(
    ([key, n]) => html`<span class=${`alu-res alu-res-${key}`}>${n} ${w.res[key] ?? key}</span>`,
  )}</span>`;
}

/** "3 points" as a tag. */
export function pointsTag(n, w) {
  return html`<span class="alu-points">${pointsText(n, w)}</span>`;
}
