// The Tea & Rum table's labels in English and Spanish, and effect lists ("gains") as short text.

export const RESOURCES = ["wheat", "wood", "ore", "barrel", "tobacco", "cannon"];
export const RESOURCE_COLOURS = {
  wheat: "#f4d03f", wood: "#a0522d", ore: "#7f8c8d", barrel: "#d35400", tobacco: "#6e2c00", cannon: "#212f3d",
};

const EN = {
  title: "Tea & Rum",
  player: "player",
  now: "now",
  free: "free space",
  workersHere: "workers on this board",
  ship: "Ship",
  contract: "Contract",
  cost: "cost",
  bonus: "bonus",
  empty: "empty space",
  takenBy: "taken by",
  bought: "bought",
  faceDownOne: "face down",
  onScale: "on the scale",
  held: "in the warehouse",
  inMarket: "in the market",
  showChoices: "Show my choices on the board",
  seat: "Seat",
  automa: "Automa",
  round: "Round",
  phase: "Phase",
  stage: "Stage",
  deciding: "deciding",
  boards: { governor: "Governor", harbour: "Harbour", tavern: "Tavern", builders: "Builders" },
  fountain: "fountain",
  row: "Row",
  alternative: "Alternative",
  ships: "Ships",
  taken: "taken",
  contracts: "Contracts",
  deck: "deck",
  allegiances: "Allegiances",
  captains: "Captains",
  captain: "Captain",
  buildings: "Buildings",
  removed: "removed",
  copies: "left",
  trade: "Trade board",
  sell: "Sell (warehouse → market)",
  buy: "Buy (market → warehouse)",
  plate: "plate",
  value: "value",
  balance: "balance",
  pay: "the trader pays",
  receive: "the trader receives",
  confirm: "Confirm trade",
  reputation: "Reputation",
  population: "Population",
  rounds: "Rounds",
  wish: "wish",
  victory: "victory",
  hidden: "hidden",
  chest: "chest",
  chestClosed: "VP in a closed chest (hidden)",
  money: "money",
  warehouse: "warehouse",
  expansions: "expansions",
  allegiance: "allegiance",
  fulfilled: "proven",
  none: "none",
  wishes: "wishes",
  workers: "workers on boards",
  you: "you",
  toAct: "to act",
  blueVp: "blue VP",
  redVp: "red VP",
  supply: "Supply",
  automaTokens: "automa tokens left",
  drawn: "drawn",
  faceDown: "victory cards face down",
  passed: "passed ships",
  exchanged: "exchanged",
  requirements: "needs",
  payment: "pays",
  instant: "now",
  reward: "reward",
  cannons: "cannons",
  symbols: { hygiene: "hygiene", security: "security", entertainment: "entertainment" },
  colours: { purple: "purple", green: "green", yellow: "yellow", brown: "brown", blue: "blue", red: "red" },
  res: { wheat: "wheat", wood: "wood", ore: "ore", barrel: "barrel", tobacco: "tobacco", cannon: "cannon" },
  any_cube: "any cube",
  pop: "pop.",
  stars: "★",
  actions: { trade: "trade", build: "build", contract: "contract", captain: "captain" },
  final: "Final result",
  winners: "Winner",
  twoWinners: "Two winners",
  governor: "Governor",
  pirateKing: "Pirate King",
};

const ES = {
  ...EN,
  title: "Té y Ron",
  player: "jugador",
  now: "ahora",
  free: "espacio libre",
  workersHere: "trabajadores en este tablero",
  ship: "Barco",
  contract: "Contrato",
  cost: "coste",
  bonus: "bono",
  empty: "espacio vacío",
  takenBy: "tomada por",
  bought: "comprada",
  faceDownOne: "boca abajo",
  onScale: "en la balanza",
  held: "en el almacén",
  inMarket: "en el mercado",
  showChoices: "Ver mis opciones en el tablero",
  seat: "Asiento",
  automa: "Autómata",
  round: "Ronda",
  phase: "Fase",
  stage: "Etapa",
  deciding: "decide",
  boards: { governor: "Gobernador", harbour: "Puerto", tavern: "Taberna", builders: "Constructores" },
  fountain: "fuente",
  row: "Fila",
  alternative: "Alternativa",
  ships: "Barcos",
  taken: "tomado",
  contracts: "Contratos",
  deck: "mazo",
  allegiances: "Lealtades",
  captains: "Capitanes",
  captain: "Capitán",
  buildings: "Edificios",
  removed: "retirados",
  copies: "quedan",
  trade: "Tablero de comercio",
  sell: "Vender (almacén → mercado)",
  buy: "Comprar (mercado → almacén)",
  plate: "plato",
  value: "valor",
  balance: "saldo",
  pay: "paga",
  receive: "recibe",
  confirm: "Confirmar comercio",
  reputation: "Reputación",
  population: "Población",
  rounds: "Rondas",
  wish: "deseo",
  victory: "victoria",
  hidden: "oculto",
  chest: "cofre",
  chestClosed: "PV en un cofre cerrado (ocultos)",
  money: "dinero",
  warehouse: "almacén",
  expansions: "ampliaciones",
  allegiance: "lealtad",
  fulfilled: "probada",
  none: "ninguna",
  wishes: "deseos",
  workers: "trabajadores en tableros",
  you: "tú",
  toAct: "le toca",
  blueVp: "PV azules",
  redVp: "PV rojos",
  supply: "Reserva",
  automaTokens: "fichas del autómata",
  drawn: "sacadas",
  faceDown: "cartas de victoria boca abajo",
  passed: "pasó en barcos",
  exchanged: "canjeado",
  requirements: "requiere",
  payment: "paga",
  instant: "ahora",
  reward: "premio",
  cannons: "cañones",
  symbols: { hygiene: "higiene", security: "seguridad", entertainment: "ocio" },
  colours: { purple: "morado", green: "verde", yellow: "amarillo", brown: "marrón", blue: "azul", red: "rojo" },
  res: { wheat: "trigo", wood: "madera", ore: "mineral", barrel: "barril", tobacco: "tabaco", cannon: "cañón" },
  any_cube: "cubo a elegir",
  pop: "pobl.",
  actions: { trade: "comerciar", build: "construir", contract: "contrato", captain: "capitán" },
  final: "Resultado final",
  winners: "Ganador",
  twoWinners: "Dos ganadores",
  governor: "Gobernador",
  pirateKing: "Rey pirata",
};

/** The labels for language `words` ("en" by default). */
export function wordsFor(words) {
  return words === "es" ? ES : EN;
}

/** One effect icon as text: "$2", "★1", "1 wheat", "2 blue", "(a / b)", "build −1". */
export function gainText(gain, w) {
  const n = gain.amount;
  if (gain.kind === "coins") return `$${n}`;
  if (gain.kind === "stars") return `★${n}`;
  if (gain.kind in w.res) return `${n} ${w.res[gain.kind]}`;
  if (gain.kind === "any_cube") return `${n} ${w.any_cube}`;
  if (gain.kind === "blue" || gain.kind === "red") return `${n} ${w.colours[gain.kind]}`;
  if (gain.kind === "population") return `+${n} ${w.pop}`;
  if (gain.kind === "choice") return `(${(gain.options || []).map((o) => gainsText(o.gains, w)).join(" / ")})`;
  const action = w.actions[gain.kind] ?? gain.kind;
  if (gain.kind === "captain" && n) return `${action} −$${n}`;
  return n ? `${action} −${n}` : action;
}

/** An effect list as text, left to right. */
export function gainsText(gains, w) {
  return (gains || []).map((g) => gainText(g, w)).join(", ");
}

/** A cost as text: "$3 2 wood 1 ore" (empty string for nothing). */
export function costText(cost, w) {
  if (!cost) return "";
  const parts = cost.coins ? [`$${cost.coins}`] : [];
  for (const r of RESOURCES) if (cost[r]) parts.push(`${cost[r]} ${w.res[r]}`);
  return parts.join(" ");
}
