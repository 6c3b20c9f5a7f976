// The places a move touched, per game: where the shell draws the "last move" highlight.
//
// A move's events (as this viewer may see them) are turned into CSS selectors of the board's
// elements; the shell (web/js/moments.js) outlines whatever they find after every drawing, so a
// table only has to keep the data attributes named here on its elements.  An event with no place
// of its own falls back to its player's panel; an event that names neither (a round starting, a
// turn ending) touches nothing.  The decision per game is written in docs/guides/web-client.md.
//
// Only the event data is used: it is already redacted for this viewer, so nothing hidden is shown.

const q = (value) => JSON.stringify(String(value)); // an attribute value, quoted for a selector

/** Darjeeling: grid spaces by row and column, ships by index from the bottom berth, the score line. */
function darjeeling(kind, body, view) {
  const space = (row, col) => `.dj-grid .space[data-row=${q(row ?? 0)}][data-col=${q(col ?? 0)}]`;
  const ship = (index) => `.wharf .ship[data-ship=${q(index ?? 0)}]`;
  const top = Math.max(0, ((view && view.ships) || []).length - 1); // the ship a shipment goes onto
  const seat = body.seat ?? 0;
  switch (kind) {
    case "start_chosen":
      return [space(body.row, body.col), ship(body.ship)];
    case "collector_moved":
      return [space(body.from_row, body.from_col), space(body.to_row, body.to_col)];
    case "collector_stayed":
      return [`.dj-grid .collector[data-seat=${q(seat)}]`];
    case "tile_taken":
    case "space_refilled":
      return [space(body.row, body.col)];
    case "tiles_laid_out":
    case "action_played":
      return [".dj-shipment"];
    case "ship_loaded":
    case "ship_sailed":
      return [ship(top), `.dj-score[data-seat=${q(seat)}]`];
    case "crate_borrowed":
      return [ship(body.ship), ship(top)];
    case "crates_scored":
      return [`.dj-score[data-seat=${q(seat)}]`];
    case "game_ended":
      return [".dj-scores"];
    case "turn_ended":
      return [];
    default:
      return null; // the player's panel
  }
}

/** India Rails: mileposts, track segments (both orders), trains, cities and the players' panels. */
function indiaRails(kind, body) {
  const post = (id) => `.ir-board .milepost[data-milepost=${q(id ?? 0)}]`;
  const seat = body.seat ?? 0;
  const train = `.ir-board .train[data-seat=${q(seat)}][data-train=${q(body.train ?? 0)}]`;
  const carriage = `.ir-player[data-seat=${q(seat)}] .ir-train[data-train=${q(body.train ?? 0)}]`;
  const segment = (s) => {
    const [a, b] = [s && s.a ? s.a : 0, s && s.b ? s.b : 0];
    return [`.ir-board .track[data-a=${q(a)}][data-b=${q(b)}]`, `.ir-board .track[data-a=${q(b)}][data-b=${q(a)}]`, post(a), post(b)];
  };
  switch (kind) {
    case "track_built":
    case "track_erased":
      return segment(body.segment);
    case "track_sold":
      return segment(body.segment);
    case "train_placed":
      return [train, post(body.milepost)];
    case "train_moved":
      return [train, post(body.from_milepost)];
    case "load_picked":
    case "load_dropped":
      return [post(body.milepost), carriage];
    case "load_delivered":
      return [`.ir-board .city[data-city=${q(body.city || "")}]`, carriage];
    case "train_upgraded":
    case "load_lost":
      return [carriage];
    case "fee_paid":
      return [`.ir-player[data-seat=${q(body.payer ?? 0)}]`, `.ir-player[data-seat=${q(body.payee ?? 0)}]`];
    case "turn_started":
    case "turn_ended":
    case "threshold_raised":
    case "event_ended":
    case "game_over":
    case "cash_revealed":
      return [];
    default:
      return null;
  }
}

/** Alubari: action spaces, towns, track spaces, stockyard cubes, the Post Office and engine shed. */
function alubari(kind, body) {
  switch (kind) {
    case "worker_placed":
    case "action_lost":
    case "chai_boost":
      return [`[data-area=${q(body.area)}] [data-space=${q(body.space ?? 0)}]`];
    case "station_built":
      return [`[data-town=${q(body.town)}]`];
    case "track_laid":
      return (body.spaces || []).map((s) => `[data-track=${q(s)}]`);
    case "cube_taken":
      return [`[data-cube=${q(String(body.cube || "").toLowerCase())}]`];
    case "contract_taken":
      return ['[data-panel="post-office"]'];
    case "equipment_bought":
      return ['[data-panel="engine-shed"]'];
    case "game_over":
      return ['[data-panel="final-scores"]'];
    default:
      return null;
  }
}

/** Tea & Rum: action boards, ships, buildings, contracts, allegiances, the reputation track, trade. */
function teaRum(kind, body) {
  switch (kind) {
    case "worker_moved":
      return [`[data-board=${q(body.board)}]`];
    case "ship_bought":
      return [`[data-ship=${q(body.ship ?? 0)}]`];
    case "built":
      return [`[data-building=${q(body.building)}]`, `[data-player=${q(body.seat ?? 0)}]`];
    case "contract_fulfilled":
      return [`[data-contract-space=${q(body.space ?? 0)}]`, `[data-player=${q(body.seat ?? 0)}]`];
    case "allegiance_taken":
      return [`[data-allegiance=${q(body.allegiance ?? 0)}]`, `[data-player=${q(body.seat ?? 0)}]`];
    case "captain_hired":
      return ['[data-panel="captains"]', `[data-player=${q(body.seat ?? 0)}]`];
    case "reputation_advanced":
      return [`[data-reputation-seat=${q(body.seat ?? 0)}]`];
    case "traded":
      return ['[data-panel="trade"]', `[data-player=${q(body.seat ?? 0)}]`];
    case "game_over":
      return ['[data-panel="final"]'];
    default:
      return null;
  }
}

// Each game's table module declares its marks (`export { ... as marks }`): the places its events
// touch and a seat's panel.  No list of games here.
export const darjeelingMarks = { places: darjeeling, panel: (seat) => `.dj-screen[data-seat=${q(seat)}]` };
export const indiaRailsMarks = { places: indiaRails, panel: (seat) => `.ir-player[data-seat=${q(seat)}]` };
export const alubariMarks = { places: alubari, panel: (seat) => `[data-player=${q(seat)}]` };
export const teaRumMarks = { places: teaRum, panel: (seat) => `[data-player=${q(seat)}]` };

/** The seat an event is about (its `seat`, else `owner`, else `payer`), or null. */
function seatOf(body) {
  for (const key of ["seat", "owner", "payer"]) {
    if (typeof body[key] === "number" && body[key] >= 0) return body[key];
  }
  return null;
}

/**
 * Selectors of the board elements the events of one move touched, for the game whose table module
 * is `table`: `events` are `{kind, body}` (the event's one field and its content).  A table that
 * declares no `marks` (the generic one): none.
 */
export function placesOf(table, events, view) {
  const game = table && table.marks;
  if (!game) return [];
  const found = [];
  for (const { kind, body } of events) {
    let places = game.places(kind, body || {}, view);
    if (places === null) {
      const seat = seatOf(body || {});
      places = seat === null ? [] : [game.panel(seat)];
    }
    found.push(...places);
  }
  return [...new Set(found)];
}
