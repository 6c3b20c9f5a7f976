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
    rules: "Rules", close: "Close", confirm_move: "Play this move", cancel_move: "Cancel",
    confirm_hint: "Tap again or press “Play this move” to play it.",
    log: "Game log", // legibility (issue #34): the log's accessible name
    "bot:random": "random moves", "bot:heuristic": "steady", "bot:mcts": "thinker",
    "bot:mcts-easy": "thinker, easy", "bot:mcts-hard": "thinker, hard",
    // Time control and timeout policy (web/js/timecontrol.js); game statuses ("my games").
    time_control: "Time control", clock_none: "None", clock_per_turn: "A limit per turn",
    clock_bank: "A time bank with an increment", per_turn_seconds: "Seconds per turn", bank_minutes: "Minutes in each bank",
    increment_seconds: "Seconds added after each move", on_timeout: "When a clock runs out",
    "on_timeout:bot": "a bot makes that move", "on_timeout:resign": "the seat resigns after a few timeouts (a bot moves until then)",
    resign_after: "timeout {n} resigns the seat (a bot moves until then)",
    "on_timeout:abort": "the game is aborted", timeouts_to_resign: "Timeouts before resigning",
    per_turn_text: "per turn", bank_text: "bank", increment_text: "per move", seconds_short: "s",
    "status:waiting": "Waiting for players", "status:active": "In play", "status:finished": "Finished",
    "status:aborted": "Aborted", your_turn_mark: "Your turn!", status: "Status", invited_mark: "Invited", invited_by: "Invited by {host}",
    due_by: "move by {time}", you_won: "you won", your_place: "your place: {n}", last_activity: "last move {time}",
    other_turn: "Your turn in another game", other_turns: "Your turn in {n} other games",
    // Quick play (web/js/quickplay.js).
    play_now: "Play now", searching: "Looking for players…", waited: "Waited", in_pool: "Searching for the same game",
    cancel: "Cancel", rated: "Rated", bots_after: "Bots may fill the table after {s} s",
    // Notifications (web/js/notify.js).
    notify_me: "Notify me when it's my turn", notify_on: "Notifications are on in this browser",
    notify_denied: "This browser blocks notifications for this site", notify_unsupported: "This browser cannot receive push notifications",
    settings: "Settings", notices: "Tell me when", "notice:your_turn": "it is my turn", "notice:deadline_near": "my clock runs low",
    "notice:invited": "I am invited", "notice:match_found": "a match is found", "notice:game_finished": "a game ends",
    quiet_hours: "Quiet hours (nothing is pushed between)", quiet_from: "From", quiet_to: "To", time_zone: "Time zone",
    save: "Save", saved: "Saved.",
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
    confirm_move: "Jugar esta jugada", cancel_move: "Cancelar",
    confirm_hint: "Toca otra vez o pulsa «Jugar esta jugada» para jugarla.",
    log: "Registro de la partida", // legibilidad (issue #34)
    "bot:random": "jugadas al azar", "bot:heuristic": "constante", "bot:mcts": "pensador",
    "bot:mcts-easy": "pensador, fácil", "bot:mcts-hard": "pensador, difícil",
    time_control: "Control de tiempo", clock_none: "Ninguno", clock_per_turn: "Un límite por turno",
    clock_bank: "Una reserva de tiempo con incremento", per_turn_seconds: "Segundos por turno",
    bank_minutes: "Minutos de cada reserva", increment_seconds: "Segundos que se suman tras cada jugada",
    on_timeout: "Cuando se acaba un reloj", "on_timeout:bot": "un bot hace esa jugada",
    "on_timeout:resign": "el asiento abandona tras unos tiempos agotados (hasta entonces juega un bot)",
    resign_after: "el tiempo agotado número {n} hace abandonar al asiento (hasta entonces juega un bot)",
    "on_timeout:abort": "la partida se anula", timeouts_to_resign: "Tiempos agotados antes de abandonar",
    per_turn_text: "por turno", bank_text: "de reserva", increment_text: "por jugada", seconds_short: "s",
    "status:waiting": "Esperando jugadores", "status:active": "En juego", "status:finished": "Terminada",
    "status:aborted": "Anulada", your_turn_mark: "¡Tu turno!", status: "Estado", invited_mark: "Invitación", invited_by: "Invitación de {host}",
    due_by: "juega antes de {time}", you_won: "has ganado", your_place: "tu puesto: {n}", last_activity: "última jugada {time}",
    other_turn: "Tu turno en otra partida", other_turns: "Tu turno en {n} partidas más",
    play_now: "Jugar ya", searching: "Buscando jugadores…", waited: "Esperando", in_pool: "Buscan la misma partida",
    cancel: "Cancelar", rated: "Puntuable", bots_after: "Bots pueden completar la mesa tras {s} s",
    notify_me: "Avísame cuando me toque", notify_on: "Los avisos están activados en este navegador",
    notify_denied: "Este navegador bloquea los avisos de este sitio", notify_unsupported: "Este navegador no puede recibir avisos",
    settings: "Ajustes", notices: "Avísame cuando", "notice:your_turn": "me toque", "notice:deadline_near": "se me acabe el reloj",
    "notice:invited": "me inviten", "notice:match_found": "se encuentre rival", "notice:game_finished": "termine una partida",
    quiet_hours: "Horas de silencio (no se envía nada entre)", quiet_from: "Desde", quiet_to: "Hasta", time_zone: "Zona horaria",
    save: "Guardar", saved: "Guardado.",
  },
};

/** The shell's word for `key` in the chosen language. */
export function T(key) {
  return TEXT[words()][key] ?? TEXT.en[key] ?? key;
}

/** A field or code name the API gave no words for, made readable ("start_player" -> "Start player"). */
export function readable(name) {
  const spaced = String(name).replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/_+/g, " ").trim().toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
