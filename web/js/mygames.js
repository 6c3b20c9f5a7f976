// "My games": the games this browser created or joined, with their seat and host tokens,
// kept in localStorage (tokens are returned once by the API and never again).

const KEY = "chaiwala.games";

/** Every remembered game, newest first: `{gameId, gameType, seats: {seat: token}, hostToken, name, at}`. */
export function myGames() {
  try {
    const games = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(games) ? games : [];
  } catch {
    return [];
  }
}

function save(games) {
  localStorage.setItem(KEY, JSON.stringify(games.slice(0, 200)));
}

/** Remember a seat token (and the host token, if any) of one game. */
export function remember(gameId, gameType, seat, token, { hostToken = null, name = "" } = {}) {
  const games = myGames();
  let game = games.find((g) => g.gameId === gameId);
  if (!game) {
    game = { gameId, gameType, seats: {}, hostToken: null, name, at: new Date().toISOString() };
    games.unshift(game);
  }
  if (token) game.seats[String(seat)] = token;
  if (hostToken) game.hostToken = hostToken;
  save(games);
}

/** The seats this browser holds in a game, as `[[seat, token], ...]` ordered by seat. */
export function seatsIn(gameId) {
  const game = myGames().find((g) => g.gameId === gameId);
  if (!game) return [];
  return Object.entries(game.seats)
    .map(([seat, token]) => [Number(seat), token])
    .sort((a, b) => a[0] - b[0]);
}

export function hostTokenOf(gameId) {
  const game = myGames().find((g) => g.gameId === gameId);
  return game ? game.hostToken : null;
}

export function forget(gameId) {
  save(myGames().filter((g) => g.gameId !== gameId));
}
