// The game-type choice both lobby forms share (create a game, quick play): a labelled select over
// the game types GET /v1/game-types lists, each by its title.
import { html } from "../vendor/htm-preact-standalone.js";
import { T } from "./i18n.js";

/** The labelled select of `types` (element id `id`, chosen `value`); `onPick(typeId)` on a change. */
export function GameTypeField({ id, types, value, onPick }) {
  return html`<label>${T("game_type")}
    <select id=${id} value=${value} onChange=${(e) => onPick(e.target.value)}>
      ${types.map((t) => html`<option value=${t.id}>${t.title || t.name}</option>`)}
    </select>
  </label>`;
}
