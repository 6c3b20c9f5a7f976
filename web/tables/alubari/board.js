// The shared Alubari board: action areas A–G, weather and work-rate tracks, the chai track,
// the railway with its track and station spaces, and the tea estates.

import { box, chip, el, findOffer, group, NOBODY, offer, seatColour, text } from "../drawing.js";
import { costText } from "./words.js";

const AREA_WIDTH = 164;

/** Action areas A–G: each space shows its worker (seat colour) or fog; open spaces take a worker. */
export function drawAreas(svg, ctx, y) {
  const { view, w } = ctx;
  view.areas.forEach((area, column) => {
    const g = group(svg, 12 + column * (AREA_WIDTH + 6), y, { "data-area": area.area });
    box(g, 0, 0, AREA_WIDTH, 190, { fill: "#fbf6e9" });
    text(g, 8, 18, `${area.area} · ${w.areas[area.area] ?? area.kind}`, { "font-weight": 600 });
    area.spaces.forEach((space, k) => drawActionSpace(g, ctx, area, space, 10 + (k % 2) * 76, 30 + Math.floor(k / 2) * 52));
  });
  return y + 196;
}

function drawActionSpace(parent, ctx, area, space, x, y) {
  const { w, offers, placed, table } = ctx;
  const taken = space.seat >= 0;
  const label = space.fog ? w.fog : taken ? `${space.number}` : `${space.number}`;
  const node = chip(parent, x, y, 68, 44, label, {
    fill: space.fog ? "#c8c8c8" : taken ? seatColour(space.seat) : NOBODY,
    "data-space": space.number,
  });
  node.setAttribute("data-seat", String(space.seat));
  if (taken) el("circle", { cx: 56, cy: 12, r: 6, fill: "#fff", class: "pin" }, node);
  const worker = ctx.view.worker;
  if (worker && worker.area === area.area && worker.space === space.number) {
    // The worker being resolved now.
    el("rect", { x: -3, y: -3, width: 74, height: 50, rx: 6, fill: "none", stroke: "#000", "stroke-width": 3, class: "pin" }, node);
  }
  const found = findOffer(offers, placed, "place_worker", (b) => b.area === area.area && Number(b.space) === space.number);
  offer(node, found, table, placed);
}

/** Weather track, the three work-rate tracks and the chai track, in one band. */
export function drawTracks(svg, ctx, y) {
  const { view, w } = ctx;
  const g = group(svg, 12, y);
  box(g, 0, 0, 1176, 96, { fill: "#eef4f7" });
  text(g, 8, 18, `${w.weather}${view.fog ? ` (${w.fog})` : ""}`, { "font-weight": 600 });
  view.weather_track.forEach((weather, i) => {
    const colours = { SUN: "#f7dc6f", RAIN: "#85c1e9", FOG: "#bfc9ca", NO_WEATHER: "#fff" };
    const disc = group(g, 14 + i * 58, 28);
    el("circle", { cx: 24, cy: 18, r: 18, fill: colours[weather] ?? "#fff", stroke: i === 0 ? "#000" : "#8a7f6a", "stroke-width": i === 0 ? 2 : 1 }, disc);
    text(disc, 24, 22, w.weatherNames[weather] ?? weather, { "text-anchor": "middle", "font-size": 10 });
    if (i === 0) text(disc, 24, 52, w.now, { "text-anchor": "middle", "font-size": 10 });
  });
  const rates = view.work_rates;
  drawScale(g, 210, w.excavation, [2, 3, 4, 5], rates.excavation);
  drawScale(g, 420, w.layTrack, [1, 2, 3, 4], rates.lay_track);
  const crop = [0.5, 1, 1, 2, 2].map((value, i) => ({ value, i }));
  drawCrop(g, 630, w.cropHarvest, crop, rates.crop_harvest_space, rates.crop_harvest_end);
  drawChai(g, 850, ctx);
  return y + 102;
}

function drawScale(parent, x, title, values, current) {
  text(parent, x, 18, title, { "font-weight": 600 });
  values.forEach((value, i) => {
    const on = value === current;
    box(parent, x + i * 44, 30, 40, 30, { fill: on ? "#f5b041" : "#fff" });
    text(parent, x + i * 44 + 20, 50, value, { "text-anchor": "middle", "font-weight": on ? 700 : 400 });
  });
}

function drawCrop(parent, x, title, spaces, position, end) {
  text(parent, x, 18, title, { "font-weight": 600 });
  spaces.forEach(({ value, i }) => {
    const on = i === position;
    box(parent, x + i * 36, 30, 32, 30, { fill: on ? "#58d68d" : "#fff" });
    text(parent, x + i * 36 + 16, 50, value, { "text-anchor": "middle", "font-weight": on ? 700 : 400 });
  });
  box(parent, x + spaces.length * 36, 30, 24, 30, { fill: position >= end ? "#58d68d" : "#eee" });
  text(parent, x + spaces.length * 36 + 12, 50, "⚑", { "text-anchor": "middle" });
}

const CHAI_POINTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20];

function drawChai(parent, x, ctx) {
  const { view, w } = ctx;
  text(parent, x, 18, w.chaiTrack, { "font-weight": 600 });
  CHAI_POINTS.forEach((points, i) => {
    const blocked = i > view.chai_track_max;
    box(parent, x + i * 20, 30, 18, 24, { fill: blocked ? "#566573" : "#fff", rx: 2 });
    text(parent, x + i * 20 + 9, 46, points, { "text-anchor": "middle", "font-size": 9, fill: blocked ? "#fff" : "#222" });
  });
  view.player_states.forEach((p, k) => {
    el("circle", { cx: x + p.chai * 20 + 9, cy: 62 + k * 7, r: 3.5, fill: seatColour(p.seat), "data-chai-seat": p.seat }, parent);
  });
}

// The railway is drawn as two rows of six towns; the segment between the rows opens row two.
const TOWN_WIDTH = 118;
const TRACK_SIZE = 30;

/** The railway: towns with their station spaces, and track spaces between them. */
export function drawRailway(svg, ctx, y) {
  const { view, w } = ctx;
  const g = group(svg, 12, y);
  box(g, 0, 0, 1176, 330, { fill: "#f6efe3" });
  text(g, 8, 18, w.railway, { "font-weight": 600 });
  text(g, 1168, 18, w.legend, { "text-anchor": "end", "font-size": 10, fill: "#555" });
  const perSegment = segmentSpaces(view.track);
  const rows = [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]];
  rows.forEach((towns, r) => {
    let x = 8;
    const rowY = 30 + r * 150;
    if (r === 1) x = drawSegment(g, ctx, perSegment[5] ?? [], x, rowY);
    towns.forEach((townIndex, k) => {
      const town = view.towns[townIndex];
      if (town) drawTown(g, ctx, town, x, rowY);
      x += TOWN_WIDTH + 4;
      if (k < towns.length - 1) x = drawSegment(g, ctx, perSegment[townIndex] ?? [], x, rowY);
    });
  });
  return y + 336;
}

/** Track spaces grouped by the segment (the town they leave from) they belong to. */
function segmentSpaces(track) {
  const byFrom = [];
  let segment = -1;
  let last = null;
  for (const space of track) {
    if (space.from_station !== last) {
      segment += 1;
      last = space.from_station;
      byFrom[segment] = [];
    }
    byFrom[segment].push(space);
  }
  return byFrom;
}

function drawSegment(parent, ctx, spaces, x, y) {
  spaces.forEach((space, i) => {
    const sx = x + i * (TRACK_SIZE + 2);
    const g = group(parent, sx, y + 40, { "data-track": space.index });
    box(g, 0, 0, TRACK_SIZE, TRACK_SIZE, { fill: ownerFill(space.owner), rx: 2 });
    text(g, TRACK_SIZE / 2, 13, `${space.vp}`, { "text-anchor": "middle", "font-size": 10 });
    if (space.river) text(g, TRACK_SIZE / 2, 26, "≈", { "text-anchor": "middle", fill: "#1f618d", "font-weight": 700 });
    g.setAttribute("data-owner", String(space.owner));
  });
  return x + spaces.length * (TRACK_SIZE + 2) + 4;
}

/** The fill of an owner on the board: a seat, nobody, the game, blocked or laid unmarked. */
export function ownerFill(owner) {
  if (owner >= 0) return seatColour(owner);
  if (owner === -1) return NOBODY;
  if (owner === -3) return "#2c3e50";
  return "#95a5a6";
}

function drawTown(parent, ctx, town, x, y) {
  const { w, offers, placed, table } = ctx;
  const g = group(parent, x, y, { "data-town": town.name });
  box(g, 0, 0, TOWN_WIDTH, 138, { fill: town.open ? "#fff" : "#f0ebe0", stroke: town.open ? "#1e8449" : "#8a7f6a" });
  text(g, 6, 15, town.name, { "font-weight": 600, "font-size": 12 });
  text(g, TOWN_WIDTH - 4, 15, town.open ? w.open : "", { "text-anchor": "end", "font-size": 9, fill: "#1e8449" });
  town.spaces.forEach((space, k) => {
    const reward = [space.vp ? `${space.vp}${w.vp}` : "", costText(space.bonus)].filter(Boolean).join(" +");
    const node = chip(g, 4, 22 + k * 23, TOWN_WIDTH - 8, 20, `${costText(space.cost)} → ${reward}`, {
      fill: ownerFill(space.owner),
    });
    node.setAttribute("data-owner", String(space.owner));
    const found = findOffer(offers, placed, "build_station", (b) => b.town === town.name && Number(b.space ?? 0) === space.index);
    offer(node, found, table, placed);
  });
}

/** Tea estates: each space shows the rubble left on it, its VP and its owner. */
export function drawEstates(svg, ctx, y) {
  const { view, w } = ctx;
  const g = group(svg, 12, y);
  box(g, 0, 0, 1176, 92, { fill: "#eaf5ea" });
  text(g, 8, 18, w.estates, { "font-weight": 600 });
  view.estates.forEach((estate, i) => {
    const e = group(g, 8 + i * 130, 26, { "data-estate": estate.slot });
    box(e, 0, 0, 124, 60, { fill: "#fff" });
    text(e, 6, 14, estate.name, { "font-size": 11, "font-weight": 600 });
    estate.spaces.forEach((space, k) => {
      const s = group(e, 4 + k * 40, 20, { "data-owner": space.owner });
      box(s, 0, 0, 36, 36, { fill: ownerFill(space.owner), rx: 3 });
      text(s, 18, 14, space.owner === -1 ? `${space.rubble}R` : "✓", { "text-anchor": "middle", "font-size": 10 });
      text(s, 18, 29, `${space.vp}${w.vp}`, { "text-anchor": "middle", "font-size": 10 });
    });
  });
  return y + 98;
}
