// The tab says when it is the player's turn (issue #42, item 7): its title starts with "● Your
// turn" and its icon turns from a plain cup to one with an orange dot, so a player looking at
// another tab (or at a row of pinned tabs, where only the icon shows) sees it.
import { T } from "./i18n.js";

const PAGE_TITLE = document.title;
// Small inline SVGs: no request, and no file for the gateway to serve.
const CUP = '<rect x="8" y="14" width="36" height="38" rx="6" fill="#2e7d4f"/><path d="M44 22h6a7 7 0 0 1 0 14h-6" fill="none" stroke="#2e7d4f" stroke-width="5"/>';
const DOT = '<circle cx="48" cy="14" r="14" fill="#e07b12" stroke="#fff" stroke-width="3"/>';

function icon(mine) {
  const drawn = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${CUP}${mine ? DOT : ""}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(drawn)}`;
}

/** Mark (or unmark) the tab's title and icon for the player's turn. */
export function markYourTurn(mine) {
  document.title = mine ? `● ${T("your_turn")} · ${PAGE_TITLE}` : PAGE_TITLE;
  let link = document.querySelector('link[rel="icon"]');
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.append(link);
  }
  link.href = icon(mine);
  link.dataset.yourTurn = String(mine); // what the tab shows, for tests and tools
}
