// Why the winners won, in the game's own terms, from the finished game's view (issue #42, item 4).
// The end screen shows it under the winner's name: a sum of points alone can mislead where the
// rules do not crown the highest score.
//
//   tea_rum      the Governor (a proven allegiance, most blue VP, then red) and the Pirate King
//                (most red VP, then blue) win together; with two players the majority colour of
//                the victory type cards says which of the two wins (final.*).
//   india_rails  the way it ended (finish_reason): a declared victory (the major cities joined and
//                the cash target reached), or a limit, ranked by a network joining the major
//                cities first, then cash.
//   darjeeling,  the highest final score (as its breakdown shows).
//   alubari
//
// `verdictOf` answers null while the view does not carry the game's end.

const WORDS = {
  en: {
    highest: "The highest final score wins.",
    governor: "Governor: {who} (proved an allegiance, most blue VP).",
    no_governor: "Nobody proved an allegiance, so there is no Governor.",
    king: "Pirate King: {who} (most red VP).",
    both: "The Governor and the Pirate King both win.",
    king_alone: "The Pirate King wins.",
    two_blue: "With two players the victory type cards decide: most of them are blue, so the Governor wins.",
    two_red: "With two players the victory type cards decide: most of them are red, so the Pirate King wins.",
    nobody: "Nobody wins.",
    victory: "{who} joined the major cities and reached {cash}M in cash, the target to win.",
    limit_round_limit: "The game reached its round limit.",
    limit_time_limit: "The game reached its agreed number of rounds.",
    limit_stalled: "Nobody had made progress for many rounds, so the game ended.",
    limit_rank: "Players rank first by a network that joins the major cities, then by cash.",
    and: " and ",
  },
  es: {
    highest: "Gana la mayor puntuación final.",
    governor: "Gobernador: {who} (cumplió una lealtad, más PV azules).",
    no_governor: "Nadie cumplió una lealtad: no hay Gobernador.",
    king: "Rey Pirata: {who} (más PV rojos).",
    both: "Ganan el Gobernador y el Rey Pirata.",
    king_alone: "Gana el Rey Pirata.",
    two_blue: "Con dos jugadores deciden las cartas de tipo de victoria: la mayoría son azules, así que gana el Gobernador.",
    two_red: "Con dos jugadores deciden las cartas de tipo de victoria: la mayoría son rojas, así que gana el Rey Pirata.",
    nobody: "No gana nadie.",
    victory: "{who} unió las ciudades principales y llegó a {cash}M, la cantidad necesaria para ganar.",
    limit_round_limit: "La partida llegó a su límite de rondas.",
    limit_time_limit: "La partida llegó al número de rondas acordado.",
    limit_stalled: "Nadie avanzaba desde hacía muchas rondas, así que la partida terminó.",
    limit_rank: "Se clasifica primero quien tiene una red que une las ciudades principales, luego por dinero.",
    and: " y ",
  },
};

function said(text, values) {
  return Object.entries(values).reduce((out, [key, value]) => out.replace(`{${key}}`, value), text);
}

function teaRum(view, who, w) {
  const final = view.final;
  if (!final || !(final.winners || final.pirate_kings)) return null;
  const list = (seats) => (seats || []).map((s) => who[s]).join(w.and);
  const lines = [
    (final.governors || []).length ? said(w.governor, { who: list(final.governors) }) : w.no_governor,
    said(w.king, { who: list(final.pirate_kings) }),
  ];
  if (final.victory_colour) lines.push(final.victory_colour === "blue" ? w.two_blue : w.two_red);
  else lines.push((final.governors || []).length ? w.both : w.king_alone);
  if (!(final.winners || []).length) lines.push(w.nobody);
  return lines.join(" ");
}

function indiaRails(view, who, w) {
  const reason = view.finish_reason;
  if (!reason) return null;
  if (reason === "victory") {
    return said(w.victory, { who: (view.winners || []).map((s) => who[s]).join(w.and), cash: String(view.win_cash ?? "") });
  }
  const lines = [w[`limit_${reason}`] || w.limit_round_limit, w.limit_rank];
  if (!(view.winners || []).length) lines.push(w.nobody);
  return lines.join(" ");
}

function highest(view, who, w) {
  return view ? w.highest : null;
}

// Each game's table module declares its verdict (`export { ... as verdict }`): no list here.
export { teaRum as teaRumVerdict, indiaRails as indiaRailsVerdict, highest as highestScoreVerdict };

/** Why the game's winners won, in words (`language` "en" or "es"); null when the view cannot say
 * or `table` (the game's table module) declares no `verdict`. */
export function verdictOf(table, view, names, language) {
  const explain = table && table.verdict;
  if (!explain || !view) return null;
  return explain(view, names, WORDS[language] || WORDS.en);
}
