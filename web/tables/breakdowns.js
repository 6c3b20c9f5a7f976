// How each player's final score is made up, per game, from the finished game's view (the API's
// `result` carries only the totals).  The shell's end screen (#result) shows these next to the
// result's score; each total is the very number the result holds, and the same number the
// game's own final panel shows:
//
//   darjeeling   the score track, less one point per half crate left behind the screen
//                (player_states[].score, .penalty, .final_score);
//   alubari      the final score sheet (final_scores[]: estates, stations, track, contracts,
//                chai, tea leaves, equipment, total);
//   tea_rum      blue plus red victory points (final.blue[], final.red[]);
//   india_rails  the cash (players[].cash), with the debt still owed shown, not subtracted.
//
// `breakdownOf` answers null when the view does not carry the game's final figures (yet), and for a
// game whose table module declares no `breakdown` (the generic table).

const WORDS = {
  en: {
    track: "score track", halves: "half crates left", estates: "estates", stations: "stations", trackSpaces: "track",
    contracts: "contracts", chai: "chai", leaves: "tea leaves", equipment: "equipment", blue: "blue VP", red: "red VP",
    cash: "cash", debt: "debt owed (not deducted)",
  },
  es: {
    track: "marcador", halves: "medias cajas sobrantes", estates: "plantaciones", stations: "estaciones", trackSpaces: "vía",
    contracts: "contratos", chai: "chai", leaves: "hojas de té", equipment: "equipo", blue: "PV azules", red: "PV rojos",
    cash: "dinero", debt: "deuda pendiente (no se resta)",
  },
};

function darjeeling(view, seat, w) {
  const player = (view.player_states || []).find((p) => (p.seat ?? 0) === seat);
  if (!player || view.phase !== "GAME_OVER") return null;
  const penalty = player.penalty ?? 0;
  return {
    parts: [{ label: w.track, value: player.score ?? 0 }, { label: w.halves, value: -penalty }],
    total: player.final_score ?? (player.score ?? 0) - penalty,
  };
}

const SHEET = [["estates", "estates"], ["stations", "stations"], ["track", "trackSpaces"], ["contracts", "contracts"],
  ["chai", "chai"], ["tea_leaves", "leaves"], ["equipment", "equipment"]];

function alubari(view, seat, w) {
  const sheet = (view.final_scores || []).find((row) => (row.seat ?? 0) === seat);
  if (!sheet) return null;
  return { parts: SHEET.map(([field, word]) => ({ label: w[word], value: sheet[field] ?? 0 })), total: sheet.total ?? 0 };
}

function teaRum(view, seat, w) {
  const final = view.final;
  if (!final || !final.blue || !final.red) return null;
  const blue = final.blue[seat] ?? 0;
  const red = final.red[seat] ?? 0;
  return { parts: [{ label: w.blue, value: blue }, { label: w.red, value: red }], total: blue + red };
}

function indiaRails(view, seat, w) {
  const player = (view.players || []).find((p) => (p.seat ?? 0) === seat);
  if (!player || player.cash_hidden) return null;
  const parts = [{ label: w.cash, value: player.cash ?? 0, unit: "M" }];
  if (player.debt) parts.push({ label: w.debt, value: player.debt, unit: "M", aside: true });
  return { parts, total: player.cash ?? 0 };
}

// Each game's table module declares its breakdown (`export { ... as breakdown }`): no list here.
export { darjeeling as darjeelingBreakdown, alubari as alubariBreakdown, teaRum as teaRumBreakdown };
export { indiaRails as indiaRailsBreakdown };

/** `{parts: [{label, value, unit?, aside?}], total}` for `seat` of a finished game, or null;
 * `table` is the game's table module (its `breakdown`, if it declares one). */
export function breakdownOf(table, view, seat, language) {
  const game = table && table.breakdown;
  if (!game || !view) return null;
  return game(view, seat, WORDS[language] || WORDS.en);
}
