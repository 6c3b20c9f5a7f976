// The shell's own words (the game's sentences come from the API in the chosen language).
import { words } from "./api.js";

const TEXT = {
  en: {
    lobby: "Lobby", replay: "Replay", seat: "Seat", game_over: "Game over", aborted: "Game aborted",
    waiting_players: "Waiting for players", your_turn: "Your turn", waiting_for: "Waiting for",
    no_clock: "No time control", winners: "Winners", winner: "Winner", and: "and", rank: "Rank",
    player: "Player", score: "Score", watch_replay: "Watch the replay", or_click_board: "Click a highlighted place on the board, or:",
    open_seat: "open seat", your_name: "Your name", join: "Join", start_now: "Start now",
    state_moved_on: "The game moved on before your move arrived; here is the new position.",
    new_game: "New game", game_type: "Game", players: "Players", options: "Options", create: "Create",
    you: "You", guest: "Guest", open: "Open seat", bot: "Bot", open_games: "Open games", running_games: "Running games",
    my_games: "My games", watch: "Watch", open_table: "Play", none: "None yet.", shared_win: "shared victory",
    step_back: "◀ Back", step_forward: "Forward ▶", first: "|◀ Start", last: "End ▶|", version: "Move",
    seat_of: "your seat", refresh: "Refresh", language: "Language",
    replay_after_end: "The replay opens once the game is over.",
    rules: "Rules", close: "Close",
    log: "Game log", // legibility (issue #34): the log's accessible name
    "bot:random": "random moves", "bot:heuristic": "steady", "bot:mcts": "thinker",
    "bot:mcts-easy": "thinker, easy", "bot:mcts-hard": "thinker, hard",
  },
  es: {
    lobby: "Sala", replay: "Repetición", seat: "Asiento", game_over: "Fin de la partida", aborted: "Partida anulada",
    waiting_players: "Esperando jugadores", your_turn: "Tu turno", waiting_for: "Esperando a",
    no_clock: "Sin control de tiempo", winners: "Ganadores", winner: "Ganador", and: "y", rank: "Puesto",
    player: "Jugador", score: "Puntos", watch_replay: "Ver la repetición", or_click_board: "Pulsa un lugar resaltado del tablero, o bien:",
    open_seat: "asiento libre", your_name: "Tu nombre", join: "Unirse", start_now: "Empezar ya",
    state_moved_on: "La partida avanzó antes de que llegara tu jugada; esta es la nueva posición.",
    new_game: "Nueva partida", game_type: "Juego", players: "Jugadores", options: "Opciones", create: "Crear",
    you: "Tú", guest: "Invitado", open: "Asiento libre", bot: "Bot", open_games: "Partidas abiertas", running_games: "Partidas en curso",
    my_games: "Mis partidas", watch: "Mirar", open_table: "Jugar", none: "Ninguna todavía.", shared_win: "victoria compartida",
    step_back: "◀ Atrás", step_forward: "Adelante ▶", first: "|◀ Inicio", last: "Final ▶|", version: "Jugada",
    seat_of: "tu asiento", refresh: "Actualizar", language: "Idioma",
    replay_after_end: "La repetición se abre cuando termina la partida.",
    rules: "Reglas", close: "Cerrar",
    log: "Registro de la partida", // legibilidad (issue #34)
    "bot:random": "jugadas al azar", "bot:heuristic": "constante", "bot:mcts": "pensador",
    "bot:mcts-easy": "pensador, fácil", "bot:mcts-hard": "pensador, difícil",
  },
};

/** The shell's word for `key` in the chosen language. */
export function T(key) {
  return TEXT[words()][key] ?? TEXT.en[key] ?? key;
}
