// The Tea & Rum trade board.  A trade is composed on it one step at a time, each step a legal
// move: put a unit from the warehouse on the sell side, a unit from the market on the buy side,
// fill a plate, then confirm once the coins balance.  Everyone sees the scale (a trade is public).

import { el } from "../svg.js";
import { choice, panel, resourceIcon } from "./kit.js";
import { RESOURCES } from "./words.js";

/** The trade board with the scale of the trade being composed (only while somebody trades). */
export function drawTrade(ctx) {
  const { view, w } = ctx;
  const decision = view.decision;
  const scale = decision && decision.kind === "trade" ? decision.trade : null;
  if (!scale) return null;
  const owed = scale.balance;
  const sum = owed >= 0 ? `${w.pay} $${owed}` : `${w.receive} $${-owed}`;
  const confirm = choice(ctx, "trade_confirm", () => true, { class: "tr-confirm" }, w.confirm);
  return panel({ "data-panel": "trade", class: "tr-trade tr-wide" }, w.trade,
    el("p", { class: "tr-balance", "data-trade-balance": owed,
      text: `${w.value}: ${scale.sell_value} ↔ ${scale.buy_value} · ${w.balance}: ${sum}` }),
    el("div", { class: "tr-sides" }, drawSide(ctx, scale, "sell"), drawSide(ctx, scale, "buy")),
    confirm);
}

function drawSide(ctx, scale, side) {
  const { w } = ctx;
  const plate = scale[`${side}_plate`];
  const kind = side === "sell" ? "trade_sell" : "trade_buy";
  // Beside each count on the scale: what the trader holds (sell side) or the market has (buy side).
  const trader = ctx.view.players.find((p) => p.seat === ctx.view.decision.seat);
  const stock = side === "sell" ? trader?.warehouse ?? {} : ctx.view.supply;
  const rows = RESOURCES.map((r) => {
    const units = scale[side][r] ?? 0;
    const put = choice(ctx, kind, (b) => b.resource === r, { class: "tr-option", "data-resource": r },
      resourceIcon(r), `${w.res[r]}: ${units} ${w.onScale} · ${stock[r] ?? 0} ${side === "sell" ? w.held : w.inMarket}`);
    const onPlate = plate === r;
    const plateChoice = choice(ctx, "trade_plate", (b) => b.side === side && b.resource === r,
      { class: onPlate ? "tr-option tr-plate tr-chosen" : "tr-option tr-plate", "data-plate": r },
      onPlate ? `✓ ${w.plate}` : w.plate);
    return el("div", { class: "tr-trade-row" }, put, plateChoice);
  });
  const heading = `${side === "sell" ? w.sell : w.buy} · ${w.plate}: ${plate ? w.res[plate] : "—"}`;
  return el("div", { class: "tr-side", "data-trade-side": side }, el("h4", { text: heading }), ...rows);
}
