// The Alubari table's labels in English and Spanish (the shell passes `words` = "en" or "es").

const EN = {
  title: "Alubari",
  seat: "Seat",
  round: "Round",
  stage: "Stage",
  areas: { A: "Stockyard", B: "Excavation", C: "Foundry", D: "Lay Track", E: "Building", F: "Post Office", G: "Chaiwala" },
  fog: "fog",
  weather: "Weather",
  weatherNames: { SUN: "Sun", RAIN: "Rain", FOG: "Fog", NO_WEATHER: "—" },
  now: "now",
  excavation: "Excavation",
  layTrack: "Lay track",
  cropHarvest: "Crop harvest",
  chaiTrack: "Chai track",
  railway: "Railway: Siliguri → Darjeeling",
  open: "open",
  closed: "closed",
  estates: "Tea estates",
  stockyard: "Stockyard",
  bag: "bag",
  rondel: "Events",
  postOffice: "Post Office",
  engineShed: "Engine shed",
  supply: "General supply",
  deck: "deck",
  discard: "discard",
  empty: "empty",
  workers: "workers",
  tempWorker: "3rd worker",
  teaHouse: "in the Tea House",
  inPlay: "in play",
  markers: "markers",
  chai: "chai",
  equipment: "Equipment",
  contracts: "Contracts",
  used: "used",
  sitsOut: "sits out",
  toAct: "to act",
  you: "you",
  vp: "VP",
  worker: "Worker",
  window: "Contracts may be played for area",
  ending: "Final round",
  gameMarkers: "game markers",
  res: { iron_ore: "iron ore", stone: "stone", rubble: "rubble", steel: "steel", chai: "chai", tea_leaves: "leaves" },
  legend: "I iron ore · S stone · R rubble · St steel · C chai · L leaves",
  final: "Final scores",
  sheet: { estates: "estates", stations: "stations", track: "track", contracts: "contracts", chai: "chai",
    tea_leaves: "leaves", equipment: "equipment", total: "total" },
};

const ES = {
  ...EN,
  title: "Alubari",
  seat: "Asiento",
  round: "Ronda",
  stage: "Fase",
  areas: { A: "Almacén", B: "Excavación", C: "Fundición", D: "Tender vía", E: "Construcción", F: "Correos", G: "Chaiwala" },
  fog: "niebla",
  weather: "Clima",
  weatherNames: { SUN: "Sol", RAIN: "Lluvia", FOG: "Niebla", NO_WEATHER: "—" },
  now: "ahora",
  excavation: "Excavación",
  layTrack: "Tender vía",
  cropHarvest: "Cosecha",
  chaiTrack: "Marcador de chai",
  railway: "Ferrocarril: Siliguri → Darjeeling",
  open: "abierta",
  closed: "cerrada",
  estates: "Plantaciones de té",
  stockyard: "Almacén",
  bag: "bolsa",
  rondel: "Eventos",
  postOffice: "Correos",
  engineShed: "Cochera",
  supply: "Reserva general",
  deck: "mazo",
  discard: "descartes",
  empty: "vacío",
  workers: "trabajadores",
  tempWorker: "3.er trabajador",
  teaHouse: "en la casa de té",
  inPlay: "en juego",
  markers: "marcadores",
  chai: "chai",
  equipment: "Equipo",
  contracts: "Contratos",
  used: "usado",
  sitsOut: "no juega",
  toAct: "le toca",
  you: "tú",
  vp: "PV",
  worker: "Trabajador",
  window: "Se pueden jugar contratos del área",
  ending: "Última ronda",
  gameMarkers: "marcadores del juego",
  res: { iron_ore: "mineral", stone: "piedra", rubble: "escombros", steel: "acero", chai: "chai", tea_leaves: "hojas" },
  legend: "I mineral · S piedra · R escombros · St acero · C chai · L hojas",
  final: "Puntuación final",
  sheet: { estates: "plantaciones", stations: "estaciones", track: "vía", contracts: "contratos", chai: "chai",
    tea_leaves: "hojas", equipment: "equipo", total: "total" },
};

/** The labels for language `words` ("en" by default). */
export function wordsFor(words) {
  return words === "es" ? ES : EN;
}

// Short resource glyphs used on small board spaces (explained by the legend).
export const GLYPHS = { iron_ore: "I", stone: "S", rubble: "R", steel: "St", chai: "C", tea_leaves: "L" };

/** A cost or bonus as glyphs, e.g. "2I 1S" (empty string for nothing). */
export function costText(cost) {
  if (!cost) return "";
  return Object.entries(GLYPHS)
    .filter(([key]) => cost[key] > 0)
    .map(([key, glyph]) => `${cost[key]}${glyph}`)
    .join(" ");
}
