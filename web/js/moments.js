// What just happened: the last move, highlighted until the next one, and the numbered log.
//
// Every event of the stream belongs to a version (one move, or one lifecycle entry: a join, the
// start, a resignation).  The moves are remembered here as they arrive; the latest one is
//   - a line in words (`#last-move`): who moved, then the server's sentences for its events;
//   - outlined on the board: the places its events touched (web/tables/places.js says which,
//     per game), drawn again after every redraw of the board, so a bot's reply that lands a few
//     milliseconds after the viewer's move is still outlined until a newer move replaces it;
//   - marked in the log (`li.latest`); the moves by others since the viewer's own last move are
//     marked too (`li.recent`), so a burst of bot replies can be read in order.
// The outline is a shape (a dark dashed frame over a light one), never a colour alone, and it
// pulses for a few seconds when the move is new (not when reduced motion is asked for).
import { placesOf } from "../tables/places.js";

const FRESH_MS = 4000; // how long a new move's outline pulses
const MAX_MARKED = 16; // a move touching more places than this is outlined at its first ones
const WORDS = {
  en: { last: "Last move", you: "you", nobody: "the game" },
  es: { last: "Última jugada", you: "tú", nobody: "la partida" },
};

/** The kind of an SSE event's game event (its one field besides `@type`) and that field, or null. */
export function eventBody(event) {
  const message = event && event.event;
  if (!message) return null;
  const kind = Object.keys(message).find((key) => key !== "@type");
  return kind ? { kind, body: message[kind] || {} } : null;
}

/** Remembers the moves of one game as their events arrive; `latest()` is the last one. */
export function createMoments() {
  let latest = null; // {version, seat, lines: [{id, text}], events: [{kind, body}], at}
  const seats = new Map(); // version -> seat of its move (null: a lifecycle entry or the game)
  return {
    note(id, event) {
      const version = Number(event.version ?? 0);
      if (latest && version < latest.version) return;
      if (!latest || version > latest.version) {
        latest = { version, seat: event.seat ?? null, lines: [], events: [], at: Date.now() };
      }
      seats.set(version, event.seat ?? null);
      if (event.text) latest.lines.push({ id, text: event.text });
      const found = eventBody(event);
      if (found) latest.events.push(found);
    },
    latest: () => latest,
    /** Versions after the last move of `seat` (all of them for a spectator: none are "recent"). */
    recentSince(seat) {
      if (seat === null || seat === undefined) return new Set();
      const versions = [...seats.keys()].sort((a, b) => a - b);
      const mine = versions.filter((v) => seats.get(v) === seat).pop() ?? -1;
      return new Set(versions.filter((v) => v > mine && seats.get(v) !== seat));
    },
    clear() {
      latest = null;
      seats.clear();
    },
  };
}

/** One numbered log line: the number in full (`.log-n`) and the sentence (`.log-text`). */
export function logLine(number, id, event) {
  const line = document.createElement("li");
  line.dataset.eventId = id;
  line.dataset.n = String(number);
  line.dataset.version = String(event.version ?? 0);
  if (event.kind) line.dataset.kind = event.kind;
  const n = document.createElement("span");
  n.className = "log-n";
  n.textContent = `${number}.`;
  const text = document.createElement("span");
  text.className = "log-text";
  text.textContent = event.text || event.kind || id;
  line.append(n, " ", text);
  return line;
}

/** Mark the log's lines of the latest move (`latest`) and of the moves in `recent` (`recent`). */
export function markLog(log, moment, recent = new Set()) {
  for (const line of log.children) {
    const version = Number(line.dataset.version);
    const latest = Boolean(moment) && version === moment.version;
    line.classList.toggle("latest", latest);
    line.classList.toggle("recent", !latest && recent.has(version));
    if (latest) line.setAttribute("aria-current", "step");
    else line.removeAttribute("aria-current");
  }
}

/** `#last-move`: "Last move · <who>: <the move's sentences>" (hidden before any move). */
export function showLastMove(el, moment, names, viewerSeat, language) {
  const w = WORDS[language] || WORDS.en;
  if (!moment || !moment.lines.length) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  el.hidden = false;
  el.dataset.version = String(moment.version);
  el.dataset.seat = moment.seat === null ? "" : String(moment.seat);
  const label = document.createElement("strong");
  label.className = "last-move-label";
  label.textContent = `${w.last} · `;
  const who = document.createElement("span");
  who.className = "last-move-who";
  const name = moment.seat === null ? w.nobody : names[moment.seat] || `#${moment.seat + 1}`;
  who.textContent = moment.seat !== null && moment.seat === viewerSeat ? `${name} (${w.you})` : name;
  const text = document.createElement("span");
  text.className = "last-move-text";
  text.textContent = moment.lines.map((line) => line.text).join(" ");
  el.replaceChildren(label, who, ": ", text);
}

/** Outline on `board` the places the latest move touched; returns how many elements were marked. */
export function markBoard(board, table, moment, view) {
  for (const old of board.querySelectorAll(".last-move-mark")) old.remove();
  for (const old of board.querySelectorAll("[data-last-move]")) {
    old.removeAttribute("data-last-move");
    old.classList.remove("last-move-place", "fresh");
  }
  if (!moment) return 0;
  const elapsed = Date.now() - moment.at;
  const fresh = elapsed < FRESH_MS;
  const marked = [];
  for (const selector of placesOf(table, moment.events, view)) {
    let found = [];
    try {
      found = [...board.querySelectorAll(selector)];
    } catch (error) {
      console.warn("bad place selector", selector, error);
    }
    for (const element of found) if (!marked.includes(element) && marked.length < MAX_MARKED) marked.push(element);
  }
  for (const element of marked) {
    element.setAttribute("data-last-move", String(moment.version));
    element.classList.add("last-move-place");
    if (fresh) element.classList.add("fresh");
    if (element instanceof SVGGraphicsElement) frame(element, fresh ? elapsed : null);
  }
  return marked.length;
}

/** A frame over an SVG element, drawn on top of its whole drawing (in the root SVG's units). */
function frame(element, elapsed) {
  const root = element.ownerSVGElement;
  if (!root) return;
  let box;
  try {
    box = element.getBBox();
  } catch {
    return; // not rendered
  }
  const toRoot = root.getScreenCTM() && element.getScreenCTM() ? root.getScreenCTM().inverse().multiply(element.getScreenCTM()) : null;
  if (!toRoot || (box.width === 0 && box.height === 0)) return;
  const corners = [[box.x, box.y], [box.x + box.width, box.y], [box.x, box.y + box.height], [box.x + box.width, box.y + box.height]]
    .map(([x, y]) => new DOMPoint(x, y).matrixTransform(toRoot));
  const xs = corners.map((p) => p.x);
  const ys = corners.map((p) => p.y);
  const unit = 1 / (root.getScreenCTM().a || 1); // one screen pixel, whatever the zoom
  // 4 px around the place, and at least 22 px wide and high: a milepost on the whole map is a dot.
  const width = Math.max(Math.max(...xs) - Math.min(...xs) + 8 * unit, 22 * unit);
  const height = Math.max(Math.max(...ys) - Math.min(...ys) + 8 * unit, 22 * unit);
  const [cx, cy] = [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
  const rect = { x: cx - width / 2, y: cy - height / 2, width, height, rx: 8 * unit };
  const NS = "http://www.w3.org/2000/svg";
  const group = document.createElementNS(NS, "g");
  group.setAttribute("class", elapsed === null ? "last-move-mark" : "last-move-mark fresh");
  group.setAttribute("aria-hidden", "true");
  if (elapsed !== null) group.style.animationDelay = `${-elapsed}ms`; // a redraw does not restart the pulse
  for (const part of ["under", "over"]) {
    const shape = document.createElementNS(NS, "rect");
    for (const [key, value] of Object.entries(rect)) shape.setAttribute(key, String(value));
    shape.setAttribute("class", `last-move-${part}`);
    group.append(shape);
  }
  root.append(group);
}
