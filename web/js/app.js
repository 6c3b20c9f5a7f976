// The page's router: `#/` lobby, `#/game/<id>[/<seat>]` a table as one of this browser's
// seats, `#/watch/<id>` a table as a spectator, `#/replay/<id>` the replay viewer, `#/settings`
// the notification settings.  The service worker (web/sw.js) is registered on every load.
import { setWords, words } from "./api.js";
import { showLobby } from "./lobby.js";
import { registerWorker, showSettings } from "./notify.js";
import { showTable } from "./table.js";

const root = document.getElementById("app");
let dispose = () => {};

async function route() {
  dispose();
  root.replaceChildren();
  const [, page, id, seat] = location.hash.replace(/^#\/?/, "#/").split("/");
  if (page === "game" && id) dispose = showTable(root, id, { seatWanted: seat === undefined ? null : Number(seat) });
  else if (page === "watch" && id) dispose = showTable(root, id, { spectator: true });
  else if (page === "replay" && id) {
    const { showReplay } = await import("./replay.js");
    dispose = showReplay(root, id);
  } else if (page === "settings") dispose = showSettings(root);
  else dispose = showLobby(root);
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
