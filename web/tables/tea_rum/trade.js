// The Tea & Rum trade board.  A trade is composed on it one step at a time, each step a legal
// move: put a unit from the warehouse on the sell side, a unit from the market on the buy side,
// fill a plate, then confirm once the coins balance.  Everyone sees the scale (a trade is public).

import { box, chip, findOffer, group, offer, text } from "../drawing.js";
import { RESOURCES, RESOURCE_COLOURS } from "./words.js";

/** The trade board with the scale of the trade being composed (empty when nobody trades). */
export function drawTrade(svg, ctx, y) {
  const { view, w } = ctx;
  const decision = view.decision;
  const scale = decision && decision.kind === "trade" ? decision.trade : null;
  const g = group(svg, 12, y, { "data-panel": "trade" });
  box(g, 0, 0, 1176, scale ? 150 : 30, { fill: "#e8f8f5" });
  text(g, 8, 20, w.trade, { "font-weight": 600 });
  if (!scale) return y + 36;
  drawSide(g, ctx, scale, "sell", 8);
  drawSide(g, ctx, scale, "buy", 592);
  const owed = scale.balance;
  const sum = owed >= 0 ? `${w.pay} $${owed}` : `${w.receive} $${-owed}`;
  text(g, 200, 20, `${w.value}: ${scale.sell_value} ↔ ${scale.buy_value} · ${w.balance}: ${sum}`, { "data-trade-balance": owed });
  const confirm = chip(g, 980, 4, 180, 24, w.confirm, { fill: "#abebc6" });
  offer(confirm, findOffer(ctx.offers, ctx.placed, "trade_confirm"), ctx.table, ctx.placed);
  return y + 156;
}

function drawSide(parent, ctx, scale, side, x) {
  const { w } = ctx;
  const g = group(parent, x, 30, { "data-trade-side": side });
  box(g, 0, 0, 576, 112, { fill: "#fff" });
  const plate = scale[`${side}_plate`];
  text(g, 8, 16, `${side === "sell" ? w.sell : w.buy} · ${w.plate}: ${plate ? w.res[plate] : "—"}`, { "font-size": 11, "font-weight": 600 });
  const kind = side === "sell" ? "trade_sell" : "trade_buy";
  // Beside each count on the scale: what the trader holds (sell side) or the market has (buy side).
  const trader = ctx.view.players.find((p) => p.seat === ctx.view.decision.seat);
  const stock = side === "sell" ? trader?.warehouse ?? {} : ctx.view.supply;
  RESOURCES.forEach((r, i) => {
    const units = scale[side][r] ?? 0;
    const node = chip(g, 8 + i * 94, 26, 88, 40, `${units}/${stock[r] ?? 0} ${w.res[r]}`, { fill: RESOURCE_COLOURS[r], "fill-opacity": 0.35 });
    node.setAttribute("data-resource", r);
    offer(node, findOffer(ctx.offers, ctx.placed, kind, (b) => b.resource === r), ctx.table, ctx.placed);
    const plateChip = chip(g, 8 + i * 94, 74, 88, 30, `${w.plate}`, { fill: plate === r ? "#f9e79f" : "#fdfefe" });
    const found = findOffer(ctx.offers, ctx.placed, "trade_plate", (b) => b.side === side && b.resource === r);
    offer(plateChip, found, ctx.table, ctx.placed);
    if (!found && plate !== r) plateChip.setAttribute("opacity", 0.35);
  });
}
