// The rules at hand: a "Rules" button on every table, and one beside the lobby's game picker,
// open the game's rules (GET /v1/game-types/{id}/rules, Markdown in the chosen language) in a dialog.
//
// The rules are our own small Markdown (headings, lists, paragraphs, simple `| a | b |` tables,
// **bold**, *italic*, `code`), turned into elements with textContent only: nothing from the
// answer is ever parsed as HTML. Each text holds two parts, "Quick start" and "Reference"
// (level-2 headings, drawn as <h3>).
import { API, words } from "./api.js";
import { T } from "./i18n.js";

const INLINE = /(\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`)/;

/** `**bold**`, `*italic*` and `` `code` `` inside one line, as text nodes and elements. */
function inline(parent, line) {
  for (const part of line.split(INLINE)) {
    if (!part) continue;
    const bold = part.startsWith("**") && part.endsWith("**") && part.length > 4;
    const code = !bold && part.startsWith("`") && part.endsWith("`") && part.length > 2;
    const italic = !bold && !code && part.startsWith("*") && part.endsWith("*") && part.length > 2;
    if (bold || italic || code) {
      const node = document.createElement(bold ? "strong" : code ? "code" : "em");
      node.textContent = part.slice(bold ? 2 : 1, bold ? -2 : -1);
      parent.append(node);
    } else parent.append(document.createTextNode(part));
  }
  return parent;
}

/** The cells of a table line `| a | b |`. */
function cells(line) {
  return line.replace(/^\|/, "").replace(/\|$/, "").split("|").map((cell) => cell.trim());
}

/** A table row; `head` makes <th> cells (the first line of a table). */
function tableRow(line, head) {
  const row = document.createElement("tr");
  for (const cell of cells(line)) row.append(inline(document.createElement(head ? "th" : "td"), cell));
  return row;
}

/** Markdown as a fragment of elements (the subset the rules use). */
export function markdown(source) {
  const root = document.createDocumentFragment();
  let list = null;
  let table = null;
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    const heading = line.match(/^(#{1,3})\s+(.*)$/);
    const item = line.match(/^(?:[-*]|\d+\.)\s+(.*)$/);
    if (line.startsWith("|")) {
      list = null;
      if (/^\|[\s|:-]+\|$/.test(line)) continue;  // the line under the head: | --- | --- |
      if (!table) {
        const wrap = document.createElement("div");
        wrap.className = "rules-table";  // scrolls sideways on a narrow screen, not the page
        table = document.createElement("table");
        wrap.append(table);
        root.append(wrap);
        table.append(tableRow(line, true));
      } else table.append(tableRow(line, false));
      continue;
    }
    table = null;
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

/** The one rules dialog of the page (made on first use, kept on <body> across views). */
function rulesDialog() {
  let dialog = document.getElementById("rules");
  if (dialog) return dialog;
  dialog = document.createElement("dialog");
  dialog.id = "rules";
  const body = document.createElement("div");
  body.className = "rules-text";
  const close = document.createElement("button");
  close.type = "button";
  close.id = "rules-close";
  close.textContent = T("close");
  close.addEventListener("click", () => dialog.close());
  dialog.append(close, body);
  document.body.append(dialog);
  return dialog;
}

/** Fetch `gameType`'s rules in the chosen language and show them in the dialog. */
export async function showRules(gameType) {
  const dialog = rulesDialog();
  const body = dialog.querySelector(".rules-text");
  dialog.dataset.gameType = gameType;
  dialog.querySelector("#rules-close").textContent = T("close");  // the language may have changed
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
  dialog.scrollTop = 0;
}

/** A "Rules" button for `gameType`, appended to `host`. */
export function rulesButton(host, gameType) {
  const button = document.createElement("button");
  button.type = "button";
  button.id = "rules-button";
  button.textContent = T("rules");
  button.addEventListener("click", () => showRules(gameType));
  host.append(button);
  return button;
}
