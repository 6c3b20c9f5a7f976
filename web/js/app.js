// The page's router: `#/` lobby, `#/game/<id>[/<seat>]` a table as one of this browser's
// seats, `#/watch/<id>` a table as a spectator, `#/replay/<id>` the replay viewer, `#/settings`
// the notification settings, `#/join/<id>[/<code>]` an invitation: the game in words, the joiner's
// name, and the join (web/js/invite.js).  The service worker (web/sw.js) is registered on every load.
import { setWords, words } from "./api.js";
import { showJoin } from "./invite.js";
import { showLobby } from "./lobby.js";
import { registerWorker, showSettings } from "./notify.js";
import { showTable } from "./table.js";

const root = document.getElementById("app");
let dispose = () => {};
let shown = 0; // which route() call the page on screen belongs to

/**
 * A fresh element for each page. Preact keeps its tree on the element it rendered into: rendering
 * a new page into the old element reused the old page's nodes, listeners included, so a click on
 * one table could still post to the table shown before it (issue #42, item 1).
 */
function freshPage() {
  const page = document.createElement("div");
  page.className = "page";
  root.replaceChildren(page);
  return page;
}

async function route() {
  dispose();
  dispose = () => {};
  const mine = ++shown;
  const page = freshPage();
  const [, kind, id, seat] = location.hash.replace(/^#\/?/, "#/").split("/");
  if (kind === "game" && id) dispose = showTable(page, id, { seatWanted: seat === undefined ? null : Number(seat) });
  else if (kind === "watch" && id) dispose = showTable(page, id, { spectator: true });
  else if (kind === "join" && id) dispose = showJoin(page, decodeURIComponent(id), decodeURIComponent(seat || ""));
  else if (kind === "replay" && id) {
    const { showReplay } = await import("./replay.js");
    if (mine === shown) dispose = showReplay(page, id); // another route may have come while loading
  } else if (kind === "settings") dispose = showSettings(page);
  else dispose = showLobby(page);
}

const language = document.getElementById("language");
language.value = words();
language.addEventListener("change", () => {
  setWords(language.value);
  document.documentElement.lang = language.value;
  route();
});
document.documentElement.lang = words();
window.addEventListener("hashchange", route);
registerWorker();
route();
