// Time controls in words, and the lobby's fields that choose one: no clock, a limit per turn, or
// a bank with an increment (POST /v1/games' `clock`), and what a clock running out leads to
// (`on_timeout`, with `timeouts_to_resign` for "resign").  GET /v1/games/{id} reports the choice
// back as `time_control`, `on_timeout` and `timeouts_to_resign`; the table shows it in words.
import { html, render } from "../vendor/htm-preact-standalone.js";
import { T } from "./i18n.js";

/** The API's timeout policies (`on_timeout`; services/games/lifecycle.py ON_TIMEOUT), the default first. */
export const POLICIES = ["bot", "resign", "abort"];

/** The form's starting choice: no clock, with sensible values ready for when one is picked. */
export function defaultTimeControl() {
  return { kind: "none", perTurnS: 60, bankMin: 10, incrementS: 5, onTimeout: "bot", timeoutsToResign: 3 };
}

/** What the choice adds to POST /v1/games' body (nothing without a clock: a policy needs one). */
export function timeControlBody(choice) {
  let clock;
  if (choice.kind === "per_turn") clock = { per_turn_s: Math.round(choice.perTurnS) };
  else if (choice.kind === "bank") {
    clock = { bank_s: Math.round(choice.bankMin * 60), increment_s: Math.round(choice.incrementS) };
  } else return {};
  const body = { clock, on_timeout: choice.onTimeout };
  if (choice.onTimeout === "resign") body.timeouts_to_resign = Math.round(choice.timeoutsToResign);
  return body;
}

function duration(seconds) {
  if (seconds < 60) return `${seconds} ${T("seconds_short")}`;
  const pad = (n) => String(n).padStart(2, "0");
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h ? `${h}:${pad(m)}:${pad(seconds % 60)}` : `${m}:${pad(seconds % 60)}`;
}

/** A time control (`time_control` of a game) in words: "10:00 bank + 5 s per move", "1:00 per turn". */
export function timeControlText(spec) {
  if (!spec || !(spec.per_turn_s || spec.bank_s)) return T("no_clock");
  if (spec.per_turn_s) return `${duration(spec.per_turn_s)} ${T("per_turn_text")}`;
  const more = spec.increment_s ? ` + ${spec.increment_s} ${T("seconds_short")} ${T("increment_text")}` : "";
  return `${duration(spec.bank_s)} ${T("bank_text")}${more}`;
}

/** A game's timeout policy in words ("When a clock runs out: a bot makes that move"). */
export function policyText(game) {
  const policy = game.on_timeout || "bot";
  const said = policy === "resign" ? T("resign_after").replace("{n}", String(game.timeouts_to_resign || 3)) : T(`on_timeout:${policy}`);
  return `${T("on_timeout")}: ${said}`;
}

/** The table's line on its time control (`#time-control`): the clock chosen and, with one, its policy. */
export function showTimeControl(el, game) {
  if (!el) return;
  const clocked = Boolean(game.time_control);
  el.dataset.onTimeout = clocked ? game.on_timeout || "bot" : "";
  render(
    clocked
      ? html`<span class="time-control-clock">${timeControlText(game.time_control)}</span> · <span class="time-control-policy">${policyText(game)}</span>`
      : null,
    el,
  );
}

function numberField(id, label, value, [min, max], onValue) {
  return html`<label>${label}
    <input type="number" id=${id} min=${min} max=${max} step="1" value=${value}
      onInput=${(e) => onValue(Number(e.target.value))} />
  </label>`;
}

/**
 * The lobby's time-control fields (`#clock-choice`): a kind of clock, its lengths, and its policy.
 * `idPrefix` keeps ids unique when a page shows two (quick play's are `quick-…`); `policy` false
 * leaves the timeout policy out (a quick-play ticket asks for a clock only).
 */
export function TimeControlFields({ choice, onChange, idPrefix = "", policy = true }) {
  const set = (key) => (value) => onChange({ ...choice, [key]: value });
  const id = (name) => `${idPrefix}${name}`;
  const kinds = [["none", T("clock_none")], ["per_turn", T("clock_per_turn")], ["bank", T("clock_bank")]];
  return html`<fieldset id=${id("clock-choice")}><legend>${T("time_control")}</legend>
    <select id=${id("clock-kind")} aria-label=${T("time_control")} value=${choice.kind} onChange=${(e) => set("kind")(e.target.value)}>
      ${kinds.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
    </select>
    ${choice.kind === "per_turn" ? numberField(id("per-turn-s"), T("per_turn_seconds"), choice.perTurnS, [1, 2592000], set("perTurnS")) : null}
    ${choice.kind === "bank" ? numberField(id("bank-min"), T("bank_minutes"), choice.bankMin, [1, 43200], set("bankMin")) : null}
    ${choice.kind === "bank" ? numberField(id("increment-s"), T("increment_seconds"), choice.incrementS, [0, 3600], set("incrementS")) : null}
    ${choice.kind === "none" || !policy
      ? null
      : html`<label>${T("on_timeout")}
          <select id=${id("on-timeout")} value=${choice.onTimeout} onChange=${(e) => set("onTimeout")(e.target.value)}>
            ${POLICIES.map((p) => html`<option value=${p}>${T(`on_timeout:${p}`)}</option>`)}
          </select>
        </label>`}
    ${policy && choice.kind !== "none" && choice.onTimeout === "resign"
      ? numberField(id("timeouts-to-resign"), T("timeouts_to_resign"), choice.timeoutsToResign, [1, 100], set("timeoutsToResign"))
      : null}
  </fieldset>`;
}
