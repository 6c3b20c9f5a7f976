// The shared Alubari board as HTML: action areas A–G, the railway (towns with their station
// spaces, the track to the next town), the tea estates, and the weather, work-rate and chai
// tracks.  Each part is a section of the table's grid (see alubari.css); nothing is scaled.

import { html } from "../../vendor/htm-preact-standalone.js";
import { findOffer, seatName } from "../drawing.js";
import { term } from "../svg.js";
import { cls, costTag, ownerTag, pawn, piece, pointsTag } from "./kit.js";
import { costParts, pointsText } from "./words.js";

/** The name of action area `letter` in the API's words (its kind's term). */
export function areaName(ctx, letter) {
  const area = ctx.view.areas.find((a) => a.area === letter);
  return area ? term(ctx.table, "area_kind", area.kind) : letter;
}

/** Action areas A–G: each space shows its worker (a pawn), fog or free; free spaces take a worker. */
export function drawAreas(ctx) {
  const { view, w } = ctx;
  return html`<section class="alu-section alu-areas" aria-labelledby="alu-areas-h">
    <h2 id="alu-areas-h">${w.areas} <span class="alu-help">${w.areasHelp}</span></h2>
    <ol class="alu-area-list">${view.areas.map((area) => html`<li class="alu-area" data-area=${area.area}>
      <h3><span class="alu-letter">${area.area}</span> ${term(ctx.table, "area_kind", area.kind)}</h3>
      <div class="alu-spaces">${area.spaces.map((space) => actionSpace(ctx, area, space))}</div>
    </li>`)}</ol>
  </section>`;
}

function actionSpace(ctx, area, space) {
  const { w, view } = ctx;
  const taken = space.seat >= 0;
  const worker = view.worker;
  const now = Boolean(worker && worker.area === area.area && worker.space === space.number);
  const found = findOffer(ctx.offers, ctx.placed, "place_worker", (b) => b.area === area.area && Number(b.space) === space.number);
  const who = taken ? seatName(ctx.table, space.seat, w) : "";
  const content = html`<span class="alu-space-no">${space.number}</span>
    ${taken ? pawn(space.seat, who) : null}
    ${space.fog ? html`<span class="alu-small">${w.fog}</span>` : null}
    ${now ? html`<span class="alu-small alu-now">${w.resolving}</span>` : null}`;
  const data = { "data-space": space.number, "data-seat": String(space.seat) };
  if (!found) data.title = [`${w.space} ${space.number}`, who, space.fog ? w.fog : ""].filter(Boolean).join(": ");
  const label = found ? ctx.table.legal?.texts?.[found.index] : null;
  return piece(ctx, found, cls("alu-space", { "is-taken": taken, "is-fog": space.fog, "is-now": now }), content, data, label);
}

/** The railway: one card per town, in line order, with its station spaces and the track to the next town. */
export function drawRailway(ctx) {
  const { view, w } = ctx;
  return html`<section class="alu-section alu-railway" aria-labelledby="alu-railway-h">
    <h2 id="alu-railway-h">${w.railway}</h2>
    <ol class="alu-towns">${view.towns.map((town, i) => drawTown(ctx, town, view.towns[i + 1]))}</ol>
  </section>`;
}

function drawTown(ctx, town, next) {
  const { w, view } = ctx;
  const track = view.track.filter((space) => space.from_station === town.name);
  return html`<li class=${cls("alu-town", { "is-open": town.open })} data-town=${town.name}>
    <h3>${town.name} <span class="alu-badge">${town.open ? `✓ ${w.open}` : w.closed}</span></h3>
    ${town.spaces.length ? html`<ul class="alu-stations" aria-label=${w.stations}>
      ${town.spaces.map((space) => html`<li>${stationSpace(ctx, town, space)}</li>`)}</ul>`
      : html`<p class="alu-help">${w.noStations}</p>`}
    ${next && track.length ? html`<div class="alu-track">
      <span class="alu-track-to">${w.trackTo} ${next.name}</span>
      <ul class="alu-track-spaces">${track.map((space) => html`<li class=${cls("alu-track-space", { "is-river": space.river })}
        data-track=${space.index} data-owner=${String(space.owner)}>
        ${pointsTag(space.vp, w)}${space.river ? html`<span class="alu-river">≈ ${w.river}</span>` : null}
        ${ownerTag(ctx, space.owner)}</li>`)}</ul>
    </div>` : null}
  </li>`;
}

function stationSpace(ctx, town, space) {
  const { w } = ctx;
  const found = findOffer(ctx.offers, ctx.placed, "build_station", (b) => b.town === town.name && Number(b.space ?? 0) === space.index);
  const reward = html`${space.vp ? pointsTag(space.vp, w) : null}${costParts(space.bonus).length ? html`<span class="alu-bonus">+ ${costTag(space.bonus, w)}</span>` : null}`;
  const content = html`<span class="alu-station-cost">${costTag(space.cost, w, w.nothing)}</span>
    <span class="alu-arrow" aria-hidden="true">→</span><span class="alu-station-reward">${reward}</span>
    <span class="alu-station-owner">${ownerTag(ctx, space.owner)}</span>`;
  return piece(ctx, found, cls("alu-station", { "is-owned": space.owner !== -1 }), content, { "data-owner": String(space.owner) });
}

/** Tea estates: each space shows the rubble left on it, its points and its owner. */
export function drawEstates(ctx) {
  const { view, w } = ctx;
  return html`<section class="alu-section alu-estates" aria-labelledby="alu-estates-h">
    <h2 id="alu-estates-h">${w.estates}</h2>
    <ul class="alu-estate-list">${view.estates.map((estate) => html`<li class="alu-estate" data-estate=${estate.slot}>
      <h3>${estate.name}</h3>
      <ul class="alu-estate-spaces">${estate.spaces.map((space) => html`<li class=${cls("alu-estate-space", { "is-owned": space.owner !== -1 })}
        data-owner=${String(space.owner)}>
        ${space.owner === -1 ? html`<span>${space.rubble} ${w.rubbleLeft}</span>` : ownerTag(ctx, space.owner)}
        ${pointsTag(space.vp, w)}
        ${space.borrower >= 0 ? html`<span class="alu-small">→ ${seatName(ctx.table, space.borrower, w)}</span>` : null}
      </li>`)}</ul>
    </li>`)}</ul>
  </section>`;
}

/** The weather track, the three work-rate tracks and the chai track. */
export function drawTracks(ctx) {
  const { view, w, table } = ctx;
  const rates = view.work_rates;
  const crop = [0.5, 1, 1, 2, 2];
  return html`<section class="alu-section alu-tracks" aria-labelledby="alu-tracks-h">
    <h2 id="alu-tracks-h">${w.weather}${view.fog ? html` <span class="alu-badge">${w.fogOnBoard}</span>` : null}</h2>
    <ol class="alu-weather">${view.weather_track.map((weather, i) => html`<li class=${cls(`alu-wx alu-wx-${weather}`, { "is-now": i === 0 })}>
      ${term(table, "weather", weather)}${i === 0 ? html` <strong>(${w.now})</strong>` : null}</li>`)}</ol>
    <h2>${w.workRates}</h2>
    <div class="alu-rates">
      ${scale(w.excavation, [2, 3, 4, 5].map((v) => [v, v === rates.excavation]))}
      ${scale(w.layTrack, [1, 2, 3, 4].map((v) => [v, v === rates.lay_track]))}
      ${scale(w.cropHarvest, [...crop.map((v, i) => [v, i === rates.crop_harvest_space]),
        [`⚑ ${w.harvestAtEnd}`, rates.crop_harvest_space >= rates.crop_harvest_end]])}
    </div>
    <h2>${w.chaiTrack} <span class="alu-help">${w.chaiTrackHelp}</span></h2>
    ${chaiTrack(ctx)}
  </section>`;
}

function scale(title, steps) {
  return html`<div class="alu-scale"><h3>${title}</h3><ol>${steps.map(([value, on]) =>
    html`<li class=${cls("alu-step", { "is-on": on })} aria-current=${on ? "true" : undefined}>${on ? "▲ " : ""}${value}</li>`)}</ol></div>`;
}

const CHAI_POINTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20];

function chaiTrack(ctx) {
  const { view, w } = ctx;
  return html`<ol class="alu-chai">${CHAI_POINTS.map((points, i) => {
    const here = view.player_states.filter((p) => p.chai === i);
    const names = here.map((p) => seatName(ctx.table, p.seat, w)).join(", ");
    return html`<li class=${cls("alu-chai-step", { "is-blocked": i > view.chai_track_max })}
      title=${[pointsText(points, w), names].filter(Boolean).join(": ")}>
      <span>${points}</span><span class="alu-pawns">${here.map((p) => html`<span data-chai-seat=${p.seat}>${pawn(p.seat)}</span>`)}</span>
    </li>`;
  })}</ol>`;
}
