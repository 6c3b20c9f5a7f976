// The rules at hand: a "Rules" button on every table opens the game's summary
// (GET /v1/game-types/{id}/rules, Markdown in the chosen language) in a dialog.
//
// The summary is our own small Markdown (headings, lists, paragraphs, **bold**, *italic*), turned
// into elements with textContent only: nothing from the answer is ever parsed as HTML.
import { API, words } from "./api.js";
import { T } from "./i18n.js";

/** `**bold**` and `*italic*` inside one line, as text nodes and <strong>/<em> elements. */
function inline(parent, line) {
  for (const part of line.split(/(\*\*[^*]+\*\*|\*[^*]+\*)/)) {
    if (!part) continue;
    const bold = part.startsWith("**") && part.endsWith("**") && part.length > 4;
    const italic = !bold && part.startsWith("*") && part.endsWith("*") && part.length > 2;
    if (bold || italic) {
      const node = document.createElement(bold ? "strong" : "em");
      node.textContent = part.slice(bold ? 2 : 1, bold ? -2 : -1);
      parent.append(node);
    } else parent.append(document.createTextNode(part));
  }
  return parent;
}

/** Markdown as a fragment of elements (the subset the summaries use). */
export function markdown(source) {
  const root = document.createDocumentFragment();
  let list = null;
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    const heading = line.match(/^(#{1,3})\s+(.*)$/);
    const item = line.match(/^(?:[-*]|\d+\.)\s+(.*)$/);
    if (!line) {
      list = null;
    } else if (heading) {
      list = null;
      root.append(inline(document.createElement(`h${heading[1].length + 1}`), heading[2]));
    } else if (item) {
      if (!list) {
        list = document.createElement(/^\d/.test(line) ? "ol" : "ul");
        root.append(list);
      }
      list.append(inline(document.createElement("li"), item[1]));
    } else {
      list = null;
      root.append(inline(document.createElement("p"), line));
    }
  }
  return root;
}

/** A "Rules" button and its dialog for `gameType`, appended to `host`. */
export function rulesButton(host, gameType) {
  const button = document.createElement("button");
  button.type = "button";
  button.id = "rules-button";
  button.textContent = T("rules");
  const dialog = document.createElement("dialog");
  dialog.id = "rules";
  const body = document.createElement("div");
  body.className = "rules-text";
  const close = document.createElement("button");
  close.type = "button";
  close.id = "rules-close";
  close.textContent = T("close");
  close.addEventListener("click", () => dialog.close());
  dialog.append(close, body);
  button.addEventListener("click", async () => {
    try {
      const answer = await fetch(`${API}/v1/game-types/${encodeURIComponent(gameType)}/rules`, {
        headers: { "Accept-Language": words() },
      });
      const text = await answer.text();
      body.replaceChildren(answer.ok ? markdown(text) : document.createTextNode(text));
    } catch (error) {
      body.textContent = String(error.message || error);
    }
    if (!dialog.open) dialog.showModal();
  });
  host.append(button, dialog);
  return button;
}
